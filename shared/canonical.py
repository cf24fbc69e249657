"""Canonical JSON and the event hash chain (shared by the store, the audit and the verifier).

The canonical form of a value is the standard library's ``json.dumps`` with sorted keys, no whitespace,
UTF-8 kept and no NaN (``canonical_json``); every stored event's hash is SHA-256 over the canonical form
of its envelope ``{"metadata", "payload", "prev", "stream_id", "type", "version"}``. ``canonical_bytes``
gives the same bytes faster: orjson (sorted keys) for values made only of dicts with string keys,
lists, tuples, strings, integers, booleans and None, where its output is byte for byte the standard
library's (tests/unit/test_canonical.py compares them on generated values and on every code point);
anything else (floats, whose exponent form differs, NaN, integers past 64 bits, other key types,
subclasses) goes through the standard library. ``event_hash_encoded`` hashes an envelope from the
canonical bytes of its payload and metadata, so the store encodes each event once and sends the same
bytes as its ``jsonb`` columns (issue 19)."""

from __future__ import annotations

import hashlib
import json
import math
from json.encoder import encode_basestring
from typing import Any

import orjson

GENESIS_HASH = "0" * 64

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_SCALARS = frozenset({str, int, bool, type(None)})


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: one byte string per value."""
    return _ENCODER.encode(value)


def _plain(value: Any) -> bool:
    """Only exact dicts with str keys, lists, tuples, str, int, bool and None (no float, no subclass)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or (type(item) not in _SCALARS and not _plain(item)):
                return False
        return True
    if kind is list or kind is tuple:
        return all(type(item) in _SCALARS or _plain(item) for item in value)
    return False


def canonical_bytes(value: Any) -> bytes:
    """``canonical_json(value).encode()``, by orjson where that gives the same bytes."""
    try:
        if _plain(value):
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, RecursionError):  # an integer past 64 bits, a lone surrogate, a cycle
        pass
    _refuse_unstorable(value)
    return canonical_json(value).encode()


_INT64 = 1 << 63
_EXACT_FLOAT_LIMIT = 1e16  # from here on a float's JSON has an exponent and jsonb gives back an integer


def unstorable_number(value: Any) -> str | None:
    """Why ``value`` (a JSON number) would not come back from PostgreSQL's ``jsonb`` as it was, so
    that the hash of an event holding it would no longer verify after a read; None when it would:
    a float that is not finite (not JSON at all), a float of 1e16 or more in magnitude (comes back as
    an integer), ``-0.0`` (comes back as ``0``), an integer past 64 bits (below -2**63 or from 2**64
    on: comes back as a float)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return "must be a finite number"
        if abs(value) >= _EXACT_FLOAT_LIMIT or (value == 0.0 and math.copysign(1.0, value) < 0):
            return "must be less than 1e16 in magnitude and not -0 (it could not be stored exactly)"
    elif isinstance(value, int) and not -_INT64 <= value < 2 * _INT64:  # orjson reads i64 and u64 back
        return "must fit in 64 bits (it could not be stored exactly)"
    return None


def _refuse_unstorable(value: Any) -> None:
    """ValueError for a number ``unstorable_number`` refuses (only values orjson did not encode get
    here: those with floats or big integers). An event holding one is never sealed; the HTTP door
    refuses them in request bodies first, naming the field (shared/web/hygiene.py)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, int | float) and (why := unstorable_number(item)) is not None:
            raise ValueError(f"{item!r} {why}")


def _scalar(value: Any) -> str:
    """The canonical JSON of an envelope's string or integer field."""
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return str(value)
    return canonical_json(value)


def event_hash_encoded(
    prev_hash: str, stream_id: str, version: int, type_: str, payload_json: bytes, metadata_json: bytes
) -> str:
    """``event_hash`` from the canonical bytes of the payload and the metadata (``canonical_bytes``):
    the envelope's canonical form is assembled around them (its keys in sorted order)."""
    tail = (
        f',"prev":{_scalar(prev_hash)},"stream_id":{_scalar(stream_id)},"type":{_scalar(type_)}'
        f',"version":{_scalar(version)}}}'
    )
    body = b'{"metadata":' + metadata_json + b',"payload":' + payload_json + tail.encode()
    return hashlib.sha256(body).hexdigest()


def event_hash(prev_hash: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> str:
    """SHA-256 over the canonical JSON of an event and the hash of its predecessor in the stream."""
    return event_hash_encoded(
        prev_hash, stream_id, version, type_, canonical_bytes(payload), canonical_bytes(metadata)
    )
