"""Grading of the six categories (cityhopper.md section 4; R-29 for the distance bound)."""

from typing import Any

import pytest

from shared.cityhopper.errors import CityHopperError, GradingError, QuestionError
from shared.cityhopper.grading import grade, public_question

PACK = {"id": "test", "version": "1", "hash": "0" * 64}


def distance_q(km: float, city: str = "amsterdam", yellow: str = "leiden") -> dict[str, Any]:
    return {
        "id": f"gen:distance:{city}:{yellow}",
        "category": "ROAD_DISTANCE",
        "city": city,
        "yellow_city": yellow,
        "prompt": "?",
        "format": "distance",
        "options": [],
        "key": {"km": km},
        "reveal": {"km": km},
        "pack": None,
    }


def choice_q(category: str, cities: list[str] | None = None) -> dict[str, Any]:
    options = [{"id": f"o{i}", "text": f"t{i}", "city": c, "media": None} for i, c in enumerate(cities or [])]
    if not options:
        options = [{"id": "true", "text": "Waar", "city": None, "media": None}]
        options.append({"id": "false", "text": "Niet waar", "city": None, "media": None})
    return {
        "id": "q1",
        "category": category,
        "city": "leiden",
        "prompt": "?",
        "format": "choice",
        "options": options,
        "key": {"option": options[1]["id"]},
        "reveal": {"answer": options[1]["id"], "info": "because"},
        "pack": PACK,
    }


def flag_q(colours: list[str]) -> dict[str, Any]:
    return {
        "id": "f1",
        "category": "FLAG",
        "city": "amsterdam",
        "prompt": "?",
        "format": "colours",
        "options": [],
        "key": {"colours": colours},
        "reveal": {"colours": colours, "flag": None, "info": ""},
        "pack": PACK,
    }


# --- category 1, road distance (R-29: inclusive 15 % bound) ---------------------------------


@pytest.mark.parametrize(
    ("guess", "correct"),
    [
        (100, True),
        (115, True),  # exactly +15 %: inclusive
        (85, True),  # exactly -15 %: inclusive
        (115.1, False),
        (84.9, False),
        ("115", True),
        ("85,0", True),
    ],
)
def test_distance_bound_is_inclusive_at_exactly_15_percent(guess: object, correct: bool) -> None:
    assert grade(distance_q(100.0), {"km": guess}).correct is correct


def test_distance_bound_exact_for_decimal_km() -> None:
    # 45.1 km: bounds 38.335 and 51.865 exactly; binary floats would misjudge the edges.
    q = distance_q(45.1)
    assert grade(q, {"km": 51.865}).correct
    assert grade(q, {"km": 38.335}).correct
    assert not grade(q, {"km": 51.866}).correct
    assert grade(q, {"km": 45}).reveal["given"] == {"km": 45.0}


def test_same_city_distance_is_correct_without_input() -> None:
    # Section 4 / E15: yellow card = arrival city -> correct at once, no input.
    q = distance_q(0.0, city="assen", yellow="assen")
    assert grade(q, {}).correct
    assert grade(q, {"km": 999}).correct


@pytest.mark.parametrize(
    "payload", [{}, {"km": None}, {"km": True}, {"km": -1}, {"km": "far"}, {"km": float("nan")}]
)
def test_distance_bad_payloads(payload: dict[str, Any]) -> None:
    with pytest.raises(GradingError) as err:
        grade(distance_q(100.0), payload)
    assert err.value.field == "km"
    assert isinstance(err.value, CityHopperError)


# --- categories 2, 3, 5, 6: pick the right option -------------------------------------------


@pytest.mark.parametrize("category", ["CITY_PHOTOS", "MAYOR"])
def test_photo_and_mayor_pick(category: str) -> None:
    q = choice_q(category, ["delft", "leiden", "gouda"])
    assert grade(q, {"option": "o1"}).correct
    g = grade(q, {"option": "o0"})
    assert not g.correct and g.reveal["given"] == {"option": "o0"}


def test_inhabitants_multiple_choice() -> None:
    q = choice_q("INHABITANTS", ["leiden", "leiden", "leiden"])
    q["reveal"]["population"] = 119713
    assert grade(q, {"option": "o1"}).correct
    assert grade(q, {"option": "o2"}).reveal["population"] == 119713


def test_facts_true_false() -> None:
    q = choice_q("FACTS")
    assert grade(q, {"option": "false"}).correct
    g = grade(q, {"option": "true"})
    assert not g.correct and g.reveal["info"] == "because"


@pytest.mark.parametrize("payload", [{}, {"option": 1}, {"option": "o9"}])
def test_choice_bad_payloads(payload: dict[str, Any]) -> None:
    with pytest.raises(GradingError) as err:
        grade(choice_q("MAYOR", ["delft", "leiden", "gouda"]), payload)
    assert err.value.field == "option"


# --- category 4: flag, two different colours both in the flag --------------------------------


def test_flag_two_different_colours_both_in_flag() -> None:
    q = flag_q(["red", "white", "black"])  # Amsterdam
    assert grade(q, {"colours": ["red", "black"]}).correct
    assert grade(q, {"colours": ["Zwart", "wit"]}).correct  # Dutch, any case
    assert not grade(q, {"colours": ["red", "blue"]}).correct
    assert grade(q, {"colours": ["rood", "zwart"]}).reveal["given"] == {"colours": ["red", "black"]}


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"colours": ["red"]},
        {"colours": ["red", "rood"]},
        {"colours": ["red", "plaid"]},
        {"colours": "red"},
    ],
)
def test_flag_bad_payloads(payload: dict[str, Any]) -> None:
    with pytest.raises(GradingError) as err:
        grade(flag_q(["red", "white"]), payload)
    assert err.value.field == "colours"


# --- shapes ----------------------------------------------------------------------------------


def test_public_question_hides_key_and_reveal() -> None:
    q = choice_q("MAYOR", ["delft", "leiden", "gouda"])
    pub = public_question(q)
    assert "key" not in pub and "reveal" not in pub
    assert pub["options"] == q["options"] and pub["pack"] == PACK


def test_malformed_question() -> None:
    with pytest.raises(QuestionError):
        grade({"category": "ASTROLOGY", "reveal": {}}, {})
    with pytest.raises(QuestionError):
        grade({"category": "FLAG"}, {"colours": ["red", "white"]})
