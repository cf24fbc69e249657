"""PostgreSQL adapter of the ratings service: the event store of schema ``ratings`` and its read models.

Streams: ``game:<game_id>`` holds the messages received for a game (GameFinishedReceived,
GameAbortedReceived, GameVoidedReceived); ``pool:<pool>`` holds every RatingAdjusted event and a
PoolRecomputed marker whenever a void or a rebuild starts a new epoch of the pool. The tables
``current`` and ``history`` are the read model of the pool's latest epoch, written in the same
transaction as the events.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from services.ratings.domain.ports import GameRecord, HistoryRow, RatingsRepository, UnitOfWork
from services.ratings.domain.rating import Adjustment, Rating, ordinal
from shared.eventstore.model import NewEvent
from shared.eventstore.postgres import PostgresEventStore
from shared.outbox import consume_once
from shared.player_names import names_of, save_name

SCHEMA = "ratings"
WRITER_LOCK = 7_415_925_104  # advisory lock: one ratings writer at a time


class PostgresRatingsRepository(RatingsRepository):
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.events = PostgresEventStore(conn, SCHEMA)

    # -- writing -----------------------------------------------------------------------
    def lock(self) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))

    def consume_once(self, consumer: str, message_id: str) -> bool:
        with consume_once(self.conn, SCHEMA, consumer, message_id) as fresh:
            return fresh

    def game(self, game_id: str) -> GameRecord | None:
        row = self.conn.execute(
            "SELECT game_id, status, pool, finished_position FROM ratings.games WHERE game_id = %s", (game_id,)
        ).fetchone()
        return GameRecord(row[0], row[1], row[2], row[3]) if row else None

    def save_game(
        self,
        game_id: str,
        status: str,
        *,
        game_type: str | None = None,
        pool: str | None = None,
        reason: str | None = None,
        players: Sequence[str] = (),
        finished_position: int | None = None,
        finished_at: datetime | None = None,
    ) -> None:
        self.conn.execute(
            "INSERT INTO ratings.games AS g (game_id, status, game_type, pool, reason, players, finished_position,"
            " finished_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (game_id) DO UPDATE SET"
            " status = EXCLUDED.status, game_type = coalesce(EXCLUDED.game_type, g.game_type),"
            " pool = coalesce(EXCLUDED.pool, g.pool), reason = coalesce(EXCLUDED.reason, g.reason),"
            " players = CASE WHEN EXCLUDED.players = '[]'::jsonb THEN g.players ELSE EXCLUDED.players END,"
            " finished_position = coalesce(EXCLUDED.finished_position, g.finished_position),"
            " finished_at = coalesce(EXCLUDED.finished_at, g.finished_at), updated_at = now()",
            (game_id, status, game_type, pool, reason, Jsonb(list(players)), finished_position, finished_at),
        )

    def _append(self, stream: str, events: Sequence[NewEvent]) -> int:
        stored = self.events.append(stream, self.events.stream_version(stream), events)
        return stored[0].position

    def append_received(self, game_id: str, event_type: str, payload: dict[str, Any]) -> int:
        return self._append(f"game:{game_id}", [NewEvent(event_type, payload, {"correlation_id": game_id})])

    def ratings(self, pool: str, players: Sequence[str]) -> dict[str, Rating]:
        rows = self.conn.execute(
            "SELECT player_id, mu, sigma, games_played FROM ratings.current"
            " WHERE pool = %s AND player_id = ANY(%s)",
            (pool, list(players)),
        ).fetchall()
        return {r[0]: Rating(float(r[1]), float(r[2]), int(r[3])) for r in rows}

    def _epoch(self, pool: str, games: int | None, bump: bool) -> int:
        self.conn.execute("INSERT INTO ratings.pools (pool) VALUES (%s) ON CONFLICT DO NOTHING", (pool,))
        row = self.conn.execute(
            "UPDATE ratings.pools SET epoch = epoch + %s, games = coalesce(%s, games + 1), updated_at = now()"
            " WHERE pool = %s RETURNING epoch",
            (1 if bump else 0, games, pool),
        ).fetchone()
        assert row is not None
        return int(row[0])

    @staticmethod
    def _adjusted(epoch: int, position: int, a: Adjustment) -> NewEvent:
        return NewEvent(
            "RatingAdjusted", {**a.as_dict(), "epoch": epoch, "finished_position": position},
            {"correlation_id": a.game_id},
        )

    def record_adjustments(self, pool: str, adjustments: Sequence[Adjustment], position: int) -> None:
        epoch = self._epoch(pool, None, bump=False)
        self._append(f"pool:{pool}", [self._adjusted(epoch, position, a) for a in adjustments])
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO ratings.current AS c (pool, player_id, mu, sigma, ordinal, games_played, last_game_id)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (pool, player_id) DO UPDATE SET"
                " mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, ordinal = EXCLUDED.ordinal,"
                " games_played = EXCLUDED.games_played, last_game_id = EXCLUDED.last_game_id, updated_at = now()",
                [
                    (pool, a.player_id, a.mu_after, a.sigma_after, ordinal(a.mu_after, a.sigma_after),
                     a.games_after, a.game_id)
                    for a in adjustments
                ],
            )
            cur.executemany(
                "INSERT INTO ratings.history (pool, player_id, seq, game_id, side, rank, mu_before, sigma_before,"
                " mu_after, sigma_after, finished_position) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (pool, a.player_id, a.games_after, a.game_id, a.side, a.rank, a.mu_before, a.sigma_before,
                     a.mu_after, a.sigma_after, position)
                    for a in adjustments
                ],
            )

    def replace_pool(
        self,
        pool: str,
        adjustments: Sequence[tuple[int, Adjustment]],
        games: int,
        reason: str,
        cause: str | None,
    ) -> int:
        epoch = self._epoch(pool, games, bump=True)
        marker = NewEvent(
            "PoolRecomputed",
            {"pool": pool, "epoch": epoch, "reason": reason, "cause_game_id": cause, "games": games,
             "adjustments": len(adjustments)},
            {"correlation_id": cause or f"pool:{pool}"},
        )
        self._append(f"pool:{pool}", [marker, *(self._adjusted(epoch, pos, a) for pos, a in adjustments)])
        self.conn.execute("DELETE FROM ratings.current WHERE pool = %s", (pool,))
        self.conn.execute("DELETE FROM ratings.history WHERE pool = %s", (pool,))
        latest: dict[str, Adjustment] = {}
        with self.conn.cursor() as cur:
            with cur.copy(
                "COPY ratings.history (pool, player_id, seq, game_id, side, rank, mu_before, sigma_before,"
                " mu_after, sigma_after, finished_position) FROM STDIN"
            ) as copy:
                for position, a in adjustments:
                    latest[a.player_id] = a
                    copy.write_row((pool, a.player_id, a.games_after, a.game_id, a.side, a.rank, a.mu_before,
                                    a.sigma_before, a.mu_after, a.sigma_after, position))
            with cur.copy(
                "COPY ratings.current (pool, player_id, mu, sigma, ordinal, games_played, last_game_id)"
                " FROM STDIN"
            ) as copy:
                for a in latest.values():
                    copy.write_row((pool, a.player_id, a.mu_after, a.sigma_after,
                                    ordinal(a.mu_after, a.sigma_after), a.games_after, a.game_id))
        return epoch

    def save_name(self, player_id: str, display_name: str, name_version: int) -> bool:
        return save_name(self.conn, SCHEMA, player_id, display_name, name_version)

    # -- reading -----------------------------------------------------------------------
    def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        return names_of(self.conn, SCHEMA, player_ids)

    def save_bot_level(self, player_id: str, level: str) -> None:
        self.conn.execute(
            "UPDATE ratings.player_names SET bot_level = %s WHERE player_id = %s", (level, player_id)
        )

    def bot_levels(self, player_ids: Sequence[str]) -> dict[str, str]:
        ids = sorted({p for p in player_ids if p})
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT player_id, bot_level FROM ratings.player_names WHERE player_id = ANY(%s) AND bot_level IS NOT NULL",
            (ids,),
        ).fetchall()
        return {r[0]: r[1] for r in rows}

    def finished_count(self) -> int:
        row = self.conn.execute("SELECT count(*) FROM ratings.events WHERE type = 'GameFinishedReceived'").fetchone()
        return int(row[0]) if row else 0

    def finished_log(self) -> Iterator[tuple[int, Mapping[str, Any]]]:
        with self.conn.cursor(name="ratings_finished_log") as cur:
            cur.itersize = 2000
            cur.execute(
                "SELECT position, payload FROM ratings.events WHERE type = 'GameFinishedReceived'"
                " ORDER BY position"
            )
            for position, payload in cur:
                body = payload.get("body") if isinstance(payload, dict) else None
                yield int(position), body if isinstance(body, dict) else {}

    def voided_games(self) -> set[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT payload->'body'->>'game_id' FROM ratings.events WHERE type = 'GameVoidedReceived'"
        ).fetchall()
        return {r[0] for r in rows if r[0] is not None}

    def stored_pools(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT pool FROM ratings.pools ORDER BY pool").fetchall()]

    def pool_state(self, pool: str) -> tuple[dict[str, Rating], list[HistoryRow]]:
        current = {
            r[0]: Rating(float(r[1]), float(r[2]), int(r[3]))
            for r in self.conn.execute(
                "SELECT player_id, mu, sigma, games_played FROM ratings.current WHERE pool = %s", (pool,)
            ).fetchall()
        }
        history = [
            HistoryRow(r[0], int(r[1]), r[2], int(r[3]), int(r[4]), float(r[5]), float(r[6]), float(r[7]),
                       float(r[8]), int(r[9]))
            for r in self.conn.execute(
                "SELECT player_id, seq, game_id, side, rank, mu_before, sigma_before, mu_after, sigma_after,"
                " finished_position FROM ratings.history WHERE pool = %s",
                (pool,),
            ).fetchall()
        ]
        history.sort(key=lambda h: (h.player_id, h.seq))
        return current, history

    def pool_summaries(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT p.pool, p.games, (SELECT count(*) FROM ratings.current c WHERE c.pool = p.pool)"
            " FROM ratings.pools p"
        ).fetchall()
        return {r[0]: {"games": int(r[1]), "players": int(r[2])} for r in rows}

    def leaderboard(
        self,
        pool: str,
        limit: int,
        offset: int,
        include_provisional: bool,
        provisional_sigma: float,
        include_bots: bool = True,
    ) -> tuple[list[dict[str, Any]], int]:
        where = "pool = %s" + ("" if include_provisional else " AND sigma <= %s")
        args: list[Any] = [pool] if include_provisional else [pool, provisional_sigma]
        if not include_bots:
            where += " AND player_id NOT IN (SELECT player_id FROM ratings.player_names WHERE bot_level IS NOT NULL)"
        total = self.conn.execute(f"SELECT count(*) FROM ratings.current WHERE {where}", args).fetchone()
        rows = self.conn.execute(
            "SELECT player_id, mu, sigma, games_played, last_game_id FROM ratings.current"
            f" WHERE {where} ORDER BY ordinal DESC, player_id LIMIT %s OFFSET %s",
            [*args, limit, offset],
        ).fetchall()
        keys = ("player_id", "mu", "sigma", "games_played", "last_game_id")
        return [dict(zip(keys, r, strict=True)) for r in rows], int(total[0]) if total else 0

    def player_ratings(self, player_id: str) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT pool, mu, sigma, games_played, last_game_id FROM ratings.current WHERE player_id = %s"
            " ORDER BY pool",
            (player_id,),
        ).fetchall()
        keys = ("pool", "mu", "sigma", "games_played", "last_game_id")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def player_history(self, player_id: str, pool: str | None = None) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT h.pool, h.seq, h.game_id, h.side, h.rank, h.mu_before, h.sigma_before, h.mu_after,"
            " h.sigma_after, h.recorded_at, coalesce(g.finished_at, g.received_at, h.recorded_at)"
            " FROM ratings.history h LEFT JOIN ratings.games g ON g.game_id = h.game_id"
            " WHERE h.player_id = %s AND (%s::text IS NULL OR h.pool = %s) ORDER BY h.pool, h.seq",
            (player_id, pool, pool),
        ).fetchall()
        keys = ("pool", "seq", "game_id", "side", "rank", "mu_before", "sigma_before", "mu_after",
                "sigma_after", "recorded_at", "finished_at")
        out = [dict(zip(keys, r, strict=True)) for r in rows]
        for item in out:
            item["recorded_at"] = item["recorded_at"].isoformat()
            item["finished_at"] = item["finished_at"].isoformat()
        return out


class PostgresUnitOfWork(UnitOfWork):
    """``with uow.begin() as repo:`` one transaction; ``uow.read()`` plain reads."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    @contextmanager
    def begin(self) -> Iterator[RatingsRepository]:
        with self.pool.connection() as conn, conn.transaction():
            yield PostgresRatingsRepository(conn)

    @contextmanager
    def read(self) -> Iterator[RatingsRepository]:
        with self.pool.connection() as conn:
            yield PostgresRatingsRepository(conn)
