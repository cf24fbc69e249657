"""The pure provider contract (shared.cityhopper.provider): request parsing and the QuestionDrawn body."""

from __future__ import annotations

from typing import Any

import pytest

from shared.cityhopper.grading import CATEGORIES
from shared.cityhopper.provider import RequestError, draw_for_request, parse_category, parse_request
from shared.cityhopper.questions import conceal, draw, game_selector, sample_pack
from shared.cityhopper.roads import EstimateBackend

BANK = sample_pack().served()


def body(**kw: Any) -> dict[str, Any]:
    base = {"game_id": "g", "request_no": 0, "city": "groningen", "category": 5, "yellow_city": None, "selector": 9}
    return {**base, **kw}


@pytest.mark.parametrize(("value", "name"), [(1, "ROAD_DISTANCE"), (5, "FACTS"), ("6", "MAYOR"), ("flag", "FLAG")])
def test_category_by_die_or_name(value: object, name: str) -> None:
    assert parse_category(value) == name


@pytest.mark.parametrize("value", [0, 7, True, None, "weather", 2.0])
def test_bad_categories(value: object) -> None:
    with pytest.raises(RequestError) as info:
        parse_category(value)
    assert info.value.field == "category"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"game_id": ""}, "game_id"),
        ({"request_no": -1}, "request_no"),
        ({"request_no": True}, "request_no"),
        ({"city": "atlantis"}, "city"),
        ({"yellow_city": "x"}, "yellow_city"),
        ({"selector": "1"}, "selector"),
        ({"category": 9}, "category"),
    ],
)
def test_bad_requests_name_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(RequestError) as info:
        parse_request(body(**change))
    assert info.value.field == field


def test_reply_body_is_exactly_the_contract() -> None:
    reply = draw_for_request(BANK, body(), question_id="q-1")
    assert set(reply) == {"game_id", "request_no", "question", "generated", "reason"}
    result = draw(BANK, "groningen", "FACTS", game_selector(9))  # a game draws with its selector hashed
    assert reply["question"] == conceal(result.question, "q-1") and reply["generated"] is result.generated
    assert {"key", "reveal", "pack"} <= set(reply["question"]) and reply["question"]["id"] == "q-1"


def test_same_request_same_question_whatever_the_bank_order() -> None:
    for category in range(1, 7):
        b = body(category=category, yellow_city="zwolle", selector=1234567890123456789)
        assert draw_for_request(BANK, b, question_id="q") == draw_for_request(
            list(reversed(BANK)), b, EstimateBackend(), question_id="q"
        )
    assert len(CATEGORIES) == 6


def test_huge_selectors_from_a_seed_are_fine() -> None:
    reply = draw_for_request(BANK, body(selector=2**255 + 3), question_id="q")
    assert reply["question"]["city"] == "groningen"
