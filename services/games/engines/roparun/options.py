"""Options of ROPARUN: the configurable Rulings and the board size (spec §4, §5, §7)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from services.games.engines.base import InvalidOptions
from services.games.engines.roparun.board import Board, default_sections

DEFAULTS: dict[str, Any] = {
    "section_length": 16,
    "sections": 4,
    "seat_section": None,
    "seven_max_pawns": 4,
    "obligation": "at_least_one",
    "dealer_rotation": "per_deck",
    "first_dealer": None,
}

MAX_SECTION_LENGTH = 64
MAX_SECTIONS = 12


def schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "section_length": {
                "type": "integer",
                "minimum": 8,
                "maximum": MAX_SECTION_LENGTH,
                "default": 16,
                "description": "B-1 / R32: squares per board section S (S >= 8); N = sections x S.",
            },
            "sections": {
                "type": "integer",
                "minimum": 2,
                "maximum": MAX_SECTIONS,
                "default": 4,
                "description": "B-1 / R32: number of board sections M (M >= number of players).",
            },
            "seat_section": {
                "type": ["array", "null"],
                "items": {"type": "integer", "minimum": 0},
                "default": None,
                "description": "B-2: section of each seat, distinct and increasing with the seat; "
                "null = spec default (2 players: 0 and M/2, else 0 ... n-1).",
            },
            "seven_max_pawns": {
                "type": "integer",
                "minimum": 1,
                "maximum": 4,
                "default": 4,
                "description": "RR-21 / R13: a 7 may be split over at most this many pawns (seed table: 2).",
            },
            "obligation": {
                "type": "string",
                "enum": ["at_least_one", "while_possible"],
                "default": "at_least_one",
                "description": "RR-11 / R2: at_least_one = play at least one card if possible, then "
                "you may end the turn; while_possible = keep playing while a legal play exists.",
            },
            "dealer_rotation": {
                "type": "string",
                "enum": ["per_deck", "per_deal"],
                "default": "per_deck",
                "description": "RR-8 / R7: per_deck = the dealer passes left when the stock runs out; "
                "per_deal = after every deal (stock continues, reshuffle when empty).",
            },
            "first_dealer": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 3,
                "default": None,
                "description": "RR-4 / R12: a fixed first dealer seat; null = the dealer draw.",
            },
        },
        "additionalProperties": False,
    }


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def normalize(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    if not _int(num_players) or num_players not in (2, 3, 4):
        raise InvalidOptions("num_players", "ROPARUN takes 2 to 4 players (one team each)", "RR-1")
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise InvalidOptions(unknown[0], "unknown option")
    out = {**DEFAULTS, **options}
    s = out["section_length"]
    if not _int(s) or not 8 <= s <= MAX_SECTION_LENGTH:
        raise InvalidOptions("section_length", f"must be an integer from 8 to {MAX_SECTION_LENGTH}", "B-1")
    m = out["sections"]
    if not _int(m) or not num_players <= m <= MAX_SECTIONS:
        raise InvalidOptions(
            "sections", f"must be an integer from the number of players to {MAX_SECTIONS}", "B-1"
        )
    seats = out["seat_section"]
    if seats is None:
        seats = default_sections(num_players, m)
    if (
        not isinstance(seats, list | tuple)
        or len(seats) != num_players
        or not all(_int(x) and 0 <= x < m for x in seats)
        or any(a >= b for a, b in pairwise(seats))
    ):
        raise InvalidOptions(
            "seat_section", "one section per seat, distinct, increasing with the seat, below sections", "B-2"
        )
    out["seat_section"] = list(seats)
    k = out["seven_max_pawns"]
    if not _int(k) or not 1 <= k <= 4:
        raise InvalidOptions("seven_max_pawns", "must be an integer from 1 to 4", "RR-21")
    if out["obligation"] not in ("at_least_one", "while_possible"):
        raise InvalidOptions("obligation", "must be at_least_one or while_possible", "RR-11")
    if out["dealer_rotation"] not in ("per_deck", "per_deal"):
        raise InvalidOptions("dealer_rotation", "must be per_deck or per_deal", "RR-8")
    first = out["first_dealer"]
    if first is not None and (not _int(first) or not 0 <= first < num_players):
        raise InvalidOptions("first_dealer", "must be null or a seat number", "RR-4")
    return out


def board_of(num_players: int, options: Mapping[str, Any]) -> Board:
    m = int(options["sections"])
    seats = options.get("seat_section") or default_sections(num_players, m)
    return Board(int(options["section_length"]), m, tuple(int(x) for x in seats))
