"""Folding events onto the state (``evolve``). Every function returns a new state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event

from .cards import deck
from .rules import HAND_SIZE, TRICKS_PER_ROUND, first_leader, movable_owner, next_seat, winner_of
from .state import (
    BEFORE_FIRST_BID,
    BIDDING,
    DEAL,
    GAME_OVER,
    PLAY,
    SCORING,
    WHITE_PAWN,
    HopPaaState,
    Trick,
)
from .track import PAWN_NAMES, apply_landing, land_back, land_forward

ROUND_STARTED = "RoundStarted"
WHITE_PAWN_CHOSEN = "WhitePawnChosen"
BID_MADE = "BidMade"
CARD_DISCARDED = "CardDiscarded"
CARD_PLAYED = "CardPlayed"
TRICK_WON = "TrickWon"
PAWN_MOVED = "PawnMoved"
MOVE_DECLINED = "MoveDeclined"
AUTO_RESULT = "MoveAutoResolved"
GAME_ENDED = "GameEnded"
RESULT_EVENTS = (PAWN_MOVED, MOVE_DECLINED, AUTO_RESULT)


def _round_started(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.clone()
    n = new.num_players
    new.round = int(event["round"])
    new.dealer = int(event["dealer"])
    new.opener = int(event["opener"])
    new.white_offer = int(event["white_offer"])
    new.white_used = None
    new.trump = None
    new.bids = [None] * n
    new.bid_order = []
    new.discard_pending = False
    new.trick = []
    new.tricks_won = [0] * n
    new.turn = None
    new.trick_leader = None
    new.scoring_index = 0
    new.results = []
    played = [card for trick in new.trick_log for _, card in trick.cards]
    discarded = [card for card in new.discards if card is not None]
    new.trick_log = []
    new.discards = [None] * n
    if n == 2 and new.round % 2 == 0:
        # HP-6/HP-R1: even round, the reserve is dealt; last round's cards stay out of play.
        new.out_of_play = played + discarded
        new.hands = [[] for _ in range(n)]
        _deal(new, new.reserve)
        new.reserve = []
        return new
    new.deck = list(deck(n))  # every card is gathered for the shuffle (HP-4, HP-5, HP-6)
    new.hands = [[] for _ in range(n)]
    new.reserve = []
    new.out_of_play = []
    new.phase = DEAL
    return new


def _deal(new: HopPaaState, order: list[str]) -> None:
    """HP-4: one card at a time from the seat after the dealer; HP-6: the rest is the reserve."""
    n = new.num_players
    for i in range(HAND_SIZE * n):
        new.hands[(new.dealer + 1 + i) % n].append(order[i])
    new.reserve = list(order[HAND_SIZE * n :])
    new.deck = []
    if new.table.white_pawn_timing == BEFORE_FIRST_BID:
        new.phase = WHITE_PAWN  # HP-10
        new.turn = new.white_offer
    else:
        new.phase = BIDDING  # HP-R9 option before_own_bid
        new.turn = new.opener


def _chance(state: HopPaaState, event: Event) -> HopPaaState:
    if event.get("purpose") != "deal" or state.phase != DEAL:
        raise ValueError(f"unexpected chance event {event.get('purpose')!r}")
    canonical = deck(state.num_players)
    values = [int(v) for v in event["values"]]
    if sorted(values) != list(range(len(canonical))):
        raise ValueError("a deal needs a permutation of the deck")
    new = state.clone()
    new.hands = [[] for _ in range(new.num_players)]
    _deal(new, [canonical[v] for v in values])
    return new


def _white_pawn_chosen(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.clone()
    new.white_used = bool(event["use"])
    if new.phase == WHITE_PAWN:
        new.phase = BIDDING
        new.turn = new.opener
    return new


def _bid_made(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.shallow()
    seat = int(event["seat"])
    new.bids = list(state.bids)
    new.bids[seat] = int(event["n"])
    new.bid_order = [*state.bid_order, seat]
    if "trump" in event:
        new.trump = str(event["trump"])
    new.discard_pending = True  # HP-16
    return new


def _card_discarded(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.shallow()
    seat = int(event["seat"])
    card = str(event["card"])
    new.hands = _without(state.hands, seat, card)
    new.discards = list(state.discards)
    new.discards[seat] = card
    new.discard_pending = False
    if len(new.bid_order) == new.num_players:
        new.phase = PLAY
        new.trick_leader = new.turn = first_leader(new)  # HP-18
    else:
        new.turn = next_seat(new.table, seat)  # HP-12
    return new


def _without(hands: list[list[str]], seat: int, card: str) -> list[list[str]]:
    out = list(hands)
    if card not in out[seat]:
        raise ValueError(f"seat {seat} does not hold {card}")
    out[seat] = [c for c in out[seat] if c != card]
    return out


def _card_played(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.shallow()
    seat = int(event["seat"])
    card = str(event["card"])
    new.hands = _without(state.hands, seat, card)
    new.trick = [*state.trick, (seat, card)]
    new.turn = next_seat(new.table, seat) if len(new.trick) < new.num_players else None  # HP-20
    return new


def _trick_won(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.shallow()
    winner = int(event["winner"])
    new.trick_log = [*state.trick_log, Trick(state.trick[0][0], tuple(state.trick), winner)]
    new.tricks_won = list(state.tricks_won)
    new.tricks_won[winner] += 1
    new.trick = []
    if len(new.trick_log) == TRICKS_PER_ROUND:  # HP-25, then scoring (HP-26, HP-27)
        new.phase = SCORING
        new.scoring_index = 0
        new.turn = None
        new.trick_leader = None
    else:
        new.trick_leader = new.turn = winner  # HP-24
    return new


def _result(state: HopPaaState, event: Event) -> HopPaaState:
    new = state.clone()
    if state.phase == GAME_OVER:
        new.results_after_end += 1  # never happens; invariants report it (HP-44)
        return new
    seat = int(event["seat"])
    owner = movable_owner(new, seat)
    pawn_name = event.get("pawn")
    if pawn_name is not None and owner is not None:
        pawn = PAWN_NAMES.index(str(pawn_name))
        steps = int(event["steps"])
        track = new.pawns[owner]
        landing = (
            land_forward(track, pawn, steps)
            if event["direction"] == "forward"
            else land_back(track, pawn, steps)
        )
        new.pawns[owner] = apply_landing(track, landing)
    new.results.append({k: v for k, v in event.items() if k != "type"} | {"event": event["type"]})
    new.scoring_index += 1
    winner = winner_of(new.table, new.pawns)
    if winner is not None:  # HP-42/HP-43/HP-44: the game ends at once
        new.winner = winner
        new.phase = GAME_OVER
        new.turn = None
    return new


def _game_ended(state: HopPaaState, event: Event) -> HopPaaState:
    return state.clone()


FOLDS: dict[str, Callable[[HopPaaState, Event], HopPaaState]] = {
    ROUND_STARTED: _round_started,
    CHANCE_EVENT: _chance,
    WHITE_PAWN_CHOSEN: _white_pawn_chosen,
    BID_MADE: _bid_made,
    CARD_DISCARDED: _card_discarded,
    CARD_PLAYED: _card_played,
    TRICK_WON: _trick_won,
    PAWN_MOVED: _result,
    MOVE_DECLINED: _result,
    AUTO_RESULT: _result,
    GAME_ENDED: _game_ended,
}


def fold(state: HopPaaState, event: Event) -> HopPaaState:
    kind: Any = event.get("type")
    handler = FOLDS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise ValueError(f"unknown event {kind!r}")
    return handler(state, event)
