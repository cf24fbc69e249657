"""Invariants for random play, checked from the state alone (not from the move generator)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import ANIMALS, DECK_SIZE, HEAD_RANK
from .state import CHOOSING_START, DEALING, PLAYING, START_BALANCE, PKState


def _could_play(card: int, rows: Sequence[set[int]]) -> bool:
    """A second, set-based reading of PK-11/PK-12/PK-13 (independent of ``rules.is_playable``)."""
    animal, rank = divmod(card, 13)
    rank += 1
    row = rows[animal]
    if not row:
        return rank == 6
    if rank in row or (rank - 1 not in row and rank + 1 not in row):
        return False
    return rank != HEAD_RANK[animal] or 1 in row


def _row_sets(rows: Sequence[Sequence[int]]) -> list[set[int]]:
    return [set(row) for row in rows]


def _card_problems(state: PKState) -> list[str]:
    problems: list[str] = []
    seen: list[int] = []
    for hand in state.hands:
        seen += hand
    for animal, row in enumerate(state.rows):
        base = animal * 13 - 1
        seen += [base + r for r in row]
    if state.deck and state.phase not in (DEALING, CHOOSING_START):
        problems.append("PK-7 cards are waiting in the deck outside a deal")
    if len(seen) + state.deck != DECK_SIZE or len(set(seen)) != len(seen):
        problems.append(
            f"PK-7 the 52 cards are not all present exactly once ({len(seen)} + deck {state.deck})"
        )
    if state.deck and seen:
        problems.append("PK-20 cards were dealt while the deck is not empty")
    return problems


def _row_problems(state: PKState) -> list[str]:
    problems: list[str] = []
    for animal, row in enumerate(state.rows):
        name = ANIMALS[animal]
        if not row:
            if state.lows[animal] or state.highs[animal]:
                problems.append(f"PK-10 the empty {name} row has bounds")
            continue
        if row[0] != 6:
            problems.append(f"PK-11 the {name} row was not opened by its 6")
        low = high = row[0]
        for rank in row[1:]:
            if rank == low - 1:
                low = rank
            elif rank == high + 1:
                high = rank
            else:
                problems.append(f"PK-11 {name} {rank} skipped a rank")
                break
        if (low, high) != (state.lows[animal], state.highs[animal]) or not 1 <= low <= 6 <= high <= 13:
            problems.append(f"PK-10 the {name} row is no run containing the 6")
        head = HEAD_RANK[animal]
        if head in row:
            at = row.index(head)
            if 1 not in row[:at] or head - 1 not in row[:at]:
                problems.append(f"PK-12 {name} {head} lies before the {name} 1 or {name} {head - 1}")
            if state.fields[animal] != 0:
                problems.append(f"PK-17 the {name} head card was played but its field is not empty")
    return problems


def _chip_problems(state: PKState) -> list[str]:
    problems: list[str] = []
    n = state.num_players
    total = sum(state.balances) + sum(state.fields) + state.pot
    if total != START_BALANCE * n:
        problems.append(f"PK-24 chip value {total} is not {START_BALANCE * n}")
    led = state.ledger
    if sum(state.fields) != led.antes - led.head_payouts:
        problems.append("PK-24 the row fields changed by something other than antes and head payouts")
    last = state.last_round
    paid_out = last.pot_payout if state.round_over and last and last.round_no == state.round_no else 0
    if state.pot != led.passes - led.pot_payouts or state.pot != state.round_pass_paid - paid_out:
        problems.append("PK-24 the pot changed by something other than passes and its payout")
    if sum(state.balances) != START_BALANCE * n - led.antes - led.passes + led.head_payouts + led.pot_payouts:
        problems.append("PK-24 balances changed by something other than antes, passes and payouts")
    if any(b < 0 for b in state.balances) or any(f < 0 for f in state.fields) or state.pot < 0:
        problems.append("PK-16 a balance, field or pot is negative")
    return problems


def _round_problems(state: PKState) -> list[str]:
    problems: list[str] = []
    empty = [seat for seat, hand in enumerate(state.hands) if not hand]
    if state.phase == PLAYING and not state.round_over and empty:
        problems.append(f"PK-18 seats {empty} have no cards but the round goes on")
    if state.round_over:
        if len(empty) != 1:
            problems.append(f"PK-18 the round is over but the empty hands are {empty}")
        last = state.last_round
        if last is None or last.round_no != state.round_no:
            # the card that emptied the hand is folded; the pot payout is the very next event
            if state.pot != state.round_pass_paid:
                problems.append("PK-18 the pot changed after the round ended")
        else:
            if empty != [last.seat_out]:
                problems.append(f"PK-18 round ended by seat {last.seat_out} but empty hands are {empty}")
            if state.pot != 0 or last.pot_payout != state.round_pass_paid:
                problems.append("PK-18 the player who went out did not take the whole pot")
    if state.phase == PLAYING and not state.round_over:
        rows = _row_sets(state.rows)
        if not any(_could_play(c, rows) for hand in state.hands for c in hand):
            problems.append("R18 no player holds a playable card")
    return problems


def _pass_problems(state: PKState) -> list[str]:
    if state.last_pass is None:
        return []
    seat, hand, rows = state.last_pass
    row_sets = _row_sets(rows)
    playable = [c for c in hand if _could_play(c, row_sets)]
    if playable:
        return [f"PK-14 seat {seat} passed while holding a playable card"]
    return []


def check(state: PKState) -> list[str]:
    return (
        _card_problems(state)
        + _row_problems(state)
        + _chip_problems(state)
        + _round_problems(state)
        + _pass_problems(state)
    )
