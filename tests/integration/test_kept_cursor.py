"""Issue 19: the pools' connections keep one cursor per hot statement (``shared.db.kept_cursor``: the
event store's INSERT, the games service's ``commit_move``), so a statement does not build its
adapters again each time. What must not change with it: every append returns its own events'
positions, a conflict leaves the connection fit for the next append, and the outbox's one-sync path
reads the right rows back."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from shared.db import Connection, kept_cursor, make_pool
from shared.eventstore.chain import verify_chain
from shared.eventstore.model import ConcurrencyConflict, NewEvent, OutboxMessage
from shared.eventstore.postgres import PostgresEventStore

pytestmark = pytest.mark.integration


@pytest.fixture
def pool(database_url: str):  # type: ignore[no-untyped-def]
    pool = make_pool(database_url, min_size=1, max_size=1)  # every call on the same connection
    yield pool
    pool.close()


def test_appends_on_one_connection_reuse_its_cursor_and_return_their_own_rows(pool: Any) -> None:
    store = PostgresEventStore(pool, "games")
    a, b = f"kept-a-{uuid.uuid4()}", f"kept-b-{uuid.uuid4()}"
    heads: dict[str, str | None] = {a: None, b: None}
    returned = []
    for version in range(3):  # the two streams interleaved on the one connection
        for stream in (a, b):
            stored = store.append(stream, version, [NewEvent("Added", {"n": version, "s": stream})], prev_hash=heads[stream])
            heads[stream] = stored[-1].hash
            returned += stored
    with pool.connection() as conn:
        assert isinstance(conn, Connection)
        assert len(conn.kept) == 1, "one INSERT text, one kept cursor"
        cursor = next(iter(conn.kept.values()))
    store.append(a, 3, [NewEvent("Added", {"n": 3, "s": a})], prev_hash=heads[a])
    with pool.connection() as conn:
        assert list(conn.kept.values()) == [cursor]
    read = {e.position: e for e in store.read_stream(a) + store.read_stream(b)}
    for event in returned:  # what each append returned is what was stored for it
        assert read[event.position] == event
    assert [e.payload["n"] for e in store.read_stream(b)] == [0, 1, 2]
    for stream in (a, b):
        assert verify_chain([e.as_dict() for e in store.read_stream(stream)]).ok


def test_a_conflict_on_the_kept_cursor_leaves_the_next_append_whole(pool: Any) -> None:
    store = PostgresEventStore(pool, "games")
    stream = f"kept-conflict-{uuid.uuid4()}"
    first = store.append(stream, 0, [NewEvent("Added", {"n": 0})])[-1]
    second = store.append(stream, 1, [NewEvent("Added", {"n": 1})], prev_hash=first.hash)[-1]
    for outbox in ((), (OutboxMessage("q", "job", {"n": 1}),)):  # the autocommit and the one-sync paths
        with pytest.raises(ConcurrencyConflict):  # version 2 is taken: the unique key, on the kept cursor
            store.append(stream, 1, [NewEvent("Added", {"late": True})], outbox, prev_hash=first.hash)
    third = store.append(
        stream, 2, [NewEvent("Added", {"n": 2}), NewEvent("Added", {"n": 3})],
        (OutboxMessage("q", "job", {"n": 3}),), prev_hash=second.hash,
    )
    assert [(e.version, e.payload) for e in third] == [(3, {"n": 2}), (4, {"n": 3})]
    stored = store.read_stream(stream)
    assert [e.payload for e in stored] == [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}]
    assert [e.position for e in stored[2:]] == [e.position for e in third]
    assert verify_chain([e.as_dict() for e in stored]).ok


def test_every_failed_append_gives_its_connection_back_to_the_pool(pool: Any) -> None:
    """The pool-bound append takes its connection with getconn and returns it with putconn (issue 19:
    the pool's context managers cost client CPU). With one connection in the pool, an append that
    kept it after a failure would leave the next append waiting for a connection until PoolTimeout."""
    store = PostgresEventStore(pool, "games")
    stream = f"kept-return-{uuid.uuid4()}"
    first = store.append(stream, 0, [NewEvent("Added", {"n": 0})])[-1]
    failures = [
        lambda: store.append(stream, 5, [NewEvent("Added", {"n": 6})]),  # the head read: at 1, not 5
        lambda: store.append(stream, 0, [NewEvent("Added", {"n": 1})], prev_hash=first.hash),  # unique key
        lambda: store.append(stream, 1, [NewEvent("Added", {"n": float("nan")})], prev_hash=first.hash),
        lambda: store.append(stream, 1, [NewEvent("Added", {"n": 2**70})], (OutboxMessage("q", "job", {}),),
                             prev_hash=first.hash),
    ]
    for fail in failures:
        with pytest.raises((ConcurrencyConflict, ValueError)):
            fail()
        assert pool.get_stats()["pool_available"] == 1
    second = store.append(stream, 1, [NewEvent("Added", {"n": 1})], prev_hash=first.hash)[-1]
    assert [e.payload for e in store.read_stream(stream)] == [{"n": 0}, {"n": 1}]
    with pool.connection() as conn:  # back idle, outside any transaction and not in autocommit
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE and not conn.autocommit
    assert second.version == 2


def test_a_connection_of_another_class_gets_a_cursor_of_its_own_each_time(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        assert kept_cursor(conn, "SELECT 1") is not kept_cursor(conn, "SELECT 1")
