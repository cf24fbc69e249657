"""HopPaa's ``random`` level: uniform among the moves a sensible player would consider.

Uniformly random HopPaa never ends (see ``services.games.engines.hoppaa.policy``), so the ``random``
bot narrows the listed moves exactly as self-play's ``SensiblePlayer`` does, but from the seat's view
(its own hand, the bids, tricks won, the trick on the table, the pawns and ``scoring``) instead of
the full state, then picks uniformly among them. Every returned move is one of the listed moves.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from services.bots.domain.budget import Budget
from services.games.engines.hoppaa.cards import NO_TRUMP, suit_of, trick_winner, value_of
from services.games.engines.hoppaa.rules import step_options
from services.games.engines.hoppaa.track import FINISH, PAWN_NAMES, land_back, land_forward

Move = dict[str, Any]


def _estimate(hand: list[str], trump: str, players: int) -> int:
    high = sum(1 for c in hand if value_of(c) >= 9 and suit_of(c) != trump)
    trumps = [c for c in hand if suit_of(c) == trump]
    strong_trumps = sum(1 for c in trumps if value_of(c) >= 6)
    raw = high + strong_trumps + max(0, len(trumps) - 4)
    if players == 2:
        return raw + 2
    return round(0.7 * raw + 0.3)


def _best(options: list[Move], score: list[float]) -> list[Move]:
    top = max(score)
    return [m for m, s in zip(options, score, strict=True) if s == top]


def _tracks(v: dict[str, Any]) -> list[list[int]]:
    return [[p[name] for name in PAWN_NAMES if name in p] for p in v["pawns"]]


def _partner(v: dict[str, Any], seat: int) -> int | None:
    for team in v.get("teams") or []:
        if seat in team:
            others = [s for s in team if s != seat]
            return others[0] if others else None
    return None


def _owner(v: dict[str, Any], seat: int) -> int | None:
    tracks = _tracks(v)
    if any(p != FINISH for p in tracks[seat]):
        return seat
    partner = _partner(v, seat)
    if partner is not None and any(p != FINISH for p in tracks[partner]):
        return partner
    return None


def _finishing_bids(v: dict[str, Any], seat: int) -> set[int]:
    owner = _owner(v, seat)
    if owner is None:
        return set()
    white_pawn = v.get("white_pawn") or {}
    white = white_pawn.get("used") is True and white_pawn.get("offered_to") == seat
    out = set()
    for b in range(1, 10):
        for pos in _tracks(v)[owner]:
            if pos != FINISH and any(pos + s == FINISH for s in step_options(b, white)):
                out.add(b)
    return out


def _bids(v: dict[str, Any], seat: int, legal: list[Move]) -> list[Move]:
    hand: list[str] = v.get("hand") or []
    n = v["num_players"]
    if "trump" in legal[0]:
        counts = Counter(suit_of(c) for c in hand)
        trumps = {m["trump"] for m in legal} - {NO_TRUMP}
        if not trumps:
            est = {NO_TRUMP: _estimate(hand, NO_TRUMP, n)}
        else:
            longest = max(counts.get(s, 0) for s in trumps)
            trump_ok = {s for s in trumps if counts.get(s, 0) == longest}
            legal = [m for m in legal if m["trump"] in trump_ok]
            est = {t: _estimate(hand, t, n) for t in trump_ok}
    else:
        trump = v.get("trump") or NO_TRUMP
        est = {trump: _estimate(hand, trump, n)}
    finishing = _finishing_bids(v, seat)
    score = []
    for m in legal:
        target = est.get(m.get("trump", v.get("trump") or NO_TRUMP), next(iter(est.values())))
        score.append((1.5 if m["n"] in finishing else 0.0) - abs(m["n"] - max(1, target)))
    return _best(legal, score)


def _cards(v: dict[str, Any], seat: int, legal: list[Move]) -> list[Move]:
    need = ((v.get("bids") or [])[seat] or 0) - v["tricks_won"][seat]
    trump = v.get("trump") or NO_TRUMP
    on_table = [(c["seat"], c["card"]) for c in (v.get("trick") or {}).get("cards", [])]
    strength = [value_of(m["card"]) + (10 if suit_of(m["card"]) == trump else 0) for m in legal]
    if not on_table:
        return _best(legal, [float(s if need > 0 else -s) for s in strength])
    wins = [trick_winner([*on_table, (seat, m["card"])], trump) == seat for m in legal]
    if need > 0:
        if any(wins):
            return _best(legal, [(-s if w else -100.0) for s, w in zip(strength, wins, strict=True)])
        return _best(legal, [float(-s) for s in strength])
    if not all(wins):
        return _best(legal, [(float(s) if not w else -100.0) for s, w in zip(strength, wins, strict=True)])
    return _best(legal, [float(-s) for s in strength])


def _scoring_track(v: dict[str, Any]) -> list[int] | None:
    scoring = v.get("scoring")
    if not scoring or scoring.get("owner") is None:
        return None
    return _tracks(v)[scoring["owner"]]


def _forward(v: dict[str, Any], legal: list[Move]) -> list[Move]:
    track = _scoring_track(v)
    if track is None:
        return legal
    score = []
    for m in legal:
        if m["type"] == "decline_move":
            score.append(-50.0)
            continue
        landing = land_forward(track, PAWN_NAMES.index(m["pawn"]), m["steps"])
        s = 100.0 if landing.end == FINISH else float(landing.end - landing.start)
        if landing.knocked_off is not None:
            s -= track[landing.knocked_off]
        score.append(s)
    return _best(legal, score)


def _penalty(v: dict[str, Any], legal: list[Move]) -> list[Move]:
    track = _scoring_track(v)
    if track is None:
        return legal
    penalty = v["scoring"]["penalty"]
    score = []
    for m in legal:
        landing = land_back(track, PAWN_NAMES.index(m["pawn"]), penalty)
        loss = landing.start - landing.end
        if landing.knocked_off is not None:
            loss += track[landing.knocked_off]
        score.append(float(-loss))
    return _best(legal, score)


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
        low = min(value_of(m["card"]) for m in moves)
        return [m for m in moves if value_of(m["card"]) == low]
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
