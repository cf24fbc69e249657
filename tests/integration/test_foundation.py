"""Foundation guarantees over real PostgreSQL and Redis (issue 2, "Done when")."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from redis import Redis
from rq import Queue, SimpleWorker

from shared.db import make_pool
from shared.eventstore.chain import verify_chain
from shared.eventstore.model import ConcurrencyConflict, NewEvent, OutboxMessage
from shared.eventstore.postgres import PostgresEventStore
from shared.outbox import consume_once, outbox_lag, relay_once
from tests.contract_eventstore import settled

pytestmark = pytest.mark.integration

RECORDER = "tests.support.jobs.record_message"


@pytest.fixture
def pool(database_url: str):  # type: ignore[no-untyped-def]
    pool = make_pool(database_url, max_size=12)
    yield pool
    pool.close()


def test_concurrent_appends_at_one_version_exactly_one_wins(pool) -> None:  # type: ignore[no-untyped-def]
    store = PostgresEventStore(pool, "games")
    store.append("race", 0, [NewEvent("Opened", {})])
    barrier = threading.Barrier(8)

    def attempt(k: int) -> str:
        barrier.wait()
        try:
            store.append("race", 1, [NewEvent("Claimed", {"by": k})])
            return "ok"
        except ConcurrencyConflict:
            return "conflict"

    with ThreadPoolExecutor(8) as pool_:
        results = list(pool_.map(attempt, range(8)))
    assert results.count("ok") == 1 and results.count("conflict") == 7
    events = store.read_stream("race")
    assert [e.version for e in events] == [1, 2]
    assert verify_chain([e.as_dict() for e in events]).ok


def _chain(store: PostgresEventStore) -> list[dict]:  # type: ignore[type-arg]
    return [e.as_dict() for e in store.read_stream("chain")]


def test_hash_chain_reports_changed_inserted_and_deleted_rows(pool, database_url: str) -> None:  # type: ignore[no-untyped-def]
    store = PostgresEventStore(pool, "games")
    store.append("chain", 0, [NewEvent("E", {"n": n}) for n in range(1, 6)])
    assert verify_chain(_chain(store), head=(5, _chain(store)[-1]["hash"])).ok
    head = (5, _chain(store)[-1]["hash"])
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("UPDATE games.events SET payload = '{\"n\": 99}' WHERE stream_id='chain' AND version=3")
        report = verify_chain(_chain(store), head)
        assert not report.ok and report.first_bad_version == 3 and "changed" in (report.problem or "")
        conn.execute("UPDATE games.events SET payload = '{\"n\": 3}' WHERE stream_id='chain' AND version=3")
        assert verify_chain(_chain(store), head).ok
        # insert: shift versions 4..5 up and put a forged event at 4
        conn.execute(
            "UPDATE games.events SET version = version + 10 WHERE stream_id='chain' AND version >= 4"
        )
        conn.execute(
            "UPDATE games.events SET version = version - 9 WHERE stream_id='chain' AND version >= 14"
        )
        conn.execute(
            "INSERT INTO games.events (stream_id, version, event_id, type, payload, metadata, prev_hash, hash)"
            " SELECT 'chain', 4, gen_random_uuid(), 'E', '{\"n\": 42}', metadata, hash, hash"
            " FROM games.events WHERE stream_id='chain' AND version=3"
        )
        report = verify_chain(_chain(store), head)
        assert not report.ok and report.first_bad_version == 4
        conn.execute("DELETE FROM games.events WHERE stream_id='chain' AND version=4")
        conn.execute("UPDATE games.events SET version = version - 1 WHERE stream_id='chain' AND version >= 5")
        assert verify_chain(_chain(store), head).ok
        # delete a middle event
        conn.execute("DELETE FROM games.events WHERE stream_id='chain' AND version=2")
        report = verify_chain(_chain(store), head)
        assert not report.ok and report.first_bad_version == 2
        # delete the last event: only the known head catches it
        conn.execute("DELETE FROM games.events WHERE stream_id='chain' AND version=5")
    events = [e for e in _chain(store) if e["version"] != 5]
    assert not verify_chain(events, head).ok


def test_event_committed_while_redis_is_down_is_delivered_when_it_is_back(pool, redis_url: str) -> None:  # type: ignore[no-untyped-def]
    store = PostgresEventStore(pool, "games")
    message = {"message_id": "m-1", "type": "GameFinished", "body": {"game_id": "g1"}}
    store.append("g1", 0, [NewEvent("GameFinished", {})], [OutboxMessage("ratings", RECORDER, message)])
    down = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    with pytest.raises(Exception):  # noqa: B017 - any connection error
        relay_once(pool, "games", down)
    assert outbox_lag(pool, "games")[0] == 1  # still pending, nothing lost
    up = Redis.from_url(redis_url)
    assert relay_once(pool, "games", up) == 1
    assert outbox_lag(pool, "games")[0] == 0
    queue = Queue("ratings", connection=up)
    assert queue.count == 1
    SimpleWorker([queue], connection=up).work(burst=True)
    assert up.lrange("test:received", 0, -1) == [b"m-1"]


def test_message_delivered_twice_is_processed_once(pool) -> None:  # type: ignore[no-untyped-def]
    effects = []
    for _ in range(2):
        with pool.connection() as conn, conn.transaction(), consume_once(conn, "ratings", "c", "m-7") as new:
            if new:
                effects.append("applied")
    assert effects == ["applied"]


def test_subscriber_never_skips_events_while_writers_commit_concurrently(pool) -> None:  # type: ignore[no-untyped-def]
    store = PostgresEventStore(pool, "games")
    writers, per_writer = 6, 25
    seen: list[int] = []
    hold = threading.Event()

    def write(w: int) -> None:
        for k in range(per_writer):
            store.append(f"w{w}", k, [NewEvent("E", {"w": w, "k": k})])

    total = writers * per_writer + 1

    def subscribe() -> None:
        last = (0, 0)
        deadline = time.monotonic() + 60
        while len(seen) < total and time.monotonic() < deadline:
            batch = store.read_all(last, limit=50)
            for event in batch:
                seen.append(event.position)
                last = event.cursor
            if not batch:
                time.sleep(0.01)

    def slow_writer() -> None:
        # takes a position, then commits only after many later positions have committed
        with pool.connection() as conn, conn.transaction():
            PostgresEventStore(conn, "games").append("slow", 0, [NewEvent("Late", {})])
            hold.wait(30)

    reader = threading.Thread(target=subscribe)
    slow = threading.Thread(target=slow_writer)
    slow.start()
    reader.start()
    with ThreadPoolExecutor(writers) as ex:
        list(ex.map(write, range(writers)))
    hold.set()
    slow.join(30)
    reader.join(30)
    feed = settled(store, total)
    every = [e.position for e in feed]
    assert len(every) == total
    assert seen == every and len(seen) == len(set(seen))  # same order, nothing skipped, nothing twice
    late = next(e for e in feed if e.type == "Late")
    assert late.position < max(every)  # it really took an early position and committed late
