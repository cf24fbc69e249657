"""The event store over several PostgreSQL instances (shards), distributed by stream id (deploy/SCALING.md).

Every write and every read of one stream goes to the one shard its id hashes to (the unique key a
writer's conflict rests on, ``(stream_id, version)``, includes the stream id, so it is enforced on one
shard, as Citus does for a table distributed by ``stream_id``; the other keys of a shard, its
``position`` and ``event_id``, are unique within it, deploy/SCALING.md). What does not carry over is the
global subscription cursor: ``(tx_id, position)`` is a transaction id and a sequence value *of one
instance*, and ``pg_snapshot_xmin`` (the "nothing earlier can still commit" horizon of
``PostgresEventStore.read_all``) is per instance too. Two instances' transaction ids are not comparable,
so a single cursor resumed on another shard skips or repeats events.

So a subscriber keeps **one cursor per shard** (``ShardCursor``), reads each shard after its own cursor
with the shard's own horizon, and the order it promises is per stream (a stream lives on one shard),
not across streams. Equivalently: run one subscriber per shard, each with its own plain cursor.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from shared.eventstore.model import START, Cursor, EventStore, NewEvent, OutboxMessage, Snapshot, StoredEvent

ShardCursor = tuple[Cursor, ...]  # one (tx_id, position) per shard, in shard order


def shard_of(stream_id: str, shards: int) -> int:
    """The shard of a stream: a stable hash of its id (the same in every process and release)."""
    digest = hashlib.blake2b(stream_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards


class ShardedEventStore:
    """Routes each stream to its shard; ``read_all`` takes and returns a cursor per shard."""

    def __init__(self, shards: Sequence[EventStore]) -> None:
        if not shards:
            raise ValueError("at least one shard")
        self.shards = list(shards)

    def start(self) -> ShardCursor:
        return tuple(START for _ in self.shards)

    def shard(self, stream_id: str) -> EventStore:
        return self.shards[shard_of(stream_id, len(self.shards))]

    def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent],
               outbox: Sequence[OutboxMessage] = (), prev_hash: str | None = None) -> list[StoredEvent]:
        """On the stream's shard, in one transaction there (its outbox rows with it)."""
        return self.shard(stream_id).append(stream_id, expected_version, events, outbox, prev_hash)

    def read_stream(self, stream_id: str, after_version: int = 0, limit: int | None = None) -> list[StoredEvent]:
        return self.shard(stream_id).read_stream(stream_id, after_version, limit)

    def stream_version(self, stream_id: str) -> int:
        return self.shard(stream_id).stream_version(stream_id)

    def save_snapshot(self, snapshot: Snapshot) -> None:
        self.shard(snapshot.stream_id).save_snapshot(snapshot)

    def latest_snapshot(self, stream_id: str, kind: str, max_version: int | None = None) -> Snapshot | None:
        return self.shard(stream_id).latest_snapshot(stream_id, kind, max_version)

    def read_all(self, after: ShardCursor, limit: int = 1000) -> tuple[list[tuple[int, StoredEvent]], ShardCursor]:
        """Up to ``limit`` events of every shard after its own cursor, as ``(shard, event)``, and the
        cursor to resume from. Each shard's events come in that shard's ``read_all`` order (so every
        stream's in version order); a subscriber that stores the returned cursor with its effects and
        resumes from it never skips or repeats an event."""
        if len(after) != len(self.shards):
            raise ValueError(f"a cursor has one (tx_id, position) per shard ({len(self.shards)})")
        out: list[tuple[int, StoredEvent]] = []
        cursor = list(after)
        share = max(1, limit // len(self.shards))
        for index, store in enumerate(self.shards):
            events = store.read_all(cursor[index], share)
            out += [(index, e) for e in events]
            if events:
                cursor[index] = events[-1].cursor
        return out, tuple(cursor)
