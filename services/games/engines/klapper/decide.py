"""Validating Klapper moves and turning them into events (``decide`` and ``legal_moves``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import Event, IllegalMove, Move

from .cards import LAST_TRICK_BONUS, SUITS, name, names, parse, parse_suit, suit_of
from .events import apply
from .melds import MELD_TYPES, MELD_VALUES, Meld, declarations, meld_problem, overlap_problem, total
from .rules import (
    additions,
    deal_points,
    game_winner,
    illegal_card,
    legal_cards,
    playing_side_wins,
    roem_award,
    trick_points,
    trick_winner,
)
from .state import KlapperState

PHASE_RULE = {
    "omboeren": "KL-2",
    "dealing": "KL-6",
    "bidding_1": "KL-10",
    "bidding_2": "KL-12",
    "play": "KL-25",
    "game_over": "KL-39",
}


def meld_json(meld: Meld) -> dict[str, Any]:
    kind, cards = meld
    return {"type": kind, "cards": names(cards)}


def legal_moves(state: KlapperState, seat: int) -> list[Move]:
    if state.pending is not None or state.turn != seat:
        return []
    if state.phase == "bidding_1":
        return [{"type": "bid", "choice": "play"}, {"type": "bid", "choice": "pass"}]
    if state.phase == "bidding_2":
        assert state.turned_card is not None
        turned = suit_of(state.turned_card)
        suits = [s for s in range(4) if state.opts.round2_turned_suit or s != turned]
        return [{"type": "choose_trump", "suit": SUITS[s]} for s in suits] + [{"type": "pass"}]
    if state.phase != "play":
        return []
    assert state.trump is not None
    out: list[Move] = [
        {"type": "play_card", "card": name(c)} for c in legal_cards(state.hands[seat], state.trick, state.trump)
    ]
    if not state.tricks and not state.declared[seat]:
        out += [
            {"type": "declare_roem", "melds": [meld_json(m) for m in pack]}
            for pack in declarations(state.hands[seat], state.trump)
        ]
    return out


def decide(state: KlapperState, seat: int, move: Move) -> list[Event]:
    if not isinstance(move, Mapping):
        raise IllegalMove(PHASE_RULE[state.phase], "malformed_move", "a move is an object with a 'type'")
    if state.phase == "game_over":
        raise IllegalMove("KL-39", "game_over", "the game is over")
    if state.pending is not None:
        raise IllegalMove(PHASE_RULE[state.phase], "dealing", "the cards are being dealt; wait")
    if not isinstance(seat, int) or seat != state.turn:
        raise IllegalMove("KL-1", "not_your_turn", f"it is seat {state.turn}'s turn")
    kind = move.get("type")
    if kind == "bid":
        return _bid(state, seat, move)
    if kind == "choose_trump":
        return _choose_trump(state, seat, move)
    if kind == "pass":
        return _pass(state, seat)
    if kind == "declare_roem":
        return _declare(state, seat, move)
    if kind == "play_card":
        return _play(state, seat, move)
    raise IllegalMove(
        PHASE_RULE[state.phase],
        "unknown_move",
        f"unknown move type {kind!r}: use bid, choose_trump, pass, declare_roem or play_card",
    )


def _bidding_over(state: KlapperState) -> None:
    if state.phase == "play":
        raise IllegalMove("KL-11", "bidding_over", "bidding is over: trump is fixed")


def _speler_fixed(state: KlapperState, seat: int, trump: int, round_: int) -> list[Event]:
    events: list[Event] = [{"type": "SpelerFixed", "speler": seat, "trump": SUITS[trump], "round": round_}]
    if state.n == 2:  # KL-45: the extra cards are taken up once there is a Speler
        events.append({"type": "ExtrasTakenUp", "cards": [names(h) for h in state.extras]})
    return events


def _bid(state: KlapperState, seat: int, move: Move) -> list[Event]:
    _bidding_over(state)
    if state.phase != "bidding_1":
        raise IllegalMove("KL-12", "round_two", "in round 2 you choose a trump suit or pass")
    choice = move.get("choice")
    if choice not in ("play", "pass"):
        raise IllegalMove("KL-10", "bad_choice", "in round 1 you say 'play' or 'pass'")
    events: list[Event] = [{"type": "BidMade", "seat": seat, "round": 1, "bid": choice}]
    if choice == "play":
        assert state.turned_card is not None
        return events + _speler_fixed(state, seat, suit_of(state.turned_card), 1)
    if state.round_passes + 1 == state.n:
        events.append({"type": "SecondRoundStarted"})
    return events


def _choose_trump(state: KlapperState, seat: int, move: Move) -> list[Event]:
    _bidding_over(state)
    if state.phase != "bidding_2":
        raise IllegalMove("KL-10", "round_one", "in round 1 you can only play or pass the proposed suit")
    suit = parse_suit(move.get("suit"))
    if suit is None:
        raise IllegalMove("KL-12", "bad_suit", "name a suit: S, H, D or C")
    assert state.turned_card is not None
    if not state.opts.round2_turned_suit and suit == suit_of(state.turned_card):
        raise IllegalMove(
            "KL-12", "turned_suit_excluded", "this table excludes the proposed suit in round 2 (KL-R5)"
        )
    bid: Event = {"type": "BidMade", "seat": seat, "round": 2, "bid": SUITS[suit]}
    return [bid, *_speler_fixed(state, seat, suit, 2)]


def _pass(state: KlapperState, seat: int) -> list[Event]:
    _bidding_over(state)
    if state.phase != "bidding_2":
        raise IllegalMove("KL-10", "use_bid", "in round 1 pass with bid(choice='pass')")
    events: list[Event] = [{"type": "BidMade", "seat": seat, "round": 2, "bid": "pass"}]
    if state.round_passes + 1 == state.n:  # KL-14: all passed twice, the deal is void
        events.append(
            {"type": "DealVoided", "deal_no": state.deal_no, "next_dealer": state.next_seat(state.dealer)}
        )
    return events


def parse_melds(move: Move) -> list[Meld]:
    raw = move.get("melds")
    if not isinstance(raw, list) or not raw:
        raise IllegalMove("KL-29", "no_melds", "declare a non-empty list of melds")
    melds: list[Meld] = []
    for item in raw:
        if not isinstance(item, Mapping) or item.get("type") not in MELD_TYPES:
            raise IllegalMove(
                "KL-31", "bad_meld", f"each meld is {{type, cards}} with type one of {', '.join(MELD_TYPES)}"
            )
        cards = item.get("cards")
        if not isinstance(cards, list) or not cards:
            raise IllegalMove("KL-31", "bad_meld", "each meld lists its cards")
        parsed = [parse(c) for c in cards]
        if any(c is None for c in parsed):
            raise IllegalMove("KL-31", "unknown_card", f"unknown card in meld: {cards}")
        melds.append((str(item["type"]), tuple(sorted(c for c in parsed if c is not None))))
    return melds


def _declare(state: KlapperState, seat: int, move: Move) -> list[Event]:
    if state.phase != "play" or state.tricks:
        raise IllegalMove("KL-29", "not_first_trick", "roem can be declared only during the first trick")
    if state.declared[seat]:
        raise IllegalMove("KL-29", "already_declared", "you have already declared your roem")
    assert state.trump is not None
    melds = parse_melds(move)
    hand = set(state.hands[seat])
    for meld in melds:
        if not hand.issuperset(meld[1]):
            raise IllegalMove("KL-30", "not_in_hand", "roem is formed only from cards in your own hand")
        problem = meld_problem(meld, state.trump)
        if problem is not None:
            raise IllegalMove(problem[0], "invalid_meld", problem[1])
    overlap = overlap_problem(melds)
    if overlap is not None:
        raise IllegalMove("KL-33", "overlap", overlap)
    melds.sort(key=lambda m: (MELD_TYPES.index(m[0]), m[1]))
    return [
        {
            "type": "RoemDeclared",
            "seat": seat,
            "melds": [meld_json(m) | {"value": MELD_VALUES[m[0]]} for m in melds],
            "total": total(melds),
        }
    ]


def _play(state: KlapperState, seat: int, move: Move) -> list[Event]:
    if state.phase != "play":
        raise IllegalMove(PHASE_RULE[state.phase], "bidding", "cards are played once bidding has ended")
    c = parse(move.get("card"))
    if c is None:
        raise IllegalMove("KL-25", "unknown_card", f"unknown card {move.get('card')!r}")
    if c not in state.hands[seat]:
        raise IllegalMove("KL-25", "not_in_hand", f"{name(c)} is not in your hand")
    assert state.trump is not None
    problem = illegal_card(state.hands[seat], state.trick, state.trump, c)
    if problem is not None:
        raise IllegalMove(*problem)
    events: list[Event] = [{"type": "CardPlayed", "seat": seat, "card": name(c)}]
    after = apply(state, events[0])
    if len(after.trick) < state.n:
        return events
    winner = trick_winner(after.trick, state.trump)
    last = len(after.tricks) + 1 == state.tricks_per_deal
    won: Event = {
        "type": "TrickWon",
        "trick_no": len(after.tricks) + 1,
        "winner": winner,
        "cards": names([p[1] for p in after.trick]),
        "points": trick_points(after.trick, state.trump),
        "last": last,
        "bonus": LAST_TRICK_BONUS if last else 0,
    }
    events.append(won)
    after = apply(after, won)
    if len(after.tricks) == 1:
        totals = [total(list(r)) for r in after.roem]
        holder, per_side = roem_award(after, totals)
        scored: Event = {"type": "RoemScored", "totals": totals, "holder": holder, "roem": per_side}
        events.append(scored)
        after = apply(after, scored)
    if last:
        events.append(_deal_scored(after))
    return events


def _deal_scored(state: KlapperState) -> Event:
    """KL-36 to KL-39 (KL-41, KL-43, KL-47 for 3 and 2 players)."""
    ps = state.playing_side
    assert ps is not None and state.trump is not None
    pts = deal_points(state.card_points, state.last_trick_side, state.roem_scored)
    no_roem = [0] * state.num_sides
    compared = (
        pts
        if state.opts.compare_with_roem
        else deal_points(state.card_points, state.last_trick_side, no_roem)
    )
    added = additions(pts, compared, ps)
    scores = [s + a for s, a in zip(state.score, added, strict=True)]
    return {
        "type": "DealScored",
        "deal_no": state.deal_no,
        "dealer": state.dealer,
        "speler": state.speler,
        "playing_side": ps,
        "trump": SUITS[state.trump],
        "card_points": list(state.card_points),
        "last_trick_side": state.last_trick_side,
        "roem": list(state.roem_scored),
        "deal_points": pts,
        "compared": compared,
        "won": playing_side_wins(compared, ps),
        "added": added,
        "scores": scores,
        "winner": game_winner(scores, state.opts.target),
    }
