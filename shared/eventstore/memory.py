"""In-memory event store for unit tests; same contract as the PostgreSQL one."""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Sequence

from shared.canonical import GENESIS_HASH
from shared.eventstore.model import (
    START,
    ConcurrencyConflict,
    Cursor,
    EventStore,
    NewEvent,
    OutboxMessage,
    Snapshot,
    StoredEvent,
    as_cursor,
)
from shared.eventstore.sealing import seal


class InMemoryEventStore(EventStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._all: list[StoredEvent] = []
        self._streams: dict[str, list[StoredEvent]] = {}
        self._snapshots: dict[tuple[str, str], list[Snapshot]] = {}
        self.outbox: list[OutboxMessage] = []

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox: Sequence[OutboxMessage] = (),
        prev_hash: str | None = None,
    ) -> list[StoredEvent]:
        with self._lock:
            stream = self._streams.get(stream_id, [])
            if len(stream) != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, len(stream))
            prev = stream[-1].hash if stream else GENESIS_HASH
            stored = []
            for offset, event in enumerate(events):
                position = len(self._all) + 1
                item = seal(position, stream_id, expected_version + offset + 1, copy.deepcopy(event), prev)
                item = dataclasses.replace(item, tx_id=position)
                prev = item.hash
                stored.append(item)
                self._all.append(item)
            self._streams[stream_id] = stream + stored
            self.outbox.extend(outbox)
            return stored

    def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        events = self._streams.get(stream_id, [])[after_version:]
        return events[:limit] if limit is not None else list(events)

    def read_all(self, after: Cursor | int = START, limit: int = 1000) -> list[StoredEvent]:
        position = as_cursor(after)[1]
        return self._all[position : position + limit]

    def stream_version(self, stream_id: str) -> int:
        return len(self._streams.get(stream_id, []))

    def save_snapshot(self, snapshot: Snapshot) -> None:
        self._snapshots.setdefault((snapshot.stream_id, snapshot.kind), []).append(snapshot)

    def latest_snapshot(self, stream_id: str, kind: str, max_version: int | None = None) -> Snapshot | None:
        candidates = [
            s
            for s in self._snapshots.get((stream_id, kind), [])
            if max_version is None or s.version <= max_version
        ]
        return max(candidates, key=lambda s: s.version, default=None)
