"""Filling metadata and computing the chain hash of an event about to be stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import uuid_utils

from shared.canonical import canonical_bytes, event_hash_encoded
from shared.eventstore.model import NewEvent, StoredEvent


@dataclass(frozen=True)
class Sealed:
    """A sealed event with the canonical JSON of its payload and metadata, encoded once: the bytes its
    hash covers, which the PostgreSQL store also sends as the ``jsonb`` columns (the same values)."""

    event: StoredEvent
    payload_json: bytes
    metadata_json: bytes


def new_event_id() -> str:
    """A UUID version 7 (RFC 9562): its first 48 bits are the time in milliseconds, then (in uuid-utils)
    a counter within the millisecond, so new ids sort after older ones and each insert into the unique
    ``event_id`` index lands on its right edge, as the ``position`` key's do, not on a random leaf page.
    With random (version 4) ids nearly every append dirtied a page of that index not yet written since
    the last checkpoint, which costs the whole page in the write-ahead log. Measured (issue 19),
    write-ahead-log bytes per append after a checkpoint: 1,413-1,439 with version 4 against 1,052 with
    these on a table of 80,000 events, and 5,742-5,834 against 1,054 on 1.9 million. An event id only
    names an event (it guards nothing), and the time it holds is ``recorded_at``'s. uuid-utils makes
    one in 0.25 µs (``uuid.uuid4``: 2 µs; the standard library has ``uuid7`` from Python 3.14 on)."""
    return str(uuid_utils.uuid7())


def complete_metadata(event: NewEvent) -> dict[str, object]:
    """Metadata with an event id and a recorded time (adapters own ids and clocks, not the domain)."""
    metadata = dict(event.metadata)
    metadata.setdefault("event_id", new_event_id())
    metadata.setdefault("recorded_at", datetime.now(UTC).isoformat(timespec="microseconds"))
    metadata.setdefault("correlation_id", metadata["event_id"])
    metadata.setdefault("causation_id", None)
    metadata.setdefault("actor", None)
    return metadata


def seal_encoded(position: int, stream_id: str, version: int, event: NewEvent, prev_hash: str) -> Sealed:
    metadata = complete_metadata(event)
    payload_json, metadata_json = canonical_bytes(event.payload), canonical_bytes(metadata)
    digest = event_hash_encoded(prev_hash, stream_id, version, event.type, payload_json, metadata_json)
    stored = StoredEvent(position, stream_id, version, event.type, event.payload, metadata, prev_hash, digest)
    return Sealed(stored, payload_json, metadata_json)


def seal(position: int, stream_id: str, version: int, event: NewEvent, prev_hash: str) -> StoredEvent:
    return seal_encoded(position, stream_id, version, event, prev_hash).event
