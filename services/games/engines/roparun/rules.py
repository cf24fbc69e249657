"""Pawn movement, the order defect and the legal plays of one card (spec §3, RR-15 ... RR-36).

Everything here works on ``pawns`` (``[seat][c1, c2, r, car]`` location codes, see board.py).
Primitive steps return an ``Err`` (rule, code, message) or None and change the working copy
only on success; ``resolve`` turns a whole play into new pawns or an ``IllegalMove``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import NamedTuple

from services.games.engines.base import IllegalMove
from services.games.engines.roparun.board import (
    C1,
    C2,
    CAR,
    OFF,
    PAWN_KIND,
    PAWNS,
    RUNNER,
    SLOTS,
    Board,
)
from services.games.engines.roparun.cards import FORWARD_STEPS

Err = tuple[str, str, str]
Defect = tuple[int, int, int]
Pawns = list[list[int]]
ZERO: Defect = (0, 0, 0)


class Play(NamedTuple):
    """One card's use, parsed. ``kind``: forward | backward | split | enter | swap."""

    kind: str
    parts: tuple[tuple[int, int], ...] = ()  # forward/backward: ((pawn, steps),); split: parts
    entries: tuple[tuple[int, int], ...] = ()  # enter: ((pawn, slot), ...)
    swap: tuple[int, int, int] = (0, 0, 0)  # (own pawn, target seat, target pawn)
    ace: bool = False  # an ace move carries "steps" in its action


class Capture(NamedTuple):
    seat: int
    pawn: int
    square: int


@dataclass(frozen=True)
class Resolution:
    pawns: Pawns
    captures: tuple[Capture, ...]
    defect_before: Defect
    defect_after: Defect


def copy_pawns(pawns: Pawns) -> Pawns:
    return [list(team) for team in pawns]


def order_defect(n: int, team: list[int]) -> Defect:
    """RR-31: D = (k, h, g); the car never counts; zero once the runner is in the column."""
    runner = team[RUNNER]
    if runner >= n:
        return ZERO
    k = (team[C1] == OFF) + (team[C2] == OFF) + (runner == OFF)
    if k:
        return (k, 0, 0)
    a, b = sorted((team[C1], team[C2]))
    if a < runner < b:
        return ZERO
    if runner < a:
        return (0, 0, a - runner)
    return (0, 1, runner - b)


def order_err(before: Defect, after: Defect) -> Err | None:
    """RR-33: keep D at zero, or make it strictly smaller while in Stop&Go (RR-34)."""
    if before == ZERO:
        if after != ZERO:
            return ("RR-33", "order_broken", "this play would break your cyclist/runner/cyclist order")
        return None
    if after >= before:
        return (
            "RR-33",
            "order_not_repaired",
            "your team is in Stop&Go: every play must bring the cyclist/runner/cyclist order closer",
        )
    return None


def occupant(board: Board, pawns: Pawns, square: int) -> tuple[int, int] | None:
    """The pawn on a route square (B-1), if any."""
    n = board.n
    for seat, team in enumerate(pawns):
        code = (square - board.bases[seat]) % n  # the only route code of this team on ``square``
        if code in team:
            return (seat, team.index(code))
    return None


def _land(board: Board, pawns: Pawns, seat: int, idx: int, target: int, caps: list[Capture]) -> Err | None:
    """RR-20: only the landing square matters: empty, own (illegal), protected (RR-29) or capture."""
    square = board.square(seat, target)
    occ = occupant(board, pawns, square)
    if occ is not None:
        other, oidx = occ
        if other == seat:
            return ("RR-20", "own_pawn", f"your {PAWNS[oidx]} already stands on square {square}")
        if pawns[other][oidx] < SLOTS:
            return (
                "RR-29",
                "protected",
                f"the pawn on square {square} stands on its own start square and cannot be captured",
            )
        pawns[other][oidx] = OFF  # RR-28: back to its own off-route box
        caps.append(Capture(other, oidx, square))
    pawns[seat][idx] = target
    return None


def step_forward(
    board: Board, pawns: Pawns, seat: int, idx: int, steps: int, caps: list[Capture]
) -> Err | None:
    """RR-17 forward steps, into the finish column under RR-22 and RR-23."""
    n = board.n
    team = pawns[seat]
    code = team[idx]
    if code == OFF:
        return ("RR-16", "pawn_off_route", f"your {PAWNS[idx]} is off the route; it can only be entered")
    target = code + steps
    if target > n + 3:
        return ("RR-17", "overshoot", f"your {PAWNS[idx]} would go past the top of your finish column")
    if target < n:
        return _land(board, pawns, seat, idx, target, caps)
    if idx != RUNNER and team[RUNNER] < n:
        return ("RR-22", "runner_first", "your runner must be the first pawn in your finish column")
    if target == n + 3 and idx != RUNNER:
        return ("RR-23", "top_place_runner_only", "the top place of the finish column is for the runner")
    for other, ocode in enumerate(team):
        if other != idx and ocode == target:
            return ("RR-20", "own_pawn", f"your {PAWNS[other]} already stands on F{target - n + 1}")
    team[idx] = target
    return None


def step_backward(board: Board, pawns: Pawns, seat: int, idx: int, caps: list[Capture]) -> Err | None:
    """RR-18: four steps back, never from an own start square or the finish column (RR-24)."""
    code = pawns[seat][idx]
    if code == OFF:
        return ("RR-16", "pawn_off_route", f"your {PAWNS[idx]} is off the route; it can only be entered")
    if code >= board.n:
        return ("RR-24", "backward_in_finish", "a pawn in the finish column cannot move backward")
    if code < SLOTS:
        return ("RR-18", "backward_from_start", "a pawn on your own start square cannot move backward")
    return _land(board, pawns, seat, idx, code - 4, caps)


def enter(
    board: Board, pawns: Pawns, seat: int, entries: tuple[tuple[int, int], ...], caps: list[Capture]
) -> Err | None:
    """RR-25 / RR-26: off-route pawns onto distinct own start squares free of own pawns."""
    if not entries:
        return ("RR-25", "nothing_to_enter", "choose at least one off-route pawn to enter")
    team = pawns[seat]
    slots = [slot for _, slot in entries]
    if len(set(slots)) != len(slots):
        return ("RR-25", "same_slot", "each entering pawn needs its own start square")
    for idx, slot in entries:
        if team[idx] != OFF:
            return ("RR-25", "not_off_route", f"your {PAWNS[idx]} is not in your off-route box")
        if slot in team:
            owner = PAWNS[team.index(slot)]
            return ("RR-25", "own_pawn_on_slot", f"your {owner} already stands on start square {slot}")
    for idx, slot in entries:
        err = _land(board, pawns, seat, idx, slot, caps)
        if err is not None:  # pragma: no cover - an opponent here is never protected (RR-26)
            return err
    return None


def swap(board: Board, pawns: Pawns, seat: int, idx: int, target_seat: int, target_idx: int) -> Err | None:
    """RR-30: own route pawn and a same-type opponent route pawn exchange squares."""
    n = board.n
    if not 0 <= target_seat < len(pawns) or target_seat == seat:
        return ("RR-30", "bad_target_seat", "swap with a pawn of another team in this game")
    if PAWN_KIND[idx] != PAWN_KIND[target_idx]:
        return (
            "RR-30",
            "different_type",
            "a jack swaps cyclist with cyclist, runner with runner, car with car",
        )
    code = pawns[seat][idx]
    tcode = pawns[target_seat][target_idx]
    for who, c in (("your", code), ("the other", tcode)):
        if c == OFF or c >= n:
            place = "off the route" if c == OFF else "in the finish column"
            rule = "RR-24" if c >= n else "RR-30"
            return (rule, "not_on_route", f"{who} pawn is {place} and cannot be swapped")
    own_square = board.square(seat, code)
    target_square = board.square(target_seat, tcode)
    pawns[seat][idx] = (target_square - board.base(seat)) % n  # B-8: progress from the new square
    pawns[target_seat][target_idx] = (own_square - board.base(target_seat)) % n
    return None


def execute(board: Board, pawns: Pawns, seat: int, play: Play, caps: list[Capture]) -> Err | None:
    """Run every part of a play on the working copy ``pawns`` (RR-21: parts in list order)."""
    if play.kind == "forward" or play.kind == "split":
        for idx, steps in play.parts:
            err = step_forward(board, pawns, seat, idx, steps, caps)
            if err is not None:
                return err
        return None
    if play.kind == "backward":
        return step_backward(board, pawns, seat, play.parts[0][0], caps)
    if play.kind == "enter":
        return enter(board, pawns, seat, play.entries, caps)
    own, target_seat, target_idx = play.swap
    return swap(board, pawns, seat, own, target_seat, target_idx)


def resolve(board: Board, pawns: Pawns, seat: int, play: Play) -> Resolution:
    """The result of a whole play, or IllegalMove naming the rule it breaks (RR-15 ... RR-33)."""
    before = order_defect(board.n, pawns[seat])
    work = copy_pawns(pawns)
    caps: list[Capture] = []
    err = execute(board, work, seat, play, caps)
    if err is None:
        after = order_defect(board.n, work[seat])
        err = order_err(before, after)
    if err is not None:
        raise IllegalMove(*err)
    return Resolution(work, tuple(caps), before, after)


# --- enumeration of legal plays --------------------------------------------------------------


def _ok(board: Board, pawns: Pawns, seat: int, play: Play, before: Defect) -> bool:
    work = copy_pawns(pawns)
    if execute(board, work, seat, play, []) is not None:
        return False
    return order_err(before, order_defect(board.n, work[seat])) is None


def _splits(
    board: Board,
    work: Pawns,
    seat: int,
    remaining: int,
    parts: tuple[tuple[int, int], ...],
    max_parts: int,
    before: Defect,
) -> Iterator[tuple[tuple[int, int], ...]]:
    """Depth-first over the parts of a 7 on a private working copy, undoing each part after use."""
    n = board.n
    team = work[seat]
    used = {idx for idx, _ in parts}
    last = len(parts) + 1 == max_parts
    for idx in range(4):
        old = team[idx]
        if idx in used or old == OFF:
            continue
        for steps in range(remaining if last else 1, remaining + 1):
            caps: list[Capture] = []
            if step_forward(board, work, seat, idx, steps, caps) is not None:
                continue
            now = (*parts, (idx, steps))
            if steps == remaining:
                ok = order_err(before, order_defect(n, team)) is None
            else:
                ok = False
                yield from _splits(board, work, seat, remaining - steps, now, max_parts, before)
            team[idx] = old
            for cap in caps:
                work[cap.seat][cap.pawn] = (cap.square - board.bases[cap.seat]) % n
            if ok:
                yield now


def entry_plays(board: Board, pawns: Pawns, seat: int, before: Defect) -> Iterator[Play]:
    """RR-25 / R5 / R6: any non-empty set of off-route pawns, each on a free own slot."""
    team = pawns[seat]
    off = [idx for idx in range(4) if team[idx] == OFF]
    free = [slot for slot in range(SLOTS) if slot not in team]
    for size in range(1, len(off) + 1):
        for group in combinations(off, size):
            # RR-34: an entry that leaves D unchanged is illegal for every slot choice; skip early.
            if before != ZERO and not any(i != CAR for i in group):
                continue
            for slots in permutations(free, size):
                play = Play("enter", entries=tuple(zip(group, slots, strict=True)))
                if _ok(board, pawns, seat, play, before):
                    yield play


def card_plays(board: Board, pawns: Pawns, seat: int, rank: str, seven_max: int) -> Iterator[Play]:
    """Every legal use of a card of ``rank`` by ``seat`` (RR-15: none means it cannot be played)."""
    before = order_defect(board.n, pawns[seat])
    if rank in FORWARD_STEPS or rank == "A":
        steps_options = (1, 11) if rank == "A" else (FORWARD_STEPS[rank],)
        for idx in range(4):
            for steps in steps_options:
                play = Play("forward", parts=((idx, steps),), ace=rank == "A")
                if pawns[seat][idx] != OFF and _ok(board, pawns, seat, play, before):
                    yield play
    if rank in ("A", "K"):
        yield from entry_plays(board, pawns, seat, before)
    elif rank == "4":
        for idx in range(4):
            play = Play("backward", parts=((idx, 4),))
            if _ok(board, pawns, seat, play, before):
                yield play
    elif rank == "7":
        for parts in _splits(board, copy_pawns(pawns), seat, 7, (), seven_max, before):
            yield Play("split", parts=parts)
    elif rank == "J":
        n = board.n
        for idx in range(4):
            if not 0 <= pawns[seat][idx] < n:
                continue
            for target_seat in range(len(pawns)):
                if target_seat == seat:
                    continue
                for target_idx in range(4):
                    if PAWN_KIND[target_idx] != PAWN_KIND[idx]:
                        continue
                    if not 0 <= pawns[target_seat][target_idx] < n:
                        continue
                    play = Play("swap", swap=(idx, target_seat, target_idx))
                    if _ok(board, pawns, seat, play, before):
                        yield play


def team_finished(n: int, team: list[int]) -> bool:
    """RR-37: all four pawns in the finish column (the runner then on F4)."""
    return all(code >= n for code in team)
