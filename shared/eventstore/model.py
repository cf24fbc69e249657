"""Event store port: what every implementation (in-memory, PostgreSQL) offers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class EventStoreError(Exception):
    """Root of event store errors."""


class ConcurrencyConflict(EventStoreError):
    """Another writer appended to the stream first (the expected version is stale)."""

    def __init__(self, stream_id: str, expected_version: int, actual_version: int | None = None) -> None:
        super().__init__(f"stream {stream_id}: expected version {expected_version}, now {actual_version}")
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.actual_version = actual_version


@dataclass(frozen=True)
class NewEvent:
    """An event to append. ``metadata`` gets ``event_id`` and ``recorded_at`` filled if missing."""

    type: str
    payload: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


Cursor = tuple[int, int]  # (transaction id, position): where a subscriber has read up to
START: Cursor = (0, 0)


def as_cursor(after: Cursor | int) -> Cursor:
    if isinstance(after, int):
        if after != 0:
            raise ValueError("pass a cursor (tx_id, position) from StoredEvent.cursor, or 0 for the start")
        return START
    return after


# a stored event as ``read_payloads`` gives it: (version, type, payload, hash, recorded_at)
PayloadRow = tuple[int, str, dict[str, Any], str, str | None]


@dataclass(frozen=True)
class StoredEvent:
    position: int
    stream_id: str
    version: int
    type: str
    payload: dict[str, Any]
    metadata: dict[str, Any]
    prev_hash: str
    hash: str
    tx_id: int = 0

    @property
    def cursor(self) -> Cursor:
        return (self.tx_id, self.position)

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "stream_id": self.stream_id,
            "version": self.version,
            "type": self.type,
            "payload": self.payload,
            "metadata": self.metadata,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


@dataclass(frozen=True)
class OutboxMessage:
    """A message for another service, written in the same transaction as its events."""

    queue: str
    job: str  # dotted path of the consumer's job function
    message: dict[str, Any]


@dataclass(frozen=True)
class Snapshot:
    stream_id: str
    version: int
    kind: str
    data: bytes


class EventStore(ABC):
    @abstractmethod
    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        outbox: Sequence[OutboxMessage] = (),
        prev_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Atomically append after ``expected_version`` (0 for a new stream) or raise ConcurrencyConflict.

        ``prev_hash`` may pass the known hash of event ``expected_version`` to save a lookup."""

    @abstractmethod
    def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events of one stream with version > ``after_version``, in version order."""

    @abstractmethod
    def read_all(self, after: Cursor | int = START, limit: int = 1000) -> list[StoredEvent]:
        """Events of every stream after the cursor ``after`` (``StoredEvent.cursor`` of the last
        event a subscriber saw), in a total order that never changes once an event is returned.

        Only events of transactions that can no longer be followed by an earlier-sorting event are
        returned, so a subscriber that resumes from its last cursor never skips an event.
        """

    @abstractmethod
    def stream_version(self, stream_id: str) -> int:
        """Current version of a stream (0 when it does not exist)."""

    @abstractmethod
    def save_snapshot(self, snapshot: Snapshot) -> None: ...

    @abstractmethod
    def latest_snapshot(
        self, stream_id: str, kind: str, max_version: int | None = None
    ) -> Snapshot | None: ...
