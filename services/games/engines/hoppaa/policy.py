"""A sensible-move policy for HopPaa self-play (not rules: it only narrows legal moves).

Uniformly random HopPaa play never ends: a random bid is made about one round in seven, and
every miss sends a pawn back, so the pawns hover around the start for thousands of rounds. Self-play
therefore picks at random among the moves a sensible player would consider (bid what the hand is
worth, try to win exactly that many tricks, move pawns towards 35); every move is still a legal
move that goes through ``decide`` and ``evolve``.
"""

from __future__ import annotations

from collections import Counter

from services.games.engines.base import Move
from services.games.engines.hoppaa.cards import NO_TRUMP, suit_of, trick_winner, value_of
from services.games.engines.hoppaa.rules import led_suit, movable_owner, pending_result, step_options
from services.games.engines.hoppaa.state import HopPaaState
from services.games.engines.hoppaa.track import FINISH, PAWN_NAMES, land_back, land_forward


def _estimate(hand: list[str], trump: str, players: int = 4) -> int:
    high = sum(1 for c in hand if value_of(c) >= 9 and suit_of(c) != trump)
    trumps = [c for c in hand if suit_of(c) == trump]
    strong_trumps = sum(1 for c in trumps if value_of(c) >= 6)
    raw = high + strong_trumps + max(0, len(trumps) - 4)
    if players == 2:
        return raw + 2
    return round(0.7 * raw + 0.3)  # calibrated on guided games: raw overestimates the tricks


def _best(options: list[Move], score: list[float]) -> list[Move]:
    top = max(score)
    return [m for m, s in zip(options, score, strict=True) if s == top]


class SensiblePlayer:
    """Narrows legal moves to those a sensible player would consider."""

    def moves(self, state: HopPaaState, seat: int, legal: list[Move]) -> list[Move]:
        if len(legal) <= 1:
            return legal
        kind = legal[0]["type"]
        if kind == "bid":
            return self._bids(state, seat, legal)
        if kind == "discard":
            low = min(value_of(m["card"]) for m in legal)
            return [m for m in legal if value_of(m["card"]) == low]
        if kind == "play_card":
            return self._cards(state, seat, legal)
        if kind in ("choose_pawn_move", "decline_move"):
            return self._forward(state, legal)
        if kind == "choose_penalty_pawn":
            return self._penalty(state, legal)
        return legal

    def _finishing_bids(self, state: HopPaaState, seat: int) -> set[int]:
        owner = movable_owner(state, seat)
        if owner is None:
            return set()
        white = state.white_used is True and state.white_offer == seat
        out = set()
        for b in range(1, 10):
            for pos in state.pawns[owner]:
                if pos != FINISH and any(pos + s == FINISH for s in step_options(b, white)):
                    out.add(b)
        return out

    def _bids(self, state: HopPaaState, seat: int, legal: list[Move]) -> list[Move]:
        hand = state.hands[seat]
        if "trump" in legal[0]:
            counts = Counter(suit_of(c) for c in hand)
            trumps = {m["trump"] for m in legal} - {NO_TRUMP}
            longest = max(counts.get(s, 0) for s in trumps)
            trump_ok = {s for s in trumps if counts.get(s, 0) == longest}
            legal = [m for m in legal if m["trump"] in trump_ok]
            est = {t: _estimate(hand, t, state.num_players) for t in trump_ok}
        else:
            est = {state.trump: _estimate(hand, state.trump or NO_TRUMP, state.num_players)}
        finishing = self._finishing_bids(state, seat)
        score = []
        for m in legal:
            target = est[m.get("trump", state.trump)]
            dist = abs(m["n"] - max(1, target))
            bonus = 1.5 if m["n"] in finishing else 0.0
            score.append(bonus - dist)
        return _best(legal, score)

    def _cards(self, state: HopPaaState, seat: int, legal: list[Move]) -> list[Move]:
        need = (state.bids[seat] or 0) - state.tricks_won[seat]
        trump = state.trump or NO_TRUMP
        if led_suit(state) is None:
            values = [value_of(m["card"]) + (10 if suit_of(m["card"]) == trump else 0) for m in legal]
            return _best(legal, [float(v if need > 0 else -v) for v in values])
        wins = [trick_winner([*state.trick, (seat, m["card"])], trump) == seat for m in legal]
        strength = [value_of(m["card"]) + (10 if suit_of(m["card"]) == trump else 0) for m in legal]
        if need > 0:
            if any(wins):
                # win as cheaply as possible
                return _best(legal, [(-s if w else -100.0) for s, w in zip(strength, wins, strict=True)])
            return _best(legal, [float(-s) for s in strength])
        if not all(wins):
            return _best(
                legal, [(float(s) if not w else -100.0) for s, w in zip(strength, wins, strict=True)]
            )
        return _best(legal, [float(-s) for s in strength])

    def _forward(self, state: HopPaaState, legal: list[Move]) -> list[Move]:
        pending = pending_result(state)
        assert pending is not None and pending.owner is not None
        track = state.pawns[pending.owner]
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

    def _penalty(self, state: HopPaaState, legal: list[Move]) -> list[Move]:
        pending = pending_result(state)
        assert pending is not None and pending.owner is not None
        track = state.pawns[pending.owner]
        score = []
        for m in legal:
            landing = land_back(track, PAWN_NAMES.index(m["pawn"]), pending.penalty)
            loss = landing.start - landing.end
            if landing.knocked_off is not None:
                loss += track[landing.knocked_off]
            score.append(float(-loss))
        return _best(legal, score)
