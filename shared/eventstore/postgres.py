"""PostgreSQL event store (psycopg 3, no ORM).

The gap problem: positions come from a sequence, so a later position can commit before an earlier
one, and a subscriber that resumed from "the last position I saw" would skip the late one. Taking a
table lock until commit would fix that by serialising every commit (one fsync each, about 150
appends/s here). Instead each row records its transaction id (``pg_current_xact_id()``) and
subscribers read in ``(tx_id, position)`` order, only rows of transactions older than the oldest
transaction still running (``pg_snapshot_xmin``): every row that can still appear sorts after
every row already returned, so nothing is skipped and appends commit concurrently.
Events and outbox rows are written in one transaction (no dual write).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from shared.canonical import GENESIS_HASH
from shared.db import Borrowed, kept_cursor, one_round_trip
from shared.eventstore.model import (
    START,
    ConcurrencyConflict,
    Cursor,
    EventStore,
    NewEvent,
    OutboxMessage,
    PayloadRow,
    Snapshot,
    StoredEvent,
    as_cursor,
)
from shared.eventstore.sealing import Sealed, seal_encoded

_COLUMNS = "position, stream_id, version, type, payload, metadata, prev_hash, hash, tx_id::text"


def _as_is(encoded: bytes) -> bytes:
    """psycopg's ``dumps`` for a value already encoded (``Sealed``'s canonical bytes)."""
    return encoded


def encoded_jsonb(encoded: bytes) -> Jsonb:
    """A ``jsonb`` parameter sent as these bytes (JSON already encoded: no second encoding)."""
    return Jsonb(encoded, dumps=_as_is)


@functools.lru_cache(maxsize=256)
def _query(schema: str, text: str) -> str:
    """``text`` with ``{s}`` the quoted schema, composed once per text (a ``sql.Composed`` is turned
    into bytes again on every execute: a few percent of an append's client CPU, issue 19)."""
    return sql.SQL(text).format(s=sql.Identifier(schema)).as_string(None)


def _row_to_event(row: tuple[Any, ...]) -> StoredEvent:
    return StoredEvent(int(row[0]), row[1], int(row[2]), row[3], row[4], row[5], row[6], row[7], int(row[8]))


class PostgresEventStore(EventStore):
    """Bound either to a pool (each call its own transaction) or to one open connection (a unit of work)."""

    def __init__(self, source: ConnectionPool | psycopg.Connection[Any], schema: str) -> None:
        self._source = source
        self._schema_name = schema

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        if isinstance(self._source, ConnectionPool):
            with self._source.connection() as conn:
                yield conn
        else:
            yield self._source

    def _q(self, text: str) -> str:
        return _query(self._schema_name, text)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox: Sequence[OutboxMessage] = (),
        prev_hash: str | None = None,
    ) -> list[StoredEvent]:
        """``prev_hash``: the hash of event ``expected_version`` when the caller knows it (saves a
        query; the unique key on (stream_id, version) still catches every concurrent writer).
        Bound to a caller's connection, no savepoint is taken: a conflict aborts the caller's
        transaction, which it rolls back."""
        source = self._source
        try:
            if not isinstance(source, ConnectionPool):
                return self._append(source, stream_id, expected_version, events, outbox, prev_hash)()
            with Borrowed(source) as conn:  # every path below ends outside a transaction
                if prev_hash is None or expected_version == 0:  # the head must be read first
                    with conn.transaction():
                        return self._append(conn, stream_id, expected_version, events, outbox, prev_hash)()
                if not outbox:  # one INSERT statement is a transaction by itself: no BEGIN, no COMMIT
                    conn.autocommit = True
                    try:
                        return self._append(conn, stream_id, expected_version, events, outbox, prev_hash)()
                    finally:
                        conn.autocommit = False
                with one_round_trip(conn):  # BEGIN, the inserts and COMMIT in one sync
                    finish = self._append(conn, stream_id, expected_version, events, outbox, prev_hash)
                return finish()
        except psycopg.errors.UniqueViolation as exc:
            raise ConcurrencyConflict(stream_id, expected_version) from exc

    def seal(
        self,
        conn: psycopg.Connection[Any],
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        prev_hash: str | None,
    ) -> list[Sealed]:
        """``events`` sealed onto the stream's head at ``expected_version``: each with its metadata,
        chain hash and the canonical bytes of its payload and metadata (what is stored). The head is
        read first when ``prev_hash`` is not given (a conflict if it is not ``expected_version``)."""
        if prev_hash is None or expected_version == 0:
            head = conn.execute(
                self._q(
                    "SELECT version, hash FROM {s}.events WHERE stream_id = %s ORDER BY version DESC LIMIT 1"
                ),
                (stream_id,),
            ).fetchone()
            current, prev_hash = (int(head[0]), str(head[1])) if head else (0, GENESIS_HASH)
            if current != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, current)
        encoded: list[Sealed] = []
        prev = prev_hash
        for offset, event in enumerate(events):
            item = seal_encoded(0, stream_id, expected_version + offset + 1, event, prev)
            encoded.append(item)
            prev = item.event.hash
        return encoded

    def _append(
        self,
        conn: psycopg.Connection[Any],
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox: Sequence[OutboxMessage],
        prev_hash: str | None,
    ) -> Callable[[], list[StoredEvent]]:
        """Sends the inserts; the returned callable reads their positions back (in pipeline mode,
        after the sync) and gives the stored events."""
        encoded = self.seal(conn, stream_id, expected_version, events, prev_hash)
        sealed = [e.event for e in encoded]
        # one multi-row INSERT each (an executemany with RETURNING waits for its rows in pipeline mode)
        rows = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s)"] * len(encoded))
        query = self._q(
            "INSERT INTO {s}.events (stream_id, version, event_id, type, payload, metadata, prev_hash, hash)"
            " VALUES " + rows + " RETURNING version, position, tx_id::text"
        )
        cur = kept_cursor(conn, query)  # read in finish(), before this query runs again on conn
        cur.execute(
            query,
            [  # payload and metadata: the bytes the hash covers, encoded once (a jsonb keeps the same value)
                value
                for e in encoded
                for value in (
                    stream_id,
                    e.event.version,
                    e.event.metadata["event_id"],
                    e.event.type,
                    encoded_jsonb(e.payload_json),
                    encoded_jsonb(e.metadata_json),
                    e.event.prev_hash,
                    e.event.hash,
                )
            ],
        )
        if outbox:
            conn.execute(
                self._q(
                    "INSERT INTO {s}.outbox (queue, job, message) VALUES "
                    + ", ".join(["(%s, %s, %s)"] * len(outbox))
                ),
                [value for m in outbox for value in (m.queue, m.job, Jsonb(m.message))],
            )

        def finish() -> list[StoredEvent]:
            keys = {int(r[0]): (int(r[1]), int(r[2])) for r in cur.fetchall()}
            return [
                StoredEvent(
                    keys[i.version][0],
                    stream_id,
                    i.version,
                    i.type,
                    i.payload,
                    i.metadata,
                    i.prev_hash,
                    i.hash,
                    keys[i.version][1],
                )
                for i in sealed
            ]

        return finish

    def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        with self._conn() as conn:
            rows = conn.execute(
                self._q(
                    f"SELECT {_COLUMNS} FROM {{s}}.events WHERE stream_id = %s AND version > %s"
                    " ORDER BY version LIMIT %s"
                ),
                (stream_id, after_version, limit),
            ).fetchall()
        return [_row_to_event(r) for r in rows]

    def read_payloads(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[PayloadRow]:
        """(version, type, payload, hash, recorded_at) of a stream's events after ``after_version``: what
        a fold needs, without decoding each event's metadata (most of a rebuild's decoding time)."""
        with self._conn() as conn:
            rows = conn.execute(
                self._q(
                    "SELECT version, type, payload, hash, metadata->>'recorded_at' FROM {s}.events"
                    " WHERE stream_id = %s AND version > %s ORDER BY version LIMIT %s"
                ),
                (stream_id, after_version, limit),
            ).fetchall()
        return [(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]

    def read_all(self, after: Cursor | int = START, limit: int = 1000) -> list[StoredEvent]:
        tx_id, position = as_cursor(after)
        with self._conn() as conn:
            rows = conn.execute(
                self._q(
                    f"SELECT {_COLUMNS} FROM {{s}}.events"
                    " WHERE (tx_id, position) > (%s::text::xid8, %s)"
                    " AND tx_id < pg_snapshot_xmin(pg_current_snapshot())"
                    " ORDER BY tx_id, position LIMIT %s"
                ),
                (str(tx_id), position, limit),
            ).fetchall()
        return [_row_to_event(r) for r in rows]

    def stream_version(self, stream_id: str) -> int:
        with self._conn() as conn:
            row = conn.execute(
                self._q("SELECT coalesce(max(version), 0) FROM {s}.events WHERE stream_id = %s"), (stream_id,)
            ).fetchone()
        return int(row[0]) if row else 0

    def save_snapshot(self, snapshot: Snapshot) -> None:
        with self._conn() as conn:
            conn.execute(
                self._q(
                    "INSERT INTO {s}.snapshots (stream_id, kind, version, data) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT DO NOTHING"
                ),
                (snapshot.stream_id, snapshot.kind, snapshot.version, snapshot.data),
            )

    def latest_snapshot(self, stream_id: str, kind: str, max_version: int | None = None) -> Snapshot | None:
        with self._conn() as conn:
            row = conn.execute(
                self._q(
                    "SELECT version, data FROM {s}.snapshots WHERE stream_id = %s AND kind = %s"
                    " AND version <= %s ORDER BY version DESC LIMIT 1"
                ),
                (stream_id, kind, max_version if max_version is not None else 2**31 - 1),
            ).fetchone()
        return Snapshot(stream_id, int(row[0]), kind, bytes(row[1])) if row else None
