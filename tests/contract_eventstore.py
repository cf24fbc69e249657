"""One contract suite for every EventStore implementation (in-memory and PostgreSQL)."""

from __future__ import annotations

import time

import pytest

from shared.eventstore.chain import verify_chain
from shared.eventstore.model import ConcurrencyConflict, EventStore, NewEvent, Snapshot, StoredEvent


def settled(store: EventStore, count: int, after: tuple[int, int] = (0, 0)) -> list[StoredEvent]:
    """read_all once ``count`` events are visible: the feed holds back events while any older
    transaction anywhere in the cluster is still running (other tests may share the server)."""
    deadline = time.monotonic() + 20
    while True:
        events = store.read_all(after, limit=10_000)
        if len(events) >= count or time.monotonic() > deadline:
            return events
        time.sleep(0.02)


class EventStoreContract:
    def store(self) -> EventStore:  # overridden by fixtures
        raise NotImplementedError

    def test_append_and_read_stream_in_version_order(self, store: EventStore) -> None:
        store.append("s1", 0, [NewEvent("A", {"n": 1}), NewEvent("B", {"n": 2})])
        store.append("s1", 2, [NewEvent("C", {"n": 3})])
        events = store.read_stream("s1")
        assert [e.version for e in events] == [1, 2, 3]
        assert [e.type for e in events] == ["A", "B", "C"]
        assert store.read_stream("s1", after_version=2)[0].type == "C"
        assert store.stream_version("s1") == 3
        assert store.stream_version("nope") == 0

    def test_stale_expected_version_conflicts_and_writes_nothing(self, store: EventStore) -> None:
        store.append("s1", 0, [NewEvent("A", {})])
        with pytest.raises(ConcurrencyConflict):
            store.append("s1", 0, [NewEvent("B", {})])
        assert [e.type for e in store.read_stream("s1")] == ["A"]

    def test_read_all_in_commit_order_across_streams(self, store: EventStore) -> None:
        store.append("a", 0, [NewEvent("A1", {})])
        store.append("b", 0, [NewEvent("B1", {})])
        store.append("a", 1, [NewEvent("A2", {})])
        every = settled(store, 3)
        assert [e.type for e in every] == ["A1", "B1", "A2"]
        assert [e.type for e in settled(store, 2, every[0].cursor)] == ["B1", "A2"]
        assert store.read_all(every[-1].cursor) == []

    def test_metadata_is_completed_and_chain_verifies(self, store: EventStore) -> None:
        store.append("s", 0, [NewEvent("A", {"x": "é"}, {"actor": "p1"}), NewEvent("B", {"y": [1, 2]})])
        events = store.read_stream("s")
        meta = events[0].metadata
        assert meta["actor"] == "p1" and meta["event_id"] and meta["recorded_at"] and "correlation_id" in meta
        assert verify_chain([e.as_dict() for e in events]).ok

    def test_payloads_come_back_as_written_and_their_chain_verifies(self, store: EventStore) -> None:
        """What a payload holds (floats the encoders write differently, 64-bit integers, text outside
        ASCII, nesting) is read back unchanged, and the stored rows' hashes are those of the read-back
        values."""
        payloads = [
            {"scores": [1.5, 1e-05, 2.5e-07, 100.0], "n": 2**63 - 1, "m": -(2**63)},
            {"name": "Zoë \u2028 \U0001f600 \"q\" \\ \t", "nested": {"b": [1, {"a": None}], "a": True}},
            {"seat": 1, "move": {"type": "add"}},
        ]
        store.append("p", 0, [NewEvent("E", p) for p in payloads])
        events = store.read_stream("p")
        assert [e.payload for e in events] == payloads
        assert verify_chain([e.as_dict() for e in events]).ok

    def test_snapshots_latest_at_or_before_version(self, store: EventStore) -> None:
        store.save_snapshot(Snapshot("s", 5, "k", b"five"))
        store.save_snapshot(Snapshot("s", 9, "k", b"nine"))
        latest = store.latest_snapshot("s", "k")
        assert latest is not None and latest.data == b"nine"
        older = store.latest_snapshot("s", "k", max_version=7)
        assert older is not None and older.version == 5
        assert store.latest_snapshot("s", "other") is None
