"""Options schema (R-2) and the move vocabulary (cityhopper.md 3.4).

The table option ``max_turns`` (the length guard's ruling CH-R-LEN: at most 500 turns by default, then the
game is adjudicated on end cities left and money) is added by the games service; see ``length.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import InvalidOptions, MoveDoc
from shared.cityhopper import catalog

STARTING_MONEY = catalog.constants().starting_money_eur
MIN_MONEY, MAX_MONEY = 0, 100


def options_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "starting_money": {
                "type": "integer",
                "minimum": MIN_MONEY,
                "maximum": MAX_MONEY,
                "default": STARTING_MONEY,
                "description": "CH-3 / R-2: euros each player starts with (whole euros, 0-100).",
            }
        },
    }


def normalize_options(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    if num_players not in (2, 3, 4):
        raise InvalidOptions("num_players", "CityHopper is for 2 to 4 players", "CH-1")
    if not isinstance(options, Mapping):
        raise InvalidOptions("options", "options must be an object")
    for key in options:
        if key != "starting_money":
            raise InvalidOptions(str(key), "unknown option; the only option is starting_money")
    money = options.get("starting_money", STARTING_MONEY)
    if isinstance(money, bool) or not isinstance(money, int) or not MIN_MONEY <= money <= MAX_MONEY:
        raise InvalidOptions("starting_money", "a whole number of euros from 0 to 100", "R-2")
    return {"starting_money": money}


_NONE: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
_DECLINE = {"type": "object", "properties": {"decline": {"const": True}}, "required": ["decline"]}


def move_docs() -> list[MoveDoc]:
    return [
        MoveDoc(
            "roll_start",
            "Starting roll with the coloured die; the single highest starts, tied highest re-roll.",
            _NONE,
            {"type": "roll_start"},
            ("CH-8", "R-4"),
        ),
        MoveDoc(
            "roll",
            "Roll the coloured die: its value is stepsRemaining. With no legal first step from a city "
            "a question about that city follows at once (CH-21).",
            _NONE,
            {"type": "roll"},
            ("CH-9", "CH-21", "R-8"),
        ),
        MoveDoc(
            "move",
            "Walk until a city is entered or the steps run out. At a city name the edge (road, dike or "
            "boat); the far city must not be barred and a boat fare must be payable. On a grey square or "
            "an airport square there is no parameter (keep the heading / enter the airport's city).",
            {
                "type": "object",
                "properties": {
                    "edge": {"type": "string", "description": "board.json edge id, at a city only"}
                },
                "additionalProperties": False,
            },
            {"type": "move", "edge": "road:amsterdam--leiden"},
            ("CH-10", "CH-11", "CH-12", "CH-13", "CH-20", "CH-22", "CH-23", "CH-24", "CH-29", "R-31"),
        ),
        MoveDoc(
            "answer",
            'Answer the open question. payload per category: ROAD_DISTANCE (die 1) {"km": number} '
            "(or {} when the yellow card is the arrival city: correct at once); CITY_PHOTOS (2), "
            'INHABITANTS (3), FACTS (5), MAYOR (6) {"option": option id}; FLAG (4) '
            '{"colours": [colour, colour]} (two different colours of the question\'s palette). '
            "Legal moves list answers that never depend on the key: for a distance a fixed ladder of km "
            "guesses (1.0, 1.3, 1.7 ... 705.5, each about 1.3x the last, so one or two are within 15 %; "
            "any other number may be posted), for a choice every option in the order the question "
            "shows it (a drawn order), for a flag every pair of palette colours in a drawn order.",
            {
                "type": "object",
                "properties": {
                    "payload": {
                        "oneOf": [
                            {
                                "type": "object",
                                "properties": {"km": {"type": "number", "minimum": 0}},
                                "required": ["km"],
                            },
                            {
                                "type": "object",
                                "properties": {"option": {"type": "string"}},
                                "required": ["option"],
                            },
                            {
                                "type": "object",
                                "properties": {
                                    "colours": {
                                        "type": "array",
                                        "items": {"type": "string"},
                                        "minItems": 2,
                                        "maxItems": 2,
                                    }
                                },
                                "required": ["colours"],
                            },
                            {"type": "object", "maxProperties": 0},
                        ]
                    }
                },
                "required": ["payload"],
                "additionalProperties": False,
            },
            {"type": "answer", "payload": {"option": "b"}},
            ("CH-14", "CH-15", "CH-16", "CH-42", "CH-43", "CH-44"),
        ),
        MoveDoc(
            "buy_city",
            "In the purchase window: buy an unowned city that is not one of your end cities for EUR 8.",
            {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
            {"type": "buy_city", "city": "hoorn"},
            ("CH-36", "CH-37"),
        ),
        MoveDoc(
            "buy_end_city",
            "In the purchase window: buy one of your end cities (EUR 15; tickets CH-51 to CH-53); from an "
            "opponent it is a takeover paid to them. With an empty supply name one placed house to sell "
            "first (sell_house, +EUR 8).",
            {
                "type": "object",
                "properties": {"city": {"type": "string"}, "sell_house": {"type": "string"}},
                "required": ["city"],
                "additionalProperties": False,
            },
            {"type": "buy_end_city", "city": "tilburg", "sell_house": "hoorn"},
            ("CH-38", "CH-39", "CH-40", "CH-51", "CH-52", "CH-53", "R-23", "R-30"),
        ),
        MoveDoc(
            "buy_flight",
            "In the purchase window at an airport city with 2+ steps left and no free-flight ticket: fly "
            "for EUR 8 to another airport square (2 steps).",
            {
                "type": "object",
                "properties": {"to": {"type": "string"}},
                "required": ["to"],
                "additionalProperties": False,
            },
            {"type": "buy_flight", "to": "airport:maastricht"},
            ("CH-26", "CH-27", "CH-29", "R-10"),
        ),
        MoveDoc(
            "skip_purchase",
            "Close the purchase window without buying.",
            _NONE,
            {"type": "skip_purchase"},
            ("CH-36",),
        ),
        MoveDoc(
            "fly_with_ticket",
            "Spend a free-flight ticket to fly from your airport city (2+ steps left) to another airport square.",
            {
                "type": "object",
                "properties": {"to": {"type": "string"}},
                "required": ["to"],
                "additionalProperties": False,
            },
            {"type": "fly_with_ticket", "to": "airport:groningen"},
            ("CH-28", "CH-49"),
        ),
        MoveDoc(
            "choose_chance",
            "A choice a chance card asks of the awaited seat: K13-K14 offer {opponent, city} or decline, then "
            "the opponent's {city}; K15-K16 the right neighbour's {city, sell_house?} or decline; K17-K18 "
            "{opponent, kind} or decline; K19-K21 {take: true, sell_house?} or decline; K22-K23 {city} or "
            "decline, then {move_house: bool}; K43-K47 with tied routes {route: [city ids]} or {} for the default.",
            {
                "oneOf": [
                    _DECLINE,
                    {
                        "type": "object",
                        "properties": {"opponent": {"type": "integer"}, "city": {"type": "string"}},
                        "required": ["opponent", "city"],
                    },
                    {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "sell_house": {"type": "string"}},
                        "required": ["city"],
                    },
                    {
                        "type": "object",
                        "properties": {"opponent": {"type": "integer"}, "kind": {"type": "string"}},
                        "required": ["opponent", "kind"],
                    },
                    {
                        "type": "object",
                        "properties": {"take": {"const": True}, "sell_house": {"type": "string"}},
                        "required": ["take"],
                    },
                    {
                        "type": "object",
                        "properties": {"move_house": {"type": "boolean"}},
                        "required": ["move_house"],
                    },
                    {
                        "type": "object",
                        "properties": {"route": {"type": "array", "items": {"type": "string"}}},
                    },
                ]
            },
            {"type": "choose_chance", "opponent": 1, "kind": "FREE_FLIGHT"},
            ("CH-54", "CH-55", "CH-56", "CH-40"),
        ),
    ]
