"""Invariants for random play (issue text); checked independently of the move generator."""

from __future__ import annotations

from collections import Counter

from .cards import card_set, deck
from .rules import HAND_SIZE, TRICKS_PER_ROUND, bid_range, winner_of
from .state import BIDDING, DEAL, GAME_OVER, PLAY, SCORING, WHITE_PAWN, HopPaaState
from .track import FINISH, START


def check(state: HopPaaState) -> list[str]:
    return [*_cards(state), *_bids(state), *_tricks(state), *_pawns(state), *_end(state)]


def _cards(state: HopPaaState) -> list[str]:
    seen = [*state.deck, *state.reserve, *state.out_of_play]
    for hand in state.hands:
        seen += hand
    seen += [c for c in state.discards if c is not None]
    seen += [c for _, c in state.trick]
    for trick in state.trick_log:
        seen += [c for _, c in trick.cards]
    wanted = card_set(state.num_players)
    if len(seen) == len(wanted) and set(seen) == wanted:
        return []
    present = Counter(seen)
    expected = Counter(deck(state.num_players))
    missing = sorted((expected - present).elements())
    extra = sorted((present - expected).elements())
    return [f"HP-5 cards not all present once: missing {missing}, extra or doubled {extra}"]


def _bids(state: HopPaaState) -> list[str]:
    problems: list[str] = []
    allowed = bid_range(state.table)
    for seat, bid in enumerate(state.bids):
        if bid is not None and bid not in allowed:
            problems.append(f"HP-13 seat {seat} bid {bid}, outside {allowed.start}-{allowed.stop - 1}")
    placed = [b for b in state.bids if b is not None]
    if len(placed) != len(state.bid_order):
        problems.append("HP-12 bids and bidding order disagree")
    if len(placed) == state.num_players and sum(placed) == 9:
        problems.append("HP-15 the bids add up to exactly 9")
    return problems


def _tricks(state: HopPaaState) -> list[str]:
    problems: list[str] = []
    done = len(state.trick_log)
    if done > TRICKS_PER_ROUND:
        problems.append(f"HP-25 {done} tricks in one round")
    if state.tricks_won and sum(state.tricks_won) != done:
        problems.append(f"HP-25 tricks won sum to {sum(state.tricks_won)}, {done} tricks played")
    if state.phase == SCORING and done != TRICKS_PER_ROUND:
        problems.append(f"HP-25 scoring after {done} tricks instead of 9")
    if state.phase in (PLAY, SCORING):
        for seat, hand in enumerate(state.hands):
            in_trick = sum(1 for s, _ in state.trick if s == seat)
            if len(hand) != TRICKS_PER_ROUND - done - in_trick:
                problems.append(f"HP-17 seat {seat} holds {len(hand)} cards after {done} tricks")
    if state.phase in (WHITE_PAWN, BIDDING):
        for seat, hand in enumerate(state.hands):
            expected = HAND_SIZE - (1 if state.discards[seat] is not None else 0)
            if len(hand) != expected:
                problems.append(f"HP-4 seat {seat} holds {len(hand)} cards, expected {expected}")
    return problems


def _pawns(state: HopPaaState) -> list[str]:
    problems: list[str] = []
    for seat, track in enumerate(state.pawns):
        if len(track) != state.table.pawns_per_player:
            problems.append(f"HP-R22 seat {seat} has {len(track)} pawns")
        for pos in track:
            if not START <= pos <= FINISH:
                problems.append(f"HP-36 seat {seat} has a pawn on {pos}, off the track 0..35")
        inner = [p for p in track if START < p < FINISH]
        if len(inner) != len(set(inner)):
            problems.append(f"HP-41 two pawns of seat {seat} share square {inner}")
    return problems


def _end(state: HopPaaState) -> list[str]:
    problems: list[str] = []
    won = winner_of(state.table, state.pawns)
    if (won is not None) != (state.phase == GAME_OVER):
        problems.append(f"HP-44 phase {state.phase} while the winner by the pawns is {won}")
    if state.phase == GAME_OVER and state.winner != won:
        problems.append(f"HP-42 recorded winner {state.winner} but the pawns say {won}")
    if state.results_after_end:
        problems.append(f"HP-44 {state.results_after_end} result(s) applied after the game ended")
    if state.phase == DEAL and state.hands and any(state.hands):
        problems.append("HP-4 cards in hand while waiting for the deal")
    return problems
