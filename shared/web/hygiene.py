"""JSON bodies a parser or PostgreSQL would choke on, refused at the door with a 4xx naming the field:
nesting deeper than a limit (``json.loads`` would raise ``RecursionError``) and lone UTF-16 surrogates
(``"\\ud800"`` decodes to a str that cannot be encoded as UTF-8, so PostgreSQL would refuse it), and
numbers an event could not keep exactly (``1e400``, ``1e20``, ``-0.0``, integers past 64 bits: see
``shared.canonical.unstorable_number``)."""

from __future__ import annotations

import json
import re
from typing import Any

from shared.canonical import unstorable_number

MAX_JSON_DEPTH = 32

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# what every unstorable number has (an exponent, 16 or more digits, or a minus zero); strings may match too
_SUSPECT_NUMBER = re.compile(rb"[eE][+-]?[0-9]|[0-9]{16}|-0")


def too_deep(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays/objects nest deeper than ``limit`` (brackets inside strings do not count)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    depth = 0
    for ch in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        if ch in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def lone_surrogates(raw: bytes) -> list[str]:
    """Dotted paths (``display_name``, ``move.card``, ``seats.2``) of strings or keys holding a lone
    surrogate; empty when there is none or the body is not JSON (the schema reports that)."""
    if not _SURROGATE_ESCAPE.search(raw):
        return []
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    found: list[str] = []
    _walk(document, "", found)
    return found


def _bad(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _walk(value: Any, path: str, found: list[str]) -> None:
    # depth is bounded by too_deep() before this runs
    if isinstance(value, str):
        if _bad(value):
            found.append(path or "body")
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if _bad(key):
                found.append(where.encode("utf-8", "backslashreplace").decode())
            else:
                _walk(item, where, found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{path}.{i}" if path else str(i), found)


def unstorable_numbers(raw: bytes) -> dict[str, str]:
    """Dotted paths of numbers that could not be stored exactly, with the reason; empty when there is
    none or the body is not JSON (the schema reports that)."""
    if not _SUSPECT_NUMBER.search(raw):
        return {}
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return {}
    found: dict[str, str] = {}
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:  # depth is bounded by too_deep() before this runs
        value, path = stack.pop()
        if isinstance(value, dict):
            stack.extend((item, f"{path}.{key}" if path else str(key)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{i}" if path else str(i)) for i, item in enumerate(value))
        elif isinstance(value, int | float) and (why := unstorable_number(value)) is not None:
            found[path or "body"] = why
    return found
