"""Table configuration and options (spec section 2, HP-R6, HP-R7, HP-R9, HP-R12, HP-R22)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import GameConfig, InvalidOptions

from .state import BEFORE_FIRST_BID, BEFORE_OWN_BID, Table

PLAYER_COUNTS = (2, 3, 4)
SOLO = "solo"
TEAM = "team"

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "mode": {
            "type": "string",
            "enum": [SOLO, TEAM],
            "default": SOLO,
            "description": "solo, or team: 2 v 2 with seats 0+2 and 1+3 as partners; needs 4 players "
            "(section 2, HP-43, HP-47).",
        },
        "pawns_per_player": {
            "type": "integer",
            "enum": [2, 1],
            "default": 2,
            "description": "2 pawns (green and red), or 1: the quick version with the green pawn only, "
            "allowed with every variant (section 2, HP-R22).",
        },
        "age_rank": {
            "type": ["array", "null"],
            "items": {"type": "integer", "minimum": 1},
            "default": None,
            "description": "Age rank per seat, distinct integers, lowest = youngest; decides the white "
            "pawn in round 1 and its ties (HP-8, HP-R7, HP-R8). Default (null): seat i has rank i+1.",
        },
        "first_dealer": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Seat that deals round 1 (HP-2, HP-R6).",
        },
        "white_pawn_timing": {
            "type": "string",
            "enum": [BEFORE_FIRST_BID, BEFORE_OWN_BID],
            "default": BEFORE_FIRST_BID,
            "description": "When the offered player takes or declines the white pawn: after the deal "
            "before the first bid, or at his own turn before his bid (HP-10, HP-R9).",
        },
        "forward_move_optional": {
            "type": "boolean",
            "default": False,
            "description": "If true a player who made his bid may decline his forward move "
            "(decline_move); by default a legal forward move is compulsory (HP-35, HP-R12).",
        },
    },
    "additionalProperties": False,
}


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def normalize(num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    if num_players not in PLAYER_COUNTS:
        raise InvalidOptions("num_players", "HopPaa is played by 2, 3 or 4 players", "HP-1")
    if not isinstance(options, Mapping):
        raise InvalidOptions("options", "options must be an object")
    unknown = sorted(set(options) - set(OPTIONS_SCHEMA["properties"]))
    if unknown:
        raise InvalidOptions(unknown[0], f"unknown option {unknown[0]!r}")
    mode = options.get("mode", SOLO)
    if mode not in (SOLO, TEAM):
        raise InvalidOptions("mode", "mode must be 'solo' or 'team'", "HP-43")
    if mode == TEAM and num_players != 4:
        raise InvalidOptions("mode", "the team game needs exactly 4 players", "HP-47")
    pawns = options.get("pawns_per_player", 2)
    if not _int(pawns) or pawns not in (1, 2):
        raise InvalidOptions("pawns_per_player", "pawns_per_player must be 2, or 1 for the quick version")
    age = options.get("age_rank")
    if age is None:
        age = list(range(1, num_players + 1))
    if (
        not isinstance(age, list | tuple)
        or len(age) != num_players
        or not all(_int(a) and a >= 1 for a in age)
        or len(set(age)) != num_players
    ):
        raise InvalidOptions(
            "age_rank", "age_rank needs one distinct positive whole number per seat (1 = youngest)", "HP-R7"
        )
    dealer = options.get("first_dealer", 0)
    if not _int(dealer) or not 0 <= dealer < num_players:
        raise InvalidOptions("first_dealer", "first_dealer must be a seat number", "HP-R6")
    timing = options.get("white_pawn_timing", BEFORE_FIRST_BID)
    if timing not in (BEFORE_FIRST_BID, BEFORE_OWN_BID):
        raise InvalidOptions(
            "white_pawn_timing", "white_pawn_timing must be before_first_bid or before_own_bid", "HP-R9"
        )
    optional = options.get("forward_move_optional", False)
    if not isinstance(optional, bool):
        raise InvalidOptions("forward_move_optional", "forward_move_optional must be true or false", "HP-R12")
    return {
        "mode": mode,
        "pawns_per_player": pawns,
        "age_rank": list(age),
        "first_dealer": dealer,
        "white_pawn_timing": timing,
        "forward_move_optional": optional,
    }


def table_of(config: GameConfig) -> Table:
    opts = normalize(config.num_players, config.options)
    return Table(
        num_players=config.num_players,
        team=opts["mode"] == TEAM,
        pawns_per_player=opts["pawns_per_player"],
        age_rank=tuple(opts["age_rank"]),
        first_dealer=opts["first_dealer"],
        white_pawn_timing=opts["white_pawn_timing"],
        forward_move_optional=opts["forward_move_optional"],
    )


def variants() -> list[GameConfig]:
    """Solo 2/3/4, team 2 v 2, and the quick one-pawn version of each."""
    out: list[GameConfig] = []
    for pawns in (2, 1):
        for n in PLAYER_COUNTS:
            out.append(GameConfig(n, normalize(n, {"pawns_per_player": pawns})))
        out.append(GameConfig(4, normalize(4, {"mode": TEAM, "pawns_per_player": pawns})))
    return out
