"""Filling metadata and computing the chain hash of an event about to be stored."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from shared.canonical import canonical_bytes, event_hash_encoded
from shared.eventstore.model import NewEvent, StoredEvent


@dataclass(frozen=True)
class Sealed:
    """A sealed event with the canonical JSON of its payload and metadata, encoded once: the bytes its
    hash covers, which the PostgreSQL store also sends as the ``jsonb`` columns (the same values)."""

    event: StoredEvent
    payload_json: bytes
    metadata_json: bytes


def complete_metadata(event: NewEvent) -> dict[str, object]:
    """Metadata with an event id and a recorded time (adapters own ids and clocks, not the domain)."""
    metadata = dict(event.metadata)
    metadata.setdefault("event_id", str(uuid.uuid4()))
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
