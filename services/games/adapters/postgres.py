"""PostgreSQL adapter of the games service: one unit of work per command."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from shared.db import Borrowed, kept_cursor
from shared.eventstore.model import NewEvent, OutboxMessage, Snapshot, StoredEvent
from shared.eventstore.postgres import PostgresEventStore, encoded_jsonb
from shared.eventstore.sealing import Sealed

SCHEMA = "games"
_SEEDS: dict[str, bytes] = {}  # secret seeds never change: kept in this process to save a query per move
_BOT_LEVELS: dict[str, str | None] = {}  # player id -> bot level (None: a person), see bot_levels


class IdempotencyKeyBusy(Exception):
    """Another request with the same Idempotency-Key is still running and did not finish in time."""


@dataclass
class StagedMove:
    """Every write of a move, gathered by a staged ``GamesRepository`` (``UnitOfWork.one_statement``)
    and sent as one statement, ``games.commit_move`` (migration 0004), when the unit of work ends."""

    game_id: str | None = None
    events: list[Sealed] = field(default_factory=list)
    outbox: list[OutboxMessage] = field(default_factory=list)
    row: tuple[Any, ...] | None = None  # the read model's row: update_game's parameters, as sent
    player_id: str | None = None
    token_hash: str | None = None
    key: str | None = None
    key_wait: str | None = None
    answer: tuple[str, int, dict[str, Any]] | None = None  # (request hash, status, body) under the key
    # after the statement: the answer an earlier request with the key stored (then nothing was written)
    replayed: tuple[str, str, int, dict[str, Any]] | None = None


_COMMIT_MOVE = (
    "SELECT * FROM games.commit_move(%s, %s::jsonb, %s::jsonb, %s::jsonb, %s, %s::int, %s, %s::jsonb, %s::jsonb,"
    " %s::timestamptz, %s, %s, %s, %s, %s, %s::int, %s::jsonb)"
)


def _events_json(sealed: Sequence[Sealed]) -> bytes:
    """The JSON array games.commit_move reads the events from; payload and metadata are spliced in as
    the canonical bytes the hash covers (encoded once)."""
    items = []
    for item in sealed:
        e = item.event
        head = orjson.dumps(
            {"version": e.version, "event_id": e.metadata["event_id"], "type": e.type, "prev_hash": e.prev_hash,
             "hash": e.hash}
        )
        items.append(head[:-1] + b',"payload":' + item.payload_json + b',"metadata":' + item.metadata_json + b"}")
    return b"[" + b",".join(items) + b"]"


class GamesRepository:
    """Reads and writes of the games schema on one connection.

    ``staged``: the writes of a move (the token check, the Idempotency-Key, events, outbox, read model,
    the key's answer) are gathered there instead of sent, and go out as one statement when the unit of
    work ends (``UnitOfWork.one_statement``); reads are sent at once."""

    def __init__(self, conn: psycopg.Connection[Any], staged: StagedMove | None = None) -> None:
        self.conn = conn
        self.staged = staged
        self.events = PostgresEventStore(conn, SCHEMA)

    # -- read model --------------------------------------------------------------------
    def insert_game(self, row: dict[str, Any], server_seed: bytes) -> None:
        self.conn.execute(
            "INSERT INTO games.games (id, game_type, options, num_players, seats, status, version, head_hash,"
            " to_move) VALUES (%s, %s, %s, %s, %s, %s, 0, '', '[]')",
            (
                row["id"],
                row["game_type"],
                Jsonb(row["options"]),
                row["num_players"],
                Jsonb(row["seats"]),
                row["status"],
            ),
        )
        self.conn.execute(
            "INSERT INTO games.game_secrets (game_id, server_seed) VALUES (%s, %s)", (row["id"], server_seed)
        )

    def update_game(
        self,
        game_id: str,
        seats: list[str | None],
        status: str,
        version: int,
        head_hash: str,
        to_move: list[int],
        outcome: dict[str, Any] | None,
        clock_deadline: datetime | None = None,
    ) -> None:
        """The game's row after a commit; ``clock_deadline`` is the earliest deadline of its clock (none
        without a running clock), what the ticker looks for."""
        params = (
            Jsonb(seats),
            status,
            version,
            head_hash,
            Jsonb(to_move),
            Jsonb(outcome) if outcome is not None else None,
            clock_deadline,
        )
        if self.staged is not None:
            self.staged.row = params
            return
        self.conn.execute(
            "UPDATE games.games SET seats = %s, status = %s, version = %s, head_hash = %s, to_move = %s,"
            " outcome = %s, clock_deadline = %s, updated_at = now() WHERE id = %s",
            (*params, game_id),
        )

    def game_row(self, game_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT id, game_type, options, num_players, seats, status, version, head_hash, to_move, outcome,"
            " created_at, updated_at, clock_deadline FROM games.games WHERE id = %s",
            (game_id,),
        ).fetchone()
        return _game_dict(row) if row else None

    def list_games(
        self, player: str | None, status: str | None, game_type: str | None, limit: int, offset: int
    ) -> tuple[list[dict[str, Any]], int]:
        where: list[str] = []
        args: list[Any] = []
        if player:
            where.append("seats @> %s")
            args.append(Jsonb([player]))
        if status:
            where.append("status = %s")
            args.append(status)
        if game_type:
            where.append("game_type = %s")
            args.append(game_type)
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        total_row = self.conn.execute(f"SELECT count(*) FROM games.games{clause}", args).fetchone()
        rows = self.conn.execute(
            "SELECT id, game_type, options, num_players, seats, status, version, head_hash, to_move, outcome,"
            f" created_at, updated_at, clock_deadline FROM games.games{clause}"
            " ORDER BY created_at DESC, id LIMIT %s OFFSET %s",
            [*args, limit, offset],
        ).fetchall()
        return [_game_dict(r) for r in rows], int(total_row[0]) if total_row else 0

    def server_seed(self, game_id: str) -> bytes:
        cached = _SEEDS.get(game_id)
        if cached is not None:
            return cached
        row = self.conn.execute(
            "SELECT server_seed FROM games.game_secrets WHERE game_id = %s", (game_id,)
        ).fetchone()
        if row is None:
            raise LookupError(game_id)
        seed = bytes(row[0])
        if len(_SEEDS) > 10_000:
            _SEEDS.clear()
        _SEEDS[game_id] = seed
        return seed

    # -- tokens ------------------------------------------------------------------------
    def require_token(self, token_hash: str, player_id: str) -> None:
        """Aborts the transaction (SQLSTATE 28000, ``InvalidAuthorizationSpecification``) unless the
        token is live and the player's; staged like any write (checked first by the one statement)."""
        if self.staged is not None:
            self.staged.player_id, self.staged.token_hash = player_id, token_hash
            return
        self.conn.execute("SELECT identity.require_token(%s, %s)", (token_hash, player_id))

    def token_live(self, token_hash: str, player_id: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM identity.tokens WHERE token_hash = %s AND player_id = %s AND revoked_at IS NULL",
            (token_hash, player_id),
        ).fetchone()
        return row is not None

    # -- idempotency -------------------------------------------------------------------
    def stage_idempotency_key(self, player_id: str, key: str, wait_seconds: float) -> None:
        """The staged move takes ``lock_idempotency_key``'s lock first (waiting at most ``wait_seconds``,
        then LockNotAvailable; migration 0005) and then inserts the key's answer first in the same
        statement, ON CONFLICT DO NOTHING: an answer already stored is returned
        (``StagedMove.replayed``) and nothing is written."""
        assert self.staged is not None, "only a staged unit of work (UnitOfWork.one_statement)"
        self.staged.player_id, self.staged.key = player_id, key
        self.staged.key_wait = f"{max(1, int(wait_seconds * 1000))}ms"

    def lock_idempotency_key(self, player_id: str, key: str, wait_seconds: float) -> None:
        """Serialise requests with one (player, key) until this transaction ends: a second one waits here
        for the first to commit (then reads its answer) or roll back (then does the work itself).

        An advisory lock on a 64-bit hash of the pair: a collision only makes two requests wait in turn.
        Raises ``IdempotencyKeyBusy`` after ``wait_seconds``. A move takes this lock inside its one
        statement (games.commit_move, migration 0005, which names this method as the lock's definition);
        this method takes it from a connection of its own, as the tests' stand-in for a request in flight."""
        previous = self.conn.execute(
            "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
            (f"{max(1, int(wait_seconds * 1000))}ms",),
        ).fetchone()
        try:
            self.conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"games.idempotency:{player_id}:{key}",)
            )
        except psycopg.errors.LockNotAvailable:
            raise IdempotencyKeyBusy(key) from None
        self.conn.execute("SELECT set_config('lock_timeout', %s, true)", (previous[0] if previous else "0",))

    def idempotent_answer(self, player_id: str, key: str) -> tuple[str, str, int, dict[str, Any]] | None:
        row = self.conn.execute(
            "SELECT game_id, request_hash, status, body FROM games.idempotency WHERE player_id = %s AND key = %s",
            (player_id, key),
        ).fetchone()
        return (str(row[0]), row[1], int(row[2]), row[3]) if row else None

    def save_idempotent_answer(self, request_hash: str, status: int, body: dict[str, Any]) -> None:
        """The answer under the key ``stage_idempotency_key`` staged (its player and key, this move's
        game), stored by games.commit_move in the move's one statement, never apart from it."""
        assert self.staged is not None and self.staged.key is not None, "stage_idempotency_key first"
        self.staged.answer = (request_hash, status, body)

    def forget_idempotent_answers(self, older_than_seconds: float) -> int:
        """Delete the stored answers of Idempotency-Keys older than ``older_than_seconds`` (by PostgreSQL's
        clock, which stamped them); returns how many. One statement: the ticker runs it every few
        minutes, so it deletes a few minutes' worth. No index on ``created_at``: a key costs no more
        per move (issue 19), and the table holds only the keys of the last ``older_than_seconds``."""
        cur = self.conn.execute(
            "DELETE FROM games.idempotency WHERE created_at < now() - make_interval(secs => %s)",
            (older_than_seconds,),
        )
        return cur.rowcount

    # -- players (identity is this service's schema) -----------------------------------
    def display_names(self, player_ids: Sequence[str | None]) -> dict[str, str]:
        ids = sorted({p for p in player_ids if p})
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT id::text, display_name FROM identity.players WHERE id::text = ANY(%s)", (ids,)
        ).fetchall()
        return {r[0]: r[1] for r in rows}

    def bot_levels(self, player_ids: Sequence[str | None]) -> dict[str, str]:
        """player id -> bot level of those that are bot accounts (an account never becomes or stops
        being a bot: kept in this process, to save a query per move)."""
        ids = {p for p in player_ids if p}
        missing = ids - _BOT_LEVELS.keys()
        if missing:
            found = self.seat_players(sorted(missing))
            if len(_BOT_LEVELS) > 50_000:
                _BOT_LEVELS.clear()
            for p in missing:
                _BOT_LEVELS[p] = found[p][1] if p in found else None
        return {p: level for p in ids if (level := _BOT_LEVELS.get(p)) is not None}

    def seat_players(self, player_ids: Sequence[str | None]) -> dict[str, tuple[str, str | None]]:
        """player id -> (display name, bot level or None) of those that are registered."""
        ids = sorted({p for p in player_ids if p})
        if not ids:
            return {}
        rows = self.conn.execute(
            "SELECT id::text, display_name, bot_level FROM identity.players WHERE id::text = ANY(%s)", (ids,)
        ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def creator(self, game_id: str) -> str | None:
        """Who created the table: the actor of its first event (a player id, or ``admin``)."""
        row = self.conn.execute(
            "SELECT metadata->>'actor' FROM games.events WHERE stream_id = %s AND version = 1", (game_id,)
        ).fetchone()
        return row[0] if row else None

    def games_played(self, player_id: str) -> dict[str, int]:
        """Finished games per game type in which the player had a seat."""
        rows = self.conn.execute(
            "SELECT game_type, count(*) FROM games.games WHERE seats @> %s AND status = 'finished'"
            " GROUP BY game_type ORDER BY game_type",
            (Jsonb([player_id]),),
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    # -- clocks ------------------------------------------------------------------------
    def due_clocks(self, now: datetime, limit: int) -> list[str]:
        """Running games whose earliest clock deadline is at or before ``now``, earliest first."""
        rows = self.conn.execute(
            "SELECT id::text FROM games.games WHERE clock_deadline <= %s AND status = 'running'"
            " ORDER BY clock_deadline LIMIT %s",
            (now, limit),
        ).fetchall()
        return [r[0] for r in rows]

    # -- events ------------------------------------------------------------------------
    def write_outbox(self, rows: Sequence[OutboxMessage]) -> None:
        """Messages with no event of their own (a refused queue request's reply)."""
        if self.staged is not None:
            self.staged.outbox += rows
            return
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO games.outbox (queue, job, message) VALUES (%s, %s, %s)",
                [(m.queue, m.job, Jsonb(m.message)) for m in rows],
            )

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox: Sequence[OutboxMessage] = (),
        prev_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Staged: the events sealed (hashed) now and sent with the other writes when the unit of work
        ends, so the returned events have position and tx_id 0 (a conflict is raised then, as
        ``UniqueViolation``)."""
        if self.staged is None:
            return self.events.append(game_id, expected_version, events, outbox, prev_hash)
        assert self.staged.game_id in (None, game_id) and not self.staged.events, "one append per move"
        sealed = self.events.seal(self.conn, game_id, expected_version, events, prev_hash)
        self.staged.game_id = game_id
        self.staged.events = sealed
        self.staged.outbox += outbox
        return [item.event for item in sealed]

    def send_staged(self) -> None:
        """The staged writes as one statement (``games.commit_move``); nothing to send if none."""
        move = self.staged
        if move is None or move.game_id is None:
            return
        assert move.row is not None, "a move updates its read model"
        answer = move.answer if move.key is not None else None
        row = kept_cursor(self.conn, _COMMIT_MOVE).execute(
            _COMMIT_MOVE,
            (
                move.game_id,
                encoded_jsonb(_events_json(move.events)),
                Jsonb([{"queue": m.queue, "job": m.job, "message": m.message} for m in move.outbox]),
                *move.row,
                move.player_id,
                move.token_hash,
                move.key,
                move.key_wait,
                answer[0] if answer else None,
                answer[1] if answer else None,
                Jsonb(answer[2]) if answer else None,
            ),
        ).fetchone()
        if row is not None:
            assert move.key is not None
            move.replayed = (move.game_id, row[0], int(row[1]), row[2])


def _game_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    keys = (
        "id",
        "game_type",
        "options",
        "num_players",
        "seats",
        "status",
        "version",
        "head_hash",
        "to_move",
        "outcome",
        "created_at",
        "updated_at",
        "clock_deadline",
    )
    out = dict(zip(keys, row, strict=True))
    out["id"] = str(out["id"])
    out["created_at"] = out["created_at"].isoformat()
    out["updated_at"] = out["updated_at"].isoformat()
    deadline = out["clock_deadline"]  # the earliest deadline of a running clock (services/games/domain/clock.py)
    out["clock_deadline"] = deadline.isoformat(timespec="microseconds") if deadline is not None else None
    return out


class UnitOfWork:
    """``with uow.begin() as repo:`` one transaction; it commits on success and rolls back on error."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self.store = PostgresEventStore(pool, SCHEMA)

    @contextmanager
    def begin(self) -> Iterator[GamesRepository]:
        with self.pool.connection() as conn, conn.transaction():
            yield GamesRepository(conn)

    @contextmanager
    def one_statement(self) -> Iterator[GamesRepository]:
        """A move's writes in one statement, one round trip: the block's writes are staged
        (``StagedMove``) and sent as ``games.commit_move`` when it ends, in autocommit, so the
        statement is its own transaction (no BEGIN, no COMMIT); a read inside the block (a table
        not cached) is sent at once, as its own statement. Errors of the writes (``UniqueViolation``
        from a concurrent writer, a dead token, a busy key) are raised when the block ends; nothing
        is written then. ``repo.staged.replayed`` afterwards: the answer an earlier request with the
        same Idempotency-Key had stored (nothing written)."""
        with Borrowed(self.pool) as conn:  # it ends idle, or closed
            conn.autocommit = True
            try:
                repo = GamesRepository(conn, StagedMove())
                yield repo
                repo.send_staged()
            finally:
                if not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                    conn.autocommit = False
                else:
                    conn.close()  # the pool replaces it

    @contextmanager
    def read(self) -> Iterator[GamesRepository]:
        with self.pool.connection() as conn:
            yield GamesRepository(conn)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        self.store.save_snapshot(snapshot)
