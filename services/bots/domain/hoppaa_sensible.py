"""HopPaa's ``random`` level: uniform among the moves a sensible player would consider.

Uniformly random HopPaa never ends (see ``services.games.engines.hoppaa.policy``), so the ``random``
bot narrows the listed moves exactly as self-play's ``SensiblePlayer`` does, but from the seat's view
(its own hand, the bids, tricks won, the trick on the table, the pawns and ``scoring``) instead of
the full state, then picks uniformly among them. Every returned move is one of the listed moves.
"""

from __future__ import annotations

import random
from typing import Any

from services.bots.domain.budget import Budget
from services.games.engines.hoppaa.policy import (
    bid_choices,
    card_choices,
    discard_choices,
    finishing_bids,
    forward_choices,
    penalty_choices,
)
from services.games.engines.hoppaa.track import FINISH, PAWN_NAMES

Move = dict[str, Any]


def _tracks(v: dict[str, Any]) -> list[list[int]]:
    return [[p[name] for name in PAWN_NAMES if name in p] for p in v["pawns"]]


def _partner(v: dict[str, Any], seat: int) -> int | None:
    for team in v.get("teams") or []:
        if seat in team:
            others = [s for s in team if s != seat]
            return others[0] if others else None
    return None


def _owner(v: dict[str, Any], seat: int) -> int | None:
    """Whose pawns the seat's bid moves: its own while one is not home, else its partner's."""
    tracks = _tracks(v)
    if any(p != FINISH for p in tracks[seat]):
        return seat
    partner = _partner(v, seat)
    if partner is not None and any(p != FINISH for p in tracks[partner]):
        return partner
    return None


def _bids(v: dict[str, Any], seat: int, legal: list[Move]) -> list[Move]:
    owner = _owner(v, seat)
    white_pawn = v.get("white_pawn") or {}
    white = white_pawn.get("used") is True and white_pawn.get("offered_to") == seat
    finishing = finishing_bids(None if owner is None else _tracks(v)[owner], white)
    return bid_choices(legal, v.get("hand") or [], v["num_players"], v.get("trump"), finishing)


def _cards(v: dict[str, Any], seat: int, legal: list[Move]) -> list[Move]:
    need = ((v.get("bids") or [])[seat] or 0) - v["tricks_won"][seat]
    on_table = [(c["seat"], c["card"]) for c in (v.get("trick") or {}).get("cards", [])]
    return card_choices(legal, seat, need, v.get("trump"), on_table)


def _scoring_track(v: dict[str, Any]) -> list[int] | None:
    scoring = v.get("scoring")
    if not scoring or scoring.get("owner") is None:
        return None
    return _tracks(v)[scoring["owner"]]


def _forward(v: dict[str, Any], legal: list[Move]) -> list[Move]:
    track = _scoring_track(v)
    return legal if track is None else forward_choices(legal, track)


def _penalty(v: dict[str, Any], legal: list[Move]) -> list[Move]:
    track = _scoring_track(v)
    return legal if track is None else penalty_choices(legal, track, v["scoring"]["penalty"])


def sensible_moves(view: dict[str, Any], moves: list[Move], seat: int) -> list[Move]:
    """The listed moves a sensible player would consider (never empty for non-empty ``moves``)."""
    if len(moves) <= 1:
        return moves
    v = view.get("view", view)
    kind = moves[0]["type"]
    if any(m["type"] != kind for m in moves) and kind not in ("choose_pawn_move", "decline_move"):
        return moves
    if kind == "bid":
        return _bids(v, seat, moves)
    if kind == "discard":
        return discard_choices(moves)
    if kind == "play_card":
        return _cards(v, seat, moves)
    if kind in ("choose_pawn_move", "decline_move"):
        return _forward(v, moves)
    if kind == "choose_penalty_pawn":
        return _penalty(v, moves)
    return moves


def sensible_random(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    """HopPaa's ``random`` level."""
    narrowed = sensible_moves(view, moves, seat) or moves
    return rng.choice(narrowed)
