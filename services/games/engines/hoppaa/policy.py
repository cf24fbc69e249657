"""A sensible-move policy for HopPaa self-play (not rules: it only narrows legal moves).

Uniformly random HopPaa play never ends: a random bid is made about one round in seven, and
every miss sends a pawn back, so the pawns hover around the start for thousands of rounds. Self-play
therefore picks at random among the moves a sensible player would consider (bid what the hand is
worth, try to win exactly that many tricks, move pawns towards 35); every move is still a legal
move that goes through ``decide`` and ``evolve``. The narrowing functions take plain inputs (a
hand, a track, the trick so far), so the bots' ``random`` level (``services/bots/domain/hoppaa_sensible``)
applies the same ones to a seat's view.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from services.games.engines.base import Move
from services.games.engines.hoppaa.cards import NO_TRUMP, suit_of, trick_winner, value_of
from services.games.engines.hoppaa.rules import movable_owner, pending_result, step_options
from services.games.engines.hoppaa.state import HopPaaState
from services.games.engines.hoppaa.track import FINISH, PAWN_NAMES, land_back, land_forward


def estimate_tricks(hand: list[str], trump: str, players: int) -> int:
    """The tricks ``hand`` is worth with ``trump`` (``NO_TRUMP`` for none)."""
    high = sum(1 for c in hand if value_of(c) >= 9 and suit_of(c) != trump)
    trumps = [c for c in hand if suit_of(c) == trump]
    strong_trumps = sum(1 for c in trumps if value_of(c) >= 6)
    raw = high + strong_trumps + max(0, len(trumps) - 4)
    if players == 2:
        return raw + 2
    return round(0.7 * raw + 0.3)  # calibrated on guided games: raw overestimates the tricks


def best(options: list[Move], score: list[float]) -> list[Move]:
    """The options with the top score."""
    top = max(score)
    return [m for m, s in zip(options, score, strict=True) if s == top]


def finishing_bids(track: list[int] | None, white: bool) -> set[int]:
    """The bids whose step options take a pawn of ``track`` (the owner's pawns; None: no pawn left to
    move) exactly to the finish; ``white``: the white pawn's extra options are the bidder's."""
    if track is None:
        return set()
    out = set()
    for b in range(1, 10):
        for pos in track:
            if pos != FINISH and any(pos + s == FINISH for s in step_options(b, white)):
                out.add(b)
    return out


def bid_choices(legal: list[Move], hand: list[str], players: int, trump: str | None,
                finishing: set[int]) -> list[Move]:
    """The bids a sensible player considers: with a trump to choose, only its longest suits; the bid
    nearest the hand's estimate, a bid that can finish a pawn worth 1.5 tricks more. ``trump``: the
    trump already chosen (None: no trump) when the moves choose none."""
    chosen = trump or NO_TRUMP
    if "trump" in legal[0]:
        counts = Counter(suit_of(c) for c in hand)
        trumps = {m["trump"] for m in legal} - {NO_TRUMP}
        if not trumps:
            est = {NO_TRUMP: estimate_tricks(hand, NO_TRUMP, players)}
        else:
            longest = max(counts.get(s, 0) for s in trumps)
            trump_ok = {s for s in trumps if counts.get(s, 0) == longest}
            legal = [m for m in legal if m["trump"] in trump_ok]
            est = {t: estimate_tricks(hand, t, players) for t in trump_ok}
    else:
        est = {chosen: estimate_tricks(hand, chosen, players)}
    score = []
    for m in legal:
        target = est.get(m.get("trump", chosen), next(iter(est.values())))
        score.append((1.5 if m["n"] in finishing else 0.0) - abs(m["n"] - max(1, target)))
    return best(legal, score)


def discard_choices(legal: list[Move]) -> list[Move]:
    """The lowest cards to discard."""
    low = min(value_of(m["card"]) for m in legal)
    return [m for m in legal if value_of(m["card"]) == low]


def card_choices(legal: list[Move], seat: int, need: int, trump: str | None,
                 on_table: Sequence[tuple[int, str]]) -> list[Move]:
    """The cards a sensible player considers: ``need`` tricks still to win (bid minus won), the trick's
    (seat, card) so far. Leading: the strongest when tricks are needed, else the weakest; following:
    win as cheaply as possible when needed, else lose with the strongest card that loses."""
    trump = trump or NO_TRUMP
    strength = [value_of(m["card"]) + (10 if suit_of(m["card"]) == trump else 0) for m in legal]
    if not on_table:
        return best(legal, [float(s if need > 0 else -s) for s in strength])
    wins = [trick_winner([*on_table, (seat, m["card"])], trump) == seat for m in legal]
    if need > 0:
        if any(wins):  # win as cheaply as possible
            return best(legal, [(-s if w else -100.0) for s, w in zip(strength, wins, strict=True)])
        return best(legal, [float(-s) for s in strength])
    if not all(wins):
        return best(legal, [(float(s) if not w else -100.0) for s, w in zip(strength, wins, strict=True)])
    return best(legal, [float(-s) for s in strength])


def forward_choices(legal: list[Move], track: list[int]) -> list[Move]:
    """The pawn moves that go furthest on ``track`` (the finish first, minus what a knocked-off pawn
    loses); declining last."""
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
    return best(legal, score)


def penalty_choices(legal: list[Move], track: list[int], penalty: int) -> list[Move]:
    """The pawns whose ``penalty`` steps back lose the least on ``track``."""
    score = []
    for m in legal:
        landing = land_back(track, PAWN_NAMES.index(m["pawn"]), penalty)
        loss = landing.start - landing.end
        if landing.knocked_off is not None:
            loss += track[landing.knocked_off]
        score.append(float(-loss))
    return best(legal, score)


class SensiblePlayer:
    """Narrows legal moves to those a sensible player would consider."""

    def moves(self, state: HopPaaState, seat: int, legal: list[Move]) -> list[Move]:
        if len(legal) <= 1:
            return legal
        kind = legal[0]["type"]
        if kind == "bid":
            owner = movable_owner(state, seat)
            white = state.white_used is True and state.white_offer == seat
            finishing = finishing_bids(None if owner is None else state.pawns[owner], white)
            return bid_choices(legal, state.hands[seat], state.num_players, state.trump, finishing)
        if kind == "discard":
            return discard_choices(legal)
        if kind == "play_card":
            need = (state.bids[seat] or 0) - state.tricks_won[seat]
            return card_choices(legal, seat, need, state.trump, state.trick)
        if kind not in ("choose_pawn_move", "decline_move", "choose_penalty_pawn"):
            return legal
        pending = pending_result(state)
        assert pending is not None and pending.owner is not None
        if kind == "choose_penalty_pawn":
            return penalty_choices(legal, state.pawns[pending.owner], pending.penalty)
        return forward_choices(legal, state.pawns[pending.owner])
