"""What each viewer sees (spec §4 visibility): hands only to their owner, the rest is public.

Cards left in hands when a round ends stay hidden (R12), also after the game has ended.
"""

from __future__ import annotations

from typing import Any

from .cards import ANIMALS, HEAD_RANK, card_id, make_card
from .rules import legal_cards
from .state import FINISHED, PLAYING, PKState


def _rows(state: PKState) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for animal, name in enumerate(ANIMALS):
        low, high = state.lows[animal], state.highs[animal]
        rows[name] = {
            "low": low or None,
            "high": high or None,
            "cards": [card_id(make_card(animal, r)) for r in range(low, high + 1)] if low else [],
            "field": state.fields[animal],
            "head_rank": HEAD_RANK[animal],
            "head_played": bool(low) and high >= HEAD_RANK[animal],
        }
    return rows


def public_view(state: PKState) -> dict[str, Any]:
    last = state.last_round
    return {
        "game_type": "paardenkoppen",
        "num_players": state.num_players,
        "options": dict(state.options),
        "phase": state.phase,
        "round_no": state.round_no,
        "rounds": state.options["rounds"] if state.options["end_mode"] == "fixed_rounds" else None,
        "dealer": state.dealer if state.dealer >= 0 else None,
        "start_player": state.start_player if state.start_player >= 0 else None,
        "current_seat": state.current_seat if state.phase == PLAYING else None,
        "balances": list(state.balances),
        "pot": state.pot,
        "rows": _rows(state),
        "hand_sizes": [len(h) for h in state.hands],
        "deck_size": state.deck,
        "passes": list(state.passes),
        "round_over": state.round_over,
        "last_round": None
        if last is None
        else {"round_no": last.round_no, "seat_out": last.seat_out, "pot_payout": last.pot_payout},
        "winners": None if state.winners is None else list(state.winners),
        "end_reason": state.end_reason,
    }


def seat_view(state: PKState, seat: int | None) -> dict[str, Any]:
    view = public_view(state)
    view["seat"] = seat
    if seat is None or not 0 <= seat < state.num_players:
        view["hand"] = None
        view["playable"] = []
        return view
    view["hand"] = [card_id(c) for c in state.hands[seat]]
    to_move = state.phase == PLAYING and state.current_seat == seat
    view["playable"] = [card_id(c) for c in legal_cards(state, seat)] if to_move else []
    return view


def full_view(state: PKState) -> dict[str, Any]:
    """Everything while the game runs (admins only: after the end too, as ``everything_public_after_end``
    is off). Once it has ended the cards left in hands are withheld here as well (R12); their sizes stay,
    and the export still carries the log they follow from."""
    view = public_view(state)
    if state.phase == FINISHED:
        view["hands"] = None
    else:
        view["hands"] = [[card_id(c) for c in hand] for hand in state.hands]
    return view
