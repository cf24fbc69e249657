"""Which cards may be played (PK-10 to PK-15) and why a play or a pass is illegal."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.engines.base import IllegalMove

from .cards import ANIMALS, HEAD_RANK, OPENING_RANK, RANKS, animal_of, card_id, rank_of
from .state import PKState


def is_playable(card: int, lows: Sequence[int], highs: Sequence[int]) -> bool:
    """PK-11/PK-12/PK-13: may ``card`` be added to its row now?"""
    animal = animal_of(card)
    rank = rank_of(card)
    low = lows[animal]
    if low == 0:
        return rank == OPENING_RANK  # PK-11, PK-15: an empty row takes only its 6
    high = highs[animal]
    if rank == low - 1:
        return True  # ranks 1..5 go below the 6; no head card is among them
    if rank == high + 1 and high < RANKS:
        return rank != HEAD_RANK[animal] or low == 1  # PK-12: a head card needs the 1
    return False


def opens_empty_row(card: int, lows: Sequence[int]) -> bool:
    """PK-15: a 6 whose row is still empty."""
    return rank_of(card) == OPENING_RANK and lows[animal_of(card)] == 0


def playable_cards(state: PKState, seat: int) -> list[int]:
    return [c for c in state.hands[seat] if is_playable(c, state.lows, state.highs)]


def legal_cards(state: PKState, seat: int) -> list[int]:
    """The cards ``seat`` may play this turn (PK-14, with the PK-15 ``six_rule``)."""
    playable = playable_cards(state, seat)
    if state.options["six_rule"] == "immediate":
        sixes = [c for c in playable if opens_empty_row(c, state.lows)]
        if sixes:
            return sixes
    return playable


def _row_text(state: PKState, animal: int) -> str:
    if state.lows[animal] == 0:
        return f"the {ANIMALS[animal]} row is empty"
    return f"the {ANIMALS[animal]} row holds {state.lows[animal]} to {state.highs[animal]}"


def check_play(state: PKState, seat: int, card: int) -> None:
    """Raise IllegalMove (with the rule the play breaks) unless ``seat`` may play ``card`` now."""
    name = card_id(card)
    if card not in state.hands[seat]:
        raise IllegalMove("PK-9", "card_not_in_hand", f"you do not hold {name}")
    animal = animal_of(card)
    rank = rank_of(card)
    low, high = state.lows[animal], state.highs[animal]
    head = HEAD_RANK[animal]
    if not is_playable(card, state.lows, state.highs):
        if low == 0:
            raise IllegalMove(
                "PK-11",
                "row_needs_six",
                f"{name} cannot open a row: {_row_text(state, animal)}, only its 6 may",
            )
        if rank == head:
            if rank != high + 1:
                raise IllegalMove(
                    "PK-12",
                    "head_needs_card_below",
                    f"{name} is a head card: the {ANIMALS[animal]} {head - 1} must lie in the row first "
                    f"({_row_text(state, animal)})",
                )
            raise IllegalMove(
                "PK-12",
                "head_needs_one",
                f"{name} is a head card: the {ANIMALS[animal]} 1 must be played first "
                f"({_row_text(state, animal)})",
            )
        if rank > head:
            raise IllegalMove(
                "PK-13",
                "needs_card_below",
                f"{name} needs the {ANIMALS[animal]} {rank - 1} in the row first "
                f"({_row_text(state, animal)})",
            )
        raise IllegalMove(
            "PK-11",
            "not_adjacent",
            f"{name} does not fit: {_row_text(state, animal)}; play the next lower or higher card, "
            "no rank may be skipped",
        )
    if state.options["six_rule"] == "immediate" and not opens_empty_row(card, state.lows):
        sixes = [c for c in state.hands[seat] if opens_empty_row(c, state.lows)]
        if sixes:
            raise IllegalMove(
                "PK-15",
                "must_play_six",
                f"you hold {card_id(sixes[0])} of an empty row and must play a 6 of an empty row now",
            )


def check_pass(state: PKState, seat: int) -> None:
    """Raise IllegalMove unless ``seat`` has no playable card (PK-14, PK-15)."""
    playable = playable_cards(state, seat)
    if not playable:
        return
    sixes = [c for c in playable if opens_empty_row(c, state.lows)]
    if sixes:
        raise IllegalMove(
            "PK-15",
            "six_forbids_pass",
            f"you hold {card_id(sixes[0])} and its row is empty, so you cannot pass",
        )
    raise IllegalMove(
        "PK-14",
        "must_play",
        f"you can play {', '.join(card_id(c) for c in playable)}, so you may not pass",
    )
