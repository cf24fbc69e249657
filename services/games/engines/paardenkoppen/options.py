"""Options of Paardenkoppen: the configurable Rulings of the spec with their defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import InvalidOptions

PLAYER_COUNTS: tuple[int, ...] = (3, 4, 5, 6)
MAX_ROUNDS = 200

END_MODES = ("fixed_rounds", "until_cannot_ante")
TIE_RULES = ("share", "play_on")
SIX_RULES = ("no_pass", "immediate")

DEFAULTS: dict[str, Any] = {
    "end_mode": "fixed_rounds",
    "rounds": 10,
    "tie_rule": "share",
    "six_rule": "no_pass",
    "first_start_player": None,
}


def options_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "end_mode": {
                "type": "string",
                "enum": list(END_MODES),
                "default": "fixed_rounds",
                "description": "PK-21: 'fixed_rounds' ends after `rounds` rounds; 'until_cannot_ante' "
                "plays until a player cannot ante 20 at a round start (R5).",
            },
            "rounds": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_ROUNDS,
                "default": 10,
                "description": "PK-21 / R6: number of rounds in 'fixed_rounds' mode (advised: 10).",
            },
            "tie_rule": {
                "type": "string",
                "enum": list(TIE_RULES),
                "default": "share",
                "description": "PK-23 / R7: 'share' - all players tied for the highest balance win; "
                "'play_on' - extra rounds until exactly one player has the highest balance.",
            },
            "six_rule": {
                "type": "string",
                "enum": list(SIX_RULES),
                "default": "no_pass",
                "description": "PK-15 / R3: 'no_pass' - a 6 of an empty row only forbids passing; "
                "'immediate' - a player holding such a 6 must play a 6 of an empty row this turn.",
            },
            "first_start_player": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": 5,
                "default": None,
                "description": "PK-5 / R9: seat of the first start player; null = a recorded random draw.",
            },
        },
        "additionalProperties": False,
    }


def _choice(options: Mapping[str, Any], name: str, allowed: tuple[str, ...], rule: str) -> str:
    value = options.get(name, DEFAULTS[name])
    if value not in allowed:
        raise InvalidOptions(name, f"must be one of {', '.join(allowed)}", rule)
    return str(value)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def normalize_options(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    if not _int(num_players) or num_players not in PLAYER_COUNTS:
        raise InvalidOptions("num_players", "Paardenkoppen is for 3 to 6 players", "PK-1")
    if not isinstance(options, Mapping):
        raise InvalidOptions("options", "options must be an object")
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise InvalidOptions(str(unknown[0]), "unknown option")
    rounds = options.get("rounds", DEFAULTS["rounds"])
    if not _int(rounds) or not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidOptions("rounds", f"must be an integer from 1 to {MAX_ROUNDS}", "PK-21")
    start = options.get("first_start_player", None)
    if start is not None and (not _int(start) or not 0 <= start < num_players):
        raise InvalidOptions(
            "first_start_player", f"must be null or a seat from 0 to {num_players - 1}", "PK-5"
        )
    return {
        "end_mode": _choice(options, "end_mode", END_MODES, "PK-21"),
        "rounds": rounds,
        "tie_rule": _choice(options, "tie_rule", TIE_RULES, "PK-23"),
        "six_rule": _choice(options, "six_rule", SIX_RULES, "PK-15"),
        "first_start_player": start,
    }
