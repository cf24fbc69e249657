"""Sample a full Paardenkoppen state from one seat's view (issue 18.3, for the ``strong`` bots).

What a seat knows (spec §4 visibility): its own hand, every card in the four rows (each row is an
unbroken run, PK-10), the row fields, the pot, the balances, the passes and every hand size. The
unseen cards are the 52 (PK-7) minus the rows and the own hand; they lie in the other hands, so
they are dealt at random onto those hands with their known sizes. Pure: the randomness is ``rng``.

Not used: what passes reveal (a seat that passed held no playable card at that moment, PK-14) is
history, and the view holds only the current position.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import Rng

from .cards import ANIMALS, DECK_SIZE, OPENING_RANK, make_card, parse_card
from .state import PKState, RoundResult, new_state


class ViewMismatch(ValueError):
    """The view is not a Paardenkoppen seat view of ``seat`` (no own hand, wrong sizes)."""


def _row_order(low: int, high: int) -> tuple[int, ...]:
    """A play order that builds ``low..high`` legally: the 6 first (PK-11), then down, then up.

    The 1 and the card below a head card then lie before the head card (PK-12), as the fold
    checks; only the bounds are public, so any legal order is consistent with the view.
    """
    if not low:
        return ()
    return (OPENING_RANK, *range(OPENING_RANK - 1, low - 1, -1), *range(OPENING_RANK + 1, high + 1))


def _cards(ids: Any) -> list[int]:
    out: list[int] = []
    for cid in ids or []:
        card = parse_card(cid)
        if card is None:
            raise ViewMismatch(f"unknown card {cid!r} in the view")
        out.append(card)
    return out


def determinize(view: Mapping[str, Any], seat: int, rng: Rng) -> PKState:
    """A state whose ``seat_view(state, seat)`` equals ``view``; unseen cards dealt at random."""
    n = int(view["num_players"])
    state = new_state(n, dict(view["options"]))
    own = _cards(view.get("hand"))
    if view.get("seat") != seat or view.get("hand") is None:
        raise ViewMismatch("determinize needs the seat's own view (with its hand)")
    rows = view["rows"]
    lows: list[int] = []
    highs: list[int] = []
    seen: set[int] = set(own)
    for animal, name in enumerate(ANIMALS):
        row = rows[name]
        low, high = int(row["low"] or 0), int(row["high"] or 0)
        lows.append(low)
        highs.append(high)
        if low:
            seen.update(make_card(animal, r) for r in range(low, high + 1))
    state.phase = str(view["phase"])
    state.balances = [int(b) for b in view["balances"]]
    state.fields = [int(rows[name]["field"]) for name in ANIMALS]
    state.rows = [_row_order(lo, hi) for lo, hi in zip(lows, highs, strict=True)]
    state.lows = lows
    state.highs = highs
    state.deck = int(view["deck_size"])
    state.pot = int(view["pot"])
    state.round_no = int(view["round_no"])
    state.dealer = -1 if view["dealer"] is None else int(view["dealer"])
    state.start_player = -1 if view["start_player"] is None else int(view["start_player"])
    state.current_seat = -1 if view["current_seat"] is None else int(view["current_seat"])
    state.round_over = bool(view["round_over"])
    state.passes = [int(p) for p in view["passes"]]
    last = view.get("last_round")
    state.last_round = (
        None
        if last is None
        else RoundResult(int(last["round_no"]), int(last["seat_out"]), int(last["pot_payout"]))
    )
    state.winners = None if view.get("winners") is None else [int(w) for w in view["winners"]]
    state.end_reason = view.get("end_reason")

    # The unseen cards go to the other hands, each with its public size (PK-7, §4).
    sizes = [int(s) for s in view["hand_sizes"]]
    if sizes[seat] != len(own):
        raise ViewMismatch("the own hand does not match its size")
    unseen = [c for c in range(DECK_SIZE) if c not in seen]
    if state.deck:
        unseen = []  # between rounds every card waits in the deck (PK-20)
    rng.shuffle(unseen)
    hands: list[tuple[int, ...]] = []
    at = 0
    for other in range(n):
        if other == seat:
            hands.append(tuple(sorted(own)))
            continue
        hands.append(tuple(sorted(unseen[at : at + sizes[other]])))
        at += sizes[other]
    if at != len(unseen):
        raise ViewMismatch("hand sizes do not account for the unseen cards")
    state.hands = hands

    # The running totals the PK-24 checks read: only their sums are public, and these fit them.
    state.ledger.antes = sum(state.fields)
    state.ledger.passes = state.pot
    paid_out = 0
    if state.round_over and state.last_round is not None and state.last_round.round_no == state.round_no:
        paid_out = state.last_round.pot_payout
    state.round_pass_paid = state.pot + paid_out
    return state
