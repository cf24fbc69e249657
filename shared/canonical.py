"""Canonical JSON and the event hash chain (shared by the store, the audit and the verifier)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: one byte string per value."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def event_hash(prev_hash: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> str:
    """SHA-256 over the canonical JSON of an event and the hash of its predecessor in the stream."""
    body = canonical_json(
        {
            "prev": prev_hash,
            "stream_id": stream_id,
            "version": version,
            "type": type_,
            "payload": payload,
            "metadata": metadata,
        }
    )
    return hashlib.sha256(body.encode()).hexdigest()
