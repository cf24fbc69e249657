"""Grading of a served question (cityhopper.md section 4) and its public view.

A *served question* is a JSON object that carries its own answer key, so grading needs nothing
else::

    {
      "id": str,                  # unique per pack; generated ones start with "gen:". A drawn
                                  # question is served under an opaque id instead and this source
                                  # id moves to reveal.source_id (questions.conceal)
      "category": "ROAD_DISTANCE" | "CITY_PHOTOS" | "INHABITANTS" | "FLAG" | "FACTS" | "MAYOR",
      "city": str,                # place id of the arrival city A
      "prompt": str,
      "format": "distance" | "choice" | "true_false" | "colours",
      "options": [ {"id": str, "text": str, "city": str | None, "media": Media | None}, ... ],
      "yellow_city": str,         # ROAD_DISTANCE only: the yellow card Y
      "palette": [str, ...],      # FLAG only: the colours a player may enter
      "key": {...},               # secret, see below
      "reveal": {...},            # secret until answered, see below
      "pack": {"id": str, "version": str, "hash": str} | None   # None for generated questions
    }
    Media = {"src": str (https URL or file path inside the pack), "licence": str, "attribution": str}

Key, reveal and answer payload per category (die face in brackets):

- ROAD_DISTANCE (1): key ``{"km": float}``; reveal ``{"km", "lower_km", "upper_km", "route":
  Route.to_dict()}``; answer ``{"km": number}`` (no answer needed when Y = A).
- CITY_PHOTOS (2) and MAYOR (6): key ``{"option": id}``; reveal ``{"answer": id, "cities":
  {option id: city id}}``; answer ``{"option": id}``.
- INHABITANTS (3): key ``{"option": id}``; reveal ``{"answer": id, "population": int | None,
  "info": str}``; answer ``{"option": id}``.
- FLAG (4): key ``{"colours": [colour, ...]}``; reveal ``{"colours": [...], "flag": Media | None,
  "info": str}``; answer ``{"colours": [colour, colour]}``.
- FACTS (5): key ``{"option": id}``; reveal ``{"answer": id, "info": str}``; answer
  ``{"option": id}``.

Correct when: distance ``|guess - exact| <= 0.15 * exact`` (inclusive, exact decimal arithmetic),
and at once without input when Y = A; a choice when the picked option is the key; a flag when
the two entered colours are different and both occur in A's flag. A FACTS statement uses the
options ``true``/``false`` (``format`` ``true_false``), a FACTS question with choices ``choice``.

``grade`` raises ``GradingError(field, message)`` for an answer it cannot grade (missing field,
unknown option, not a number, two equal or unknown colours) and ``QuestionError`` for a question
without the documented shape. The returned reveal is the question's reveal plus ``given`` (the
normalised answer).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from .errors import GradingError, QuestionError
from .roads import DISTANCE_MARGIN, decimal_km

ROAD_DISTANCE: Final = "ROAD_DISTANCE"
CITY_PHOTOS: Final = "CITY_PHOTOS"
INHABITANTS: Final = "INHABITANTS"
FLAG: Final = "FLAG"
FACTS: Final = "FACTS"
MAYOR: Final = "MAYOR"

CATEGORY_BY_DIE: Mapping[int, str] = {
    1: ROAD_DISTANCE,
    2: CITY_PHOTOS,
    3: INHABITANTS,
    4: FLAG,
    5: FACTS,
    6: MAYOR,
}
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_BY_DIE.values())
CHOICE_CATEGORIES: frozenset[str] = frozenset({CITY_PHOTOS, INHABITANTS, FACTS, MAYOR})

SECRET_FIELDS: frozenset[str] = frozenset({"key", "reveal"})

COLOURS: tuple[str, ...] = (
    "red",
    "white",
    "black",
    "blue",
    "yellow",
    "green",
    "orange",
    "purple",
    "grey",
    "brown",
    "pink",
)
"""The canonical flag colours (English). Heraldic gold counts as yellow and silver as white."""

COLOUR_ALIASES: Mapping[str, str] = {
    **{c: c for c in COLOURS},
    "rood": "red",
    "wit": "white",
    "zwart": "black",
    "blauw": "blue",
    "geel": "yellow",
    "groen": "green",
    "oranje": "orange",
    "paars": "purple",
    "grijs": "grey",
    "gray": "grey",
    "bruin": "brown",
    "roze": "pink",
    "gold": "yellow",
    "goud": "yellow",
    "silver": "white",
    "zilver": "white",
}
"""Accepted spellings (English, Dutch, heraldic metals), case-insensitive."""

_NUMBER = re.compile(r"^\s*\d+(?:[.,]\d+)?\s*$")


@dataclass(frozen=True)
class Grade:
    """The outcome the engine records: ``correct`` and what to show afterwards (``reveal``)."""

    correct: bool
    reveal: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "reveal": self.reveal}


def normalise_colour(value: object, field: str = "colours") -> str:
    """The canonical colour for an accepted spelling; ``GradingError`` otherwise."""
    if not isinstance(value, str):
        raise GradingError(field, "a colour must be a string")
    colour = COLOUR_ALIASES.get(value.strip().lower())
    if colour is None:
        raise GradingError(field, f"unknown colour {value!r}; use one of {', '.join(COLOURS)}")
    return colour


def public_question(question: Mapping[str, Any]) -> dict[str, Any]:
    """The question as a player may see it before answering: everything but ``key`` and ``reveal``."""
    return {k: v for k, v in question.items() if k not in SECRET_FIELDS}


def grade(question: Mapping[str, Any], answer: Mapping[str, Any]) -> Grade:
    """Grade ``answer`` against ``question`` (shapes in the module docstring)."""
    category = question.get("category")
    reveal = _mapping(question, "reveal")
    if category == ROAD_DISTANCE:
        return _grade_distance(question, answer, reveal)
    if not isinstance(answer, Mapping):
        raise GradingError("answer", "the answer must be a JSON object")
    if category == FLAG:
        return _grade_flag(question, answer, reveal)
    if category in CHOICE_CATEGORIES:
        return _grade_choice(question, answer, reveal)
    raise QuestionError(f"question {question.get('id')!r}: unknown category {category!r}")


def _mapping(question: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = question.get(name)
    if not isinstance(value, Mapping):
        raise QuestionError(f"question {question.get('id')!r}: {name!r} must be an object")
    return value


def _grade_distance(
    question: Mapping[str, Any], answer: Mapping[str, Any], reveal: Mapping[str, Any]
) -> Grade:
    key = _mapping(question, "key")
    city, yellow = question.get("city"), question.get("yellow_city")
    if not isinstance(city, str) or not isinstance(yellow, str):
        raise QuestionError(f"question {question.get('id')!r}: needs 'city' and 'yellow_city'")
    if city == yellow:  # section 4 / E15: Y = A is correct at once, with no input
        return Grade(True, {**reveal, "given": None})
    try:
        exact = decimal_km(key["km"])
    except (KeyError, TypeError, InvalidOperation) as exc:
        raise QuestionError(f"question {question.get('id')!r}: key.km must be a number") from exc
    if not isinstance(answer, Mapping):
        raise GradingError("answer", "the answer must be a JSON object")
    guess = _parse_km(answer.get("km"))
    correct = abs(guess - exact) <= DISTANCE_MARGIN * exact
    return Grade(correct, {**reveal, "given": {"km": float(guess)}})


def _parse_km(value: object) -> Decimal:
    if value is None:
        raise GradingError("km", "a distance in km is required")
    if isinstance(value, bool):
        raise GradingError("km", "must be a number of km")
    if isinstance(value, int):
        guess = Decimal(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise GradingError("km", "must be a finite number")
        guess = Decimal(repr(value))
    elif isinstance(value, str) and _NUMBER.match(value):
        guess = Decimal(value.strip().replace(",", "."))
    else:
        raise GradingError("km", "must be a number of km")
    if guess < 0:
        raise GradingError("km", "must not be negative")
    return guess


def _grade_flag(question: Mapping[str, Any], answer: Mapping[str, Any], reveal: Mapping[str, Any]) -> Grade:
    key = _mapping(question, "key")
    key_colours = key.get("colours")
    if not isinstance(key_colours, list) or not key_colours:
        raise QuestionError(f"question {question.get('id')!r}: key.colours must be a non-empty list")
    flag = {COLOUR_ALIASES.get(str(c).strip().lower(), str(c)) for c in key_colours}
    given = answer.get("colours")
    if not isinstance(given, list | tuple) or len(given) != 2:
        raise GradingError("colours", "enter exactly two colours")
    first, second = (normalise_colour(c) for c in given)
    if first == second:
        raise GradingError("colours", "the two colours must be different")
    correct = first in flag and second in flag
    return Grade(correct, {**reveal, "given": {"colours": [first, second]}})


def _grade_choice(question: Mapping[str, Any], answer: Mapping[str, Any], reveal: Mapping[str, Any]) -> Grade:
    key = _mapping(question, "key")
    options = question.get("options")
    if not isinstance(options, list) or not options:
        raise QuestionError(f"question {question.get('id')!r}: options must be a non-empty list")
    ids = [o.get("id") for o in options if isinstance(o, Mapping)]
    right = key.get("option")
    if right not in ids:
        raise QuestionError(f"question {question.get('id')!r}: key.option is not one of the options")
    picked = answer.get("option")
    if not isinstance(picked, str):
        raise GradingError("option", "pick one option by its id")
    if picked not in ids:
        raise GradingError("option", f"unknown option {picked!r}")
    return Grade(picked == right, {**reveal, "given": {"option": picked}})
