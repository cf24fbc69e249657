"""The canonical encoding the hash chain rests on: ``canonical_bytes`` (orjson where it can) must give
exactly the bytes of the documented form (the standard library's ``json.dumps`` with sorted keys,
compact separators, UTF-8 kept, no NaN), or every chain stored before it would stop verifying."""

from __future__ import annotations

import enum
import hashlib
import json
import math
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.canonical import GENESIS_HASH, canonical_bytes, event_hash, event_hash_encoded
from shared.eventstore.chain import verify_chain
from shared.eventstore.model import NewEvent
from shared.eventstore.sealing import seal_encoded


def documented(value: Any) -> bytes:
    """The canonical form as the verifier's documentation defines it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def documented_hash(prev: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> str:
    envelope = {"prev": prev, "stream_id": stream_id, "version": version, "type": type_, "payload": payload,
                "metadata": metadata}
    return hashlib.sha256(documented(envelope)).hexdigest()


storable_numbers = (
    st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-9.9e15, max_value=9.9e15).filter(
        lambda x: x != 0 or math.copysign(1.0, x) > 0)  # exponent forms (1e-05) differ between encoders
)
scalars = st.none() | st.booleans() | st.text() | storable_numbers


def nested(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda children: st.lists(children, max_size=5) | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=8), children, max_size=5),
        max_leaves=30,
    )


values = nested(scalars)
# what PostgreSQL's jsonb would not give back as it was (1e16 comes back as an integer, -0.0 as 0,
# 2**64 as a float): never sealed into an event, whose hash would then not verify after a read
unstorable = (
    st.integers(min_value=2**64) | st.integers(max_value=-(2**63) - 1)
    | st.floats(min_value=1e16) | st.floats(max_value=-1e16) | st.just(-0.0)
    | st.just(float("inf")) | st.just(float("nan"))
)


@given(values)
@settings(max_examples=400)
def test_same_bytes_as_the_documented_form(value: Any) -> None:
    assert canonical_bytes(value) == documented(value)


@given(st.dictionaries(st.text(max_size=8), values, max_size=4), st.text(min_size=1, max_size=12), st.text(max_size=40),
       st.integers(min_value=1, max_value=10**6))
@settings(max_examples=200)
def test_event_hash_is_the_documented_envelope_hash(payload: dict[str, Any], type_: str, stream_id: str,
                                                    version: int) -> None:
    metadata = {"event_id": "e", "recorded_at": "2026-01-01T00:00:00.000000+00:00", "actor": None}
    assert event_hash("ab" * 32, stream_id, version, type_, payload, metadata) == documented_hash(
        "ab" * 32, stream_id, version, type_, payload, metadata
    )


@given(values, unstorable, st.text(max_size=8))
@settings(max_examples=200)
def test_a_number_jsonb_would_not_give_back_is_refused(value: Any, number: float, key: str) -> None:
    with pytest.raises(ValueError):
        canonical_bytes({"before": value, key: [value, {"n": number}]})


def test_every_code_point_as_text_and_as_key() -> None:
    text = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert canonical_bytes(text) == documented(text)
    keys = {chr(c): c for c in range(0, sys.maxunicode + 1, 7) if not 0xD800 <= c <= 0xDFFF}
    assert canonical_bytes(keys) == documented(keys)


def test_values_the_documented_form_refuses_are_refused() -> None:
    with pytest.raises(ValueError):  # NaN is not JSON (orjson alone would write null)
        canonical_bytes({"x": [1, float("nan")]})
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form
        canonical_bytes({"x": "\ud800"})
    with pytest.raises(TypeError):  # no encoding for arbitrary objects (orjson would write a UUID, an Enum)
        canonical_bytes({"x": object()})


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    ONE = 1


def test_subclasses_and_other_key_types_as_the_documented_form() -> None:
    class Ordered(dict[str, Any]):
        pass

    for value in ({"a": Colour.RED, "b": Level.ONE}, {Colour.RED: 1}, Ordered(b=1, a=2), {1: "x", 2: "y"},
                  {10: "x", 9: "y"}, {True: 1}, {"n": 2**63 - 1}, {"t": (1, "2")}):
        assert canonical_bytes(value) == documented(value), value


def test_sealed_bytes_are_what_the_hash_covers_and_what_is_stored() -> None:
    """The bytes the PostgreSQL store sends as the payload and metadata columns decode to the event's
    payload and metadata, and the event's hash is the documented one: a chain written this way
    verifies as before."""
    prev, events = GENESIS_HASH, []
    for version, payload in enumerate(({"seat": 0, "move": {"type": "add"}}, {"scores": [1.5, 1e-05]},
                                       {"name": "Zoë \u2028 \x00"}), start=1):
        sealed = seal_encoded(0, "game-1", version, NewEvent("Moved", payload, {"actor": "p1"}), prev)
        assert json.loads(sealed.payload_json) == payload
        assert json.loads(sealed.metadata_json) == sealed.event.metadata
        assert sealed.event.hash == documented_hash(prev, "game-1", version, "Moved", payload, sealed.event.metadata)
        assert sealed.event.hash == event_hash_encoded(prev, "game-1", version, "Moved", sealed.payload_json,
                                                       sealed.metadata_json)
        events.append(sealed.event.as_dict())
        prev = sealed.event.hash
    assert verify_chain(events).ok


def test_no_property_test_fails_on_a_slow_or_loaded_machine() -> None:
    """The suite's hypothesis profile (tests/conftest.py), from which every ``@settings`` above takes
    what it does not set: neither a deadline per example nor the health check on slow example
    generation, both wall-clock timings that a busy machine breaks without any property failing."""
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
