"""JSON to and from bytes with orjson (several times the standard library's speed), falling back to the
standard library for what orjson does not take: an integer past 64 bits when encoding, input orjson
refuses when decoding. Used for psycopg's json/jsonb parameters and columns (``shared.db``) and for hot
JSON answers (``shared.web.blueprint.json_response``). The events' payload and metadata columns are sent
as the canonical bytes their hash covers instead (``shared.eventstore.sealing``)."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> bytes:
    """Compact JSON; integer keys become strings, as the standard library makes them."""
    try:
        encoded: bytes = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        return encoded
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(bytes(data) if isinstance(data, memoryview) else data)
