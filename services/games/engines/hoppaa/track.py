"""The score track: green jumps, red dots, exact finish and knock-offs (HP-33 to HP-41)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

START = 0
FINISH = 35
GREEN_JUMP: dict[int, int] = {1: 7, 7: 14, 14: 21, 21: 25}  # HP-37: one jump only (HP-R17)
GREEN_NUMBERS: tuple[int, ...] = (1, 7, 14, 21, 25)
RED_DOTS: frozenset[int] = frozenset({30, 32})
RED_DOT_RETURN = 25
PAWN_NAMES: tuple[str, ...] = ("green", "red")


@dataclass(frozen=True)
class Landing:
    """Where a moved pawn ends and which pawn of the same track it knocked off (index or None)."""

    pawn: int
    start: int
    end: int
    knocked_off: int | None


def land_forward(track: Sequence[int], pawn: int, steps: int) -> Landing:
    """HP-33, HP-37, HP-39, HP-40, HP-41. The caller has checked pos + steps <= 35."""
    start = track[pawn]
    end = start + steps
    end = GREEN_JUMP.get(end, end)
    if end in RED_DOTS:
        end = RED_DOT_RETURN
    return Landing(pawn, start, end, _knocked(track, pawn, end))


def land_back(track: Sequence[int], pawn: int, steps: int) -> Landing:
    """HP-36, HP-38 (no jump), HP-39/HP-R18 (red dots act backwards too), HP-41/HP-R16."""
    start = track[pawn]
    end = max(START, start - steps)
    if end in RED_DOTS:
        end = RED_DOT_RETURN
    return Landing(pawn, start, end, _knocked(track, pawn, end))


def _knocked(track: Sequence[int], pawn: int, end: int) -> int | None:
    if not START < end < FINISH:
        return None
    for other, pos in enumerate(track):
        if other != pawn and pos == end:
            return other
    return None


def apply_landing(track: Sequence[int], landing: Landing) -> list[int]:
    out = list(track)
    out[landing.pawn] = landing.end
    if landing.knocked_off is not None:
        out[landing.knocked_off] = START
    return out
