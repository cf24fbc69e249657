"""The event store on two PostgreSQL instances (issue 19, item 6; deploy/SCALING.md): streams are routed
by id, and a subscriber keeps one ``(tx_id, position)`` cursor per shard. While writers on both shards
commit out of order (one transaction held open on a shard while later ones commit around it), a
subscriber that stops after every page and resumes from its stored cursor gets every event exactly
once, each stream in version order; a single global cursor carried from one shard to the other skips
events, which is why the cursor is per shard.

Both instances are our own (``initdb`` + ``pg_ctl`` as the OS user postgres on a free port, stopped by
their data directories). A shard's horizon is the oldest transaction still open anywhere in its cluster,
so a shard on the machine's PostgreSQL, which ``make test``'s main tiers use at the same time, could be
held back by any of their transactions: on 2026-12-07 shard 0, then on the machine's PostgreSQL, had not
made all its committed events readable 60 s after its writers finished, and the test failed though
nothing was skipped."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from services.cli import migration_sets
from shared.db import make_pool
from shared.eventstore.model import NewEvent, StoredEvent
from shared.eventstore.postgres import PostgresEventStore
from shared.eventstore.sharded import ShardCursor, ShardedEventStore, shard_of
from shared.migrate import apply
from tests.faults.infra import PrivatePostgres

pytestmark = pytest.mark.faults
STREAMS, EVENTS, WRITERS = 48, 4, 8


@pytest.fixture
def shard_urls() -> Iterator[list[str]]:
    # under /tmp: the postgres user must reach them
    roots = [Path(tempfile.mkdtemp(prefix=f"speltafel-shard{k}-")) for k in (0, 1)]
    try:
        with contextlib.ExitStack() as started:
            urls = []
            for root in roots:
                pg = PrivatePostgres(root)
                pg.start()
                started.callback(pg.stop)
                apply(pg.url, migration_sets())
                urls.append(pg.url)
            yield urls
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)


def drain(store: ShardedEventStore, cursor: ShardCursor, seen: list[tuple[int, StoredEvent]]) -> ShardCursor:
    """Read to the end in small pages, as a subscriber that stops after every page and resumes from the
    cursor it stored (a new store object each time: nothing is remembered but the cursor)."""
    while True:
        page, cursor = ShardedEventStore(store.shards).read_all(cursor, limit=6)
        if not page:
            return cursor
        seen += page


def drain_until(store: ShardedEventStore, cursor: ShardCursor, seen: list[tuple[int, StoredEvent]],
                done: Callable[[], bool], why: str) -> ShardCursor:
    """Drain until ``done``: a shard's horizon is the oldest transaction still open anywhere in its
    PostgreSQL cluster, so a committed event may become readable a little after its commit (while
    another writer's transaction is still open); it is never skipped (the test's point)."""
    deadline = time.monotonic() + 60
    while True:
        cursor = drain(store, cursor, seen)
        if done():
            return cursor
        assert time.monotonic() < deadline, why
        time.sleep(0.1)


def test_per_shard_cursors_deliver_every_event_once_across_two_instances(shard_urls: list[str]) -> None:
    pools = [make_pool(url, max_size=WRITERS + 2) for url in shard_urls]
    try:
        store = ShardedEventStore([PostgresEventStore(pool, "games") for pool in pools])
        streams = [f"game-{k:03d}" for k in range(STREAMS)]
        assert {shard_of(s, 2) for s in streams} == {0, 1}
        late = next(s for s in streams if shard_of(s, 2) == 1)
        seen: list[tuple[int, StoredEvent]] = []
        cursor = store.start()

        # a transaction on shard 1 that takes its position now and commits after everything else
        held = psycopg.connect(shard_urls[1])
        held_tx = held.transaction()
        held_tx.__enter__()
        PostgresEventStore(held, "games").append(late, 0, [NewEvent("Opened", {"late": True})])

        def write(chunk: list[str]) -> None:
            for version in range(EVENTS):
                for stream in chunk:
                    store.append(stream, version, [NewEvent("Moved", {"n": version})])

        others = [s for s in streams if s != late]
        threads = [threading.Thread(target=write, args=(others[k::WRITERS],)) for k in range(WRITERS)]
        for t in threads:
            t.start()
        cursor = drain(store, cursor, seen)  # while the writers run
        for t in threads:
            t.join()
        # shard 1's horizon holds back everything after the open transaction; shard 0 is not held back
        shard0 = {s for s in others if shard_of(s, 2) == 0}
        cursor = drain_until(store, cursor, seen, lambda: sum(1 for i, _ in seen if i == 0) == len(shard0) * EVENTS,
                             "shard 0's events all arrive while shard 1 is held back")
        assert all(e.stream_id != late for _, e in seen)
        assert {e.stream_id for i, e in seen if i == 0} == shard0
        held_tx.__exit__(None, None, None)  # commits
        held.close()
        for version in range(1, EVENTS):
            store.append(late, version, [NewEvent("Moved", {"n": version})])
        drain_until(store, cursor, seen, lambda: len(seen) >= STREAMS * EVENTS, "every event arrives")

        keys = [(e.stream_id, e.version) for _, e in seen]
        assert len(keys) == len(set(keys)) == STREAMS * EVENTS  # every event, once
        for stream in streams:
            versions = [e.version for _, e in seen if e.stream_id == stream]
            assert versions == list(range(1, EVENTS + 1)), stream  # each stream in order
            assert all(i == shard_of(stream, 2) for i, e in seen if e.stream_id == stream)  # on its shard

        # one global cursor instead: the last event of the shard whose transaction ids run higher,
        # used on the other shard, skips that shard's events (their ids come from another counter)
        last = {i: max(e.cursor for j, e in seen if j == i) for i in (0, 1)}
        ahead = max((0, 1), key=lambda i: last[i])
        behind = 1 - ahead
        held_back = store.shards[behind].read_all(last[ahead], limit=10_000)
        assert len(held_back) < sum(1 for i, _ in seen if i == behind)
    finally:
        for pool in pools:
            pool.close()
