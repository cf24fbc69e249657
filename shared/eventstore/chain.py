"""Checking a stream's hash chain: detects a changed, inserted or deleted event."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shared.canonical import GENESIS_HASH, event_hash


@dataclass(frozen=True)
class ChainReport:
    ok: bool
    first_bad_version: int | None = None
    problem: str | None = None


def verify_chain(events: Sequence[dict[str, Any]], head: tuple[int, str] | None = None) -> ChainReport:
    """``events`` as dicts (``StoredEvent.as_dict`` or an export). ``head``: the (version, hash) the
    stream is known to end at (e.g. from the games table), which also catches a deleted last event."""
    prev = GENESIS_HASH
    for expected_version, event in enumerate(events, start=1):
        version = int(event["version"])
        if version != expected_version:
            return ChainReport(
                False, expected_version, f"version {expected_version} is missing or out of order"
            )
        if event["prev_hash"] != prev:
            return ChainReport(
                False, version, "prev_hash does not match the previous event (inserted or deleted)"
            )
        digest = event_hash(
            prev, event["stream_id"], version, event["type"], event["payload"], event["metadata"]
        )
        if digest != event["hash"]:
            return ChainReport(False, version, "content does not match its hash (changed)")
        prev = digest
    if head is not None:
        last = len(events)
        if head[0] != last or (last and head[1] != prev):
            return ChainReport(
                False,
                last + 1 if head[0] > last else head[0],
                f"stream ends at version {last}, expected {head[0]} (deleted or truncated)",
            )
    return ChainReport(True)
