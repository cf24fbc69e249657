"""PostgreSQL adapter of the matchmaking service: one unit of work per use case."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from shared.eventstore.model import NewEvent, OutboxMessage, StoredEvent
from shared.eventstore.postgres import PostgresEventStore
from shared.outbox import consume_once
from shared.player_names import names_of, save_name

SCHEMA = "matchmaking"
_MATCH_LOCK = 7_415_925_101  # one matching run at a time

TICKET_COLUMNS = (
    "id, player_id, game_type, options, player_counts, mode, pool, mu, sigma, rating_source, status,"
    " table_id, seat, team, game_id, created_at, updated_at, allow_bots, bot_level, clock, timeout_policy"
)
TABLE_COLUMNS = (
    "request_id, kind, game_type, options, size, seats, teams, reason, invite_code, league_id, created_by,"
    " status, game_id, created_at, updated_at, failure, clock, timeout_policy"
)


def _ticket(row: tuple[Any, ...]) -> dict[str, Any]:
    keys = [k.strip() for k in TICKET_COLUMNS.split(",")]
    out = dict(zip(keys, row, strict=True))
    for k in ("id", "player_id", "game_id"):
        out[k] = str(out[k]) if out[k] is not None else None
    return out


def _table(row: tuple[Any, ...]) -> dict[str, Any]:
    keys = [k.strip() for k in TABLE_COLUMNS.split(",")]
    out = dict(zip(keys, row, strict=True))
    for k in ("league_id", "game_id"):
        out[k] = str(out[k]) if out[k] is not None else None
    return out


class MatchmakingRepository:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.events = PostgresEventStore(conn, SCHEMA)
        self.changed_tickets: set[str] = set()  # announced after the commit (UnitOfWork.begin)

    def now(self) -> datetime:
        row = self.conn.execute("SELECT now()").fetchone()
        assert row is not None
        value: datetime = row[0]
        return value

    # -- tickets -----------------------------------------------------------------------
    def insert_ticket(self, t: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO matchmaking.tickets (id, player_id, game_type, options, player_counts, mode, pool, mu,"
            " sigma, rating_source, status, table_id, seat, allow_bots, bot_level, clock, timeout_policy) VALUES"
            " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (t["id"], t["player_id"], t["game_type"], Jsonb(t["options"]), Jsonb(t["player_counts"]), t["mode"],
             t["pool"], t["mu"], t["sigma"], t["rating_source"], t["status"], t.get("table_id"), t.get("seat"),
             bool(t.get("allow_bots")), t.get("bot_level") or "rules",
             Jsonb(t["clock"]) if t.get("clock") is not None else None, t.get("timeout_policy")),
        )

    def ticket(self, ticket_id: str, lock: bool = False) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM matchmaking.tickets WHERE id = %s" + (" FOR UPDATE" if lock else ""),
            (ticket_id,),
        ).fetchone()
        return _ticket(row) if row else None

    def active_ticket_of(self, player_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM matchmaking.tickets WHERE player_id = %s"
            " AND status IN ('waiting', 'matched')",
            (player_id,),
        ).fetchone()
        return _ticket(row) if row else None

    def lock_matching(self) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MATCH_LOCK,))

    def waiting_tickets(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM matchmaking.tickets WHERE status = 'waiting' AND table_id IS NULL"
            " ORDER BY created_at, id"
        ).fetchall()
        return [_ticket(r) for r in rows]

    def update_ticket(self, ticket_id: str, **fields: Any) -> None:
        self.changed_tickets.add(ticket_id)
        sets = ", ".join(f"{k} = %s" for k in fields)
        self.conn.execute(
            f"UPDATE matchmaking.tickets SET {sets}, updated_at = now() WHERE id = %s",
            (*fields.values(), ticket_id),
        )

    def tickets_at_table(self, request_id: str) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM matchmaking.tickets WHERE table_id = %s ORDER BY seat, created_at",
            (request_id,),
        ).fetchall()
        return [_ticket(r) for r in rows]

    def set_table_tickets(self, request_id: str, status: str, game_id: str | None = None) -> list[str]:
        rows = self.conn.execute(
            "UPDATE matchmaking.tickets SET status = %s, game_id = coalesce(%s, game_id), updated_at = now()"
            " WHERE table_id = %s AND status NOT IN ('cancelled') RETURNING id",
            (status, game_id, request_id),
        ).fetchall()
        changed = [str(r[0]) for r in rows]
        self.changed_tickets.update(changed)
        return changed

    # -- tables ------------------------------------------------------------------------
    def insert_table(self, t: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO matchmaking.tables (request_id, kind, game_type, options, size, seats, teams, reason,"
            " invite_code, league_id, created_by, status, clock, timeout_policy) VALUES (%s, %s, %s, %s, %s, %s,"
            " %s, %s, %s, %s, %s, %s, %s, %s)",
            (t["request_id"], t["kind"], t["game_type"], Jsonb(t["options"]), t["size"], Jsonb(t["seats"]),
             Jsonb(t["teams"]) if t.get("teams") is not None else None, t.get("reason", ""), t.get("invite_code"),
             t.get("league_id"), t.get("created_by"), t["status"],
             Jsonb(t["clock"]) if t.get("clock") is not None else None, t.get("timeout_policy")),
        )

    def table(self, request_id: str, lock: bool = False) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {TABLE_COLUMNS} FROM matchmaking.tables WHERE request_id = %s" + (" FOR UPDATE" if lock else ""),
            (request_id,),
        ).fetchone()
        return _table(row) if row else None

    def table_by_code(self, code: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {TABLE_COLUMNS} FROM matchmaking.tables WHERE invite_code = %s FOR UPDATE", (code,)
        ).fetchone()
        return _table(row) if row else None

    def table_by_game(self, game_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {TABLE_COLUMNS} FROM matchmaking.tables WHERE game_id = %s FOR UPDATE", (game_id,)
        ).fetchone()
        return _table(row) if row else None

    def update_table(self, request_id: str, **fields: Any) -> None:
        values = [Jsonb(v) if isinstance(v, list | dict) else v for v in fields.values()]
        sets = ", ".join(f"{k} = %s" for k in fields)
        self.conn.execute(
            f"UPDATE matchmaking.tables SET {sets}, updated_at = now() WHERE request_id = %s",
            (*values, request_id),
        )

    # -- leagues -----------------------------------------------------------------------
    def insert_league(self, league_id: str, name: str, game_type: str, rounds: int) -> None:
        self.conn.execute(
            "INSERT INTO matchmaking.leagues (id, name, game_type, status, rounds) VALUES (%s, %s, %s, 'running', %s)",
            (league_id, name, game_type, rounds),
        )

    def lock_league(self, league_id: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM matchmaking.leagues WHERE id = %s FOR UPDATE", (league_id,)
        ).fetchone()
        return row is not None

    def update_league(self, league_id: str, status: str, seated: int) -> None:
        self.conn.execute(
            "UPDATE matchmaking.leagues SET status = %s, seated = %s, updated_at = now() WHERE id = %s",
            (status, seated, league_id),
        )

    def list_leagues(self, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        total = self.conn.execute("SELECT count(*) FROM matchmaking.leagues").fetchone()
        rows = self.conn.execute(
            "SELECT id, name, game_type, status, rounds, seated, created_at FROM matchmaking.leagues"
            " ORDER BY created_at DESC, id LIMIT %s OFFSET %s",
            (limit, offset),
        ).fetchall()
        keys = ("id", "name", "game_type", "status", "rounds", "seated_rounds", "created_at")
        items = [dict(zip(keys, r, strict=True)) for r in rows]
        for item in items:
            item["id"] = str(item["id"])
            item["created_at"] = item["created_at"].isoformat()
        return items, int(total[0]) if total else 0

    def display_names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """Names kept from PlayerRegistered / PlayerRenamed (matchmaking.player_names)."""
        return names_of(self.conn, SCHEMA, player_ids)

    def save_name(self, player_id: str, display_name: str, name_version: int) -> bool:
        return save_name(self.conn, SCHEMA, player_id, display_name, name_version)

    def existing_players(self, player_ids: Sequence[str]) -> set[str]:
        """Registered players among ``player_ids`` (the identity check every service makes for tokens)."""
        rows = self.conn.execute(
            "SELECT id::text FROM identity.players WHERE id::text = ANY(%s)", (list(player_ids),)
        ).fetchall()
        return {r[0] for r in rows}

    # -- events and messages -----------------------------------------------------------
    def append(
        self, stream_id: str, expected_version: int, events: Sequence[NewEvent], outbox: Sequence[OutboxMessage] = ()
    ) -> list[StoredEvent]:
        return self.events.append(stream_id, expected_version, events, outbox)

    def read_stream(self, stream_id: str) -> list[StoredEvent]:
        return self.events.read_stream(stream_id)

    def first_time(self, consumer: str, message_id: str) -> bool:
        with consume_once(self.conn, SCHEMA, consumer, message_id) as new:
            return new


class UnitOfWork:
    """``with uow.begin() as repo:`` one transaction; commits on success, rolls back on error.

    After a commit, ``announce`` gets the ids of the tickets the transaction changed (live streams)."""

    def __init__(self, pool: ConnectionPool, announce: Callable[[Iterable[str]], None] | None = None) -> None:
        self.pool = pool
        self.announce = announce

    @contextmanager
    def begin(self) -> Iterator[MatchmakingRepository]:
        with self.pool.connection() as conn, conn.transaction():
            repo = MatchmakingRepository(conn)
            yield repo
        if repo.changed_tickets and self.announce is not None:  # committed (an error skips this)
            self.announce(sorted(repo.changed_tickets))

    @contextmanager
    def read(self) -> Iterator[MatchmakingRepository]:
        with self.pool.connection() as conn:
            yield MatchmakingRepository(conn)
