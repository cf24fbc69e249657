"""The JSON shape of a ``play_card`` action (spec §4) and its parsed ``Play``.

Parsing only checks form and the card's kind of use; whether the play is legal on the board is
``rules.resolve``'s job. Every malformed move raises IllegalMove (never KeyError/TypeError).
"""

from __future__ import annotations

from typing import Any

from services.games.engines.base import IllegalMove
from services.games.engines.roparun.board import PAWN_INDEX, PAWNS, SLOTS
from services.games.engines.roparun.cards import (
    ACE_STEPS,
    FORWARD_STEPS,
    SEVEN_STEPS,
)
from services.games.engines.roparun.rules import Play

USES: dict[str, str] = {
    **{rank: '{"move": pawn}' for rank in FORWARD_STEPS},
    "4": '{"move": pawn} (4 steps backward)',
    "A": '{"move": pawn, "steps": 1 or 11} or {"enter": [{"pawn", "slot"}, ...]}',
    "K": '{"enter": [{"pawn", "slot"}, ...]}',
    "7": '{"split": [{"pawn", "steps"}, ...]}',
    "J": '{"swap": {"pawn", "target_seat", "target_pawn"}}',
}


def _bad(rank: str, detail: str) -> IllegalMove:
    return IllegalMove("RR-15", "bad_action", f"{detail}; a {rank} is played as {USES[rank]}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _keys(obj: Any, required: set[str], rank: str, what: str) -> dict[str, Any]:
    if not isinstance(obj, dict) or set(obj) != required:
        raise _bad(rank, f"{what} needs exactly the fields {', '.join(sorted(required))}")
    return obj


def _pawn(name: Any) -> int:
    if not isinstance(name, str) or name not in PAWN_INDEX:
        raise IllegalMove("RR-16", "unknown_pawn", f"unknown pawn {name!r}: use c1, c2, r or car")
    return PAWN_INDEX[name]


def parse_action(rank: str, action: Any, seven_max: int) -> Play:
    """Turn the ``action`` of a play_card move with a card of ``rank`` into a Play."""
    if not isinstance(action, dict) or len(action) == 0:
        raise _bad(rank, "the action must be an object")
    if "move" in action:
        if rank == "A":
            obj = _keys(action, {"move", "steps"}, rank, "an ace move")
            if obj["steps"] not in ACE_STEPS or not _is_int(obj["steps"]):
                raise IllegalMove("RR-15", "bad_steps", "an ace moves exactly 1 or 11 steps")
            return Play("forward", parts=((_pawn(obj["move"]), obj["steps"]),), ace=True)
        if rank in FORWARD_STEPS:
            obj = _keys(action, {"move"}, rank, "a move")
            return Play("forward", parts=((_pawn(obj["move"]), FORWARD_STEPS[rank]),))
        if rank == "4":
            obj = _keys(action, {"move"}, rank, "a move")
            return Play("backward", parts=((_pawn(obj["move"]), 4),))
        raise _bad(rank, "this card does not move a pawn by steps")
    if "enter" in action:
        if rank not in ("A", "K"):
            raise IllegalMove("RR-16", "enter_needs_ace_or_king", "only a king or an ace enters pawns")
        obj = _keys(action, {"enter"}, rank, "an entry")
        return Play("enter", entries=_entries(rank, obj["enter"]))
    if "split" in action:
        if rank != "7":
            raise _bad(rank, "only a 7 is split")
        obj = _keys(action, {"split"}, rank, "a split")
        return Play("split", parts=_split(obj["split"], seven_max))
    if "swap" in action:
        if rank != "J":
            raise _bad(rank, "only a jack swaps")
        obj = _keys(action, {"swap"}, rank, "a swap")
        spec = _keys(obj["swap"], {"pawn", "target_seat", "target_pawn"}, rank, "the swap")
        if not _is_int(spec["target_seat"]):
            raise IllegalMove("RR-30", "bad_target_seat", "target_seat must be a seat number")
        return Play("swap", swap=(_pawn(spec["pawn"]), spec["target_seat"], _pawn(spec["target_pawn"])))
    raise _bad(rank, "unknown action")


def _entries(rank: str, value: Any) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not value:
        raise IllegalMove("RR-25", "nothing_to_enter", "enter needs a non-empty list of {pawn, slot}")
    out: list[tuple[int, int]] = []
    for item in value:
        obj = _keys(item, {"pawn", "slot"}, rank, "each entry")
        slot = obj["slot"]
        if not _is_int(slot) or not 0 <= slot < SLOTS:
            raise IllegalMove("RR-25", "bad_slot", "a pawn enters on one of your start squares, slot 0 to 3")
        out.append((_pawn(obj["pawn"]), slot))
    pawns = [idx for idx, _ in out]
    if len(set(pawns)) != len(pawns):
        raise IllegalMove("RR-25", "same_pawn", "each pawn can be entered only once")
    # RR-25: an entry is a set of pawns; any listed order means the same play, kept as c1, c2, r, car
    return tuple(sorted(out))


def _split(value: Any, seven_max: int) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not value:
        raise IllegalMove("RR-21", "bad_split", "a 7 needs a non-empty list of {pawn, steps}")
    out: list[tuple[int, int]] = []
    for item in value:
        obj = _keys(item, {"pawn", "steps"}, "7", "each part")
        steps = obj["steps"]
        if not _is_int(steps) or steps < 1:
            raise IllegalMove("RR-21", "bad_split_steps", "each part of a 7 moves a pawn at least 1 step")
        out.append((_pawn(obj["pawn"]), steps))
    pawns = [idx for idx, _ in out]
    if len(set(pawns)) != len(pawns):
        raise IllegalMove("RR-21", "same_pawn_twice", "each part of a 7 must move a different pawn")
    if len(out) > seven_max:
        raise IllegalMove("RR-21", "too_many_parts", f"a 7 may be split over at most {seven_max} pawns")
    if sum(steps for _, steps in out) != SEVEN_STEPS:
        raise IllegalMove("RR-21", "split_total", "the parts of a 7 must add up to exactly 7 steps")
    return tuple(out)


def action_json(play: Play) -> dict[str, Any]:
    """The action object of a Play, exactly as a client posts it."""
    if play.kind == "forward":
        idx, steps = play.parts[0]
        return {"move": PAWNS[idx], "steps": steps} if play.ace else {"move": PAWNS[idx]}
    if play.kind == "backward":
        return {"move": PAWNS[play.parts[0][0]]}
    if play.kind == "split":
        return {"split": [{"pawn": PAWNS[idx], "steps": steps} for idx, steps in play.parts]}
    if play.kind == "enter":
        return {"enter": [{"pawn": PAWNS[idx], "slot": slot} for idx, slot in play.entries]}
    own, target_seat, target_idx = play.swap
    return {"swap": {"pawn": PAWNS[own], "target_seat": target_seat, "target_pawn": PAWNS[target_idx]}}
