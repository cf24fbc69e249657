"""Rule helpers that read a state and compute what the rules allow (no state changes here)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import NO_TRUMP, suit_of, suits_in_play
from .state import HopPaaState, Table
from .track import FINISH, START

HAND_SIZE = 10  # HP-4
TRICKS_PER_ROUND = 9  # HP-25
FORBIDDEN_SUM = 9  # HP-15, HP-R2
QUICK_STEPS = 5  # HP-28


def next_seat(table: Table, seat: int) -> int:
    """HP-1: clockwise."""
    return (seat + 1) % table.num_players


def bid_range(table: Table) -> range:
    """HP-13, HP-R3, HP-47: 1-6 with 3 or 4 players, 1-9 with 2."""
    return range(1, 10) if table.num_players == 2 else range(1, 7)


def trump_choices(table: Table) -> list[str]:
    """HP-14, HP-R3, HP-R23: a suit in play, or no-trump."""
    return [*suits_in_play(table.num_players), NO_TRUMP]


def forbidden_bid(state: HopPaaState) -> int | None:
    """HP-15: the bid the current (last) bidder may not make, if any."""
    if len(state.bid_order) != state.num_players - 1:
        return None
    rest = FORBIDDEN_SUM - sum(b or 0 for b in state.bids)
    return rest if rest in bid_range(state.table) else None


def legal_bids(state: HopPaaState) -> list[int]:
    banned = forbidden_bid(state)
    return [n for n in bid_range(state.table) if n != banned]


def first_leader(state: HopPaaState) -> int:
    """HP-18: the highest bid leads; among equal bids the one who bid first."""
    best = state.bid_order[0]
    for seat in state.bid_order[1:]:
        if (state.bids[seat] or 0) > (state.bids[best] or 0):
            best = seat
    return best


def led_suit(state: HopPaaState) -> str | None:
    return suit_of(state.trick[0][1]) if state.trick else None


def white_offer(table: Table, pawns: list[list[int]], round_no: int) -> int:
    """HP-8, HP-9, HP-R7, HP-R8: youngest in round 1; later the lowest pawn, then the other
    pawn, then the youngest of the tied players. Finished pawns count as 35 (they are on 35)."""
    seats = range(table.num_players)
    if round_no == 1:
        return min(seats, key=lambda s: table.age_rank[s])
    return min(seats, key=lambda s: (sorted(pawns[s]), table.age_rank[s]))


def movable_owner(state: HopPaaState, seat: int) -> int | None:
    """HP-32, HP-R19: whose pawns a result moves: own pawns, or in team mode the partner's once
    all own pawns are on 35."""
    if any(p != FINISH for p in state.pawns[seat]):
        return seat
    partner = state.table.partner(seat)
    if partner is not None and any(p != FINISH for p in state.pawns[partner]):
        return partner
    return None


def step_options(bid: int, white: bool) -> list[int]:
    """HP-28, HP-29, HP-R10: S = {b, 5}; with the white pawn {2b, 10}, plus 1 when b = 1."""
    if not white:
        return sorted({bid, QUICK_STEPS})
    steps = {2 * bid, 2 * QUICK_STEPS}
    if bid == 1:
        steps.add(1)
    return sorted(steps)


@dataclass(frozen=True)
class Pending:
    """The result of the seat now scoring, before it is applied."""

    seat: int
    owner: int | None
    made: bool  # t == b: a forward move (HP-28); else a penalty of `penalty` steps (HP-30)
    steps: tuple[int, ...]  # the option set S (forward only)
    forward: tuple[tuple[int, int], ...]  # legal (pawn, steps) pairs (HP-33)
    penalty: int
    candidates: tuple[int, ...]  # pawns that can take the penalty (HP-36)
    optional: bool  # forward_move_optional (HP-R12)

    @property
    def choices(self) -> int:
        if self.made:
            return len(self.forward) + (1 if self.optional and self.forward else 0)
        return len(self.candidates)


def pending_result(state: HopPaaState) -> Pending | None:
    seat = state.scoring_seat
    if seat is None:
        return None
    bid = state.bids[seat] or 0
    won = state.tricks_won[seat]
    owner = movable_owner(state, seat)
    track = state.pawns[owner] if owner is not None else []
    if won == bid:
        steps = step_options(bid, state.white_used is True and state.white_offer == seat)
        forward = tuple(
            (pawn, s) for pawn, pos in enumerate(track) if pos != FINISH for s in steps if pos + s <= FINISH
        )
        return Pending(seat, owner, True, tuple(steps), forward, 0, (), state.table.forward_move_optional)
    candidates = tuple(pawn for pawn, pos in enumerate(track) if START < pos < FINISH)
    return Pending(seat, owner, False, (), (), abs(won - bid), candidates, False)


def finished(table: Table, pawns: list[list[int]], seat: int) -> bool:
    return all(p == FINISH for p in pawns[seat])


def winner_of(table: Table, pawns: list[list[int]]) -> int | None:
    """HP-42/HP-43: the seat (solo) or team index (team) with every pawn on 35, if any.

    Results are applied one at a time (HP-27) and the game stops at the first win (HP-44),
    so at most one side can qualify in a reachable state."""
    if table.teams is not None:
        for index, team in enumerate(table.teams):
            if all(finished(table, pawns, s) for s in team):
                return index
        return None
    for seat in range(table.num_players):
        if finished(table, pawns, seat):
            return seat
    return None
