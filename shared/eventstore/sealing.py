"""Filling metadata and computing the chain hash of an event about to be stored."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from shared.canonical import event_hash
from shared.eventstore.model import NewEvent, StoredEvent


def complete_metadata(event: NewEvent) -> dict[str, object]:
    """Metadata with an event id and a recorded time (adapters own ids and clocks, not the domain)."""
    metadata = dict(event.metadata)
    metadata.setdefault("event_id", str(uuid.uuid4()))
    metadata.setdefault("recorded_at", datetime.now(UTC).isoformat(timespec="microseconds"))
    metadata.setdefault("correlation_id", metadata["event_id"])
    metadata.setdefault("causation_id", None)
    metadata.setdefault("actor", None)
    return metadata


def seal(position: int, stream_id: str, version: int, event: NewEvent, prev_hash: str) -> StoredEvent:
    metadata = complete_metadata(event)
    digest = event_hash(prev_hash, stream_id, version, event.type, event.payload, metadata)
    return StoredEvent(position, stream_id, version, event.type, event.payload, metadata, prev_hash, digest)
