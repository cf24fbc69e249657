"""Validation at the door (issue 17.4): options checked against a game type's JSON Schema name each field."""

from __future__ import annotations

from typing import Any

import pytest

from services.matchmaking.service_layer.validation import InvalidFields, check_table_request, options_errors
from shared.errors import InvalidRequest, Unavailable

HOPPAA: dict[str, Any] = {
    "id": "hoppaa",
    "player_counts": [2, 3, 4],
    "options_schema": {
        "type": "object",
        "properties": {
            "mode": {"type": "string", "enum": ["solo", "team"]},
            "age_rank": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 1}},
            "first_dealer": {"type": "integer", "minimum": 0},
        },
        "additionalProperties": False,
    },
}


def test_each_invalid_option_is_named_under_options() -> None:
    schema = HOPPAA["options_schema"]
    assert options_errors(schema, {"mode": "solo", "first_dealer": 2}) == {}
    assert list(options_errors(schema, {"mode": "banana"})) == ["options.mode"]
    assert list(options_errors(schema, {"age_rank": [1, 0]})) == ["options.age_rank.1"]
    assert set(options_errors(schema, {"mode": 3, "colour": "red", "size": 1})) == {
        "options.mode", "options.colour", "options.size"}
    assert options_errors({"type": "object", "required": ["target"]}, {}) == {"options.target": ["required"]}


def test_check_table_request_names_the_field_and_is_a_503_without_game_types() -> None:
    with pytest.raises(InvalidFields) as bad:
        check_table_request([HOPPAA], "hoppaa", [4], {"mode": "banana"}, "table_sizes")
    assert bad.value.status == 422 and bad.value.problem_errors() is not None
    assert list(bad.value.problem_errors() or {}) == ["options.mode"]
    with pytest.raises(InvalidRequest) as unknown:
        check_table_request([HOPPAA], "schaken", [4], {}, "table_sizes")
    assert unknown.value.field == "game_type"
    with pytest.raises(InvalidRequest) as size:
        check_table_request([HOPPAA], "hoppaa", [5], {}, "table_sizes")
    assert size.value.field == "table_sizes"
    with pytest.raises(Unavailable) as down:
        check_table_request(None, "hoppaa", [4], {}, "table_sizes")
    assert down.value.status == 503 and down.value.extra["retry_after"] > 0
    check_table_request([HOPPAA], "hoppaa", [4], {"mode": "team"}, "table_sizes")  # HP-47 is the games service's
