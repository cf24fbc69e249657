"""Builders for hand-made ROPARUN positions (worked examples use the default 4-player board)."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.engines.base import Event, GameConfig, IllegalMove
from services.games.engines.roparun import RoparunEngine
from services.games.engines.roparun.board import OFF, PAWN_INDEX
from services.games.engines.roparun.state import TURN, RoparunState

ENGINE = RoparunEngine()
RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3

Where = int | str  # a route square, "off", or "F1" ... "F4"


def config(n: int = 4, **options: Any) -> GameConfig:
    return GameConfig(n, ENGINE.normalize_options(n, options))


def position(
    n: int = 4,
    pawns: dict[int, dict[str, Where]] | None = None,
    hands: dict[int, list[str]] | None = None,
    current: int = RED,
    dealer: int | None = None,
    **options: Any,
) -> RoparunState:
    """A state in the middle of ``current``'s turn. Unlisted pawns keep their setup places.

    Cards not in a hand stay in the stock, so the deck is conserved.
    """
    cfg = config(n, **options)
    state = ENGINE.initial_state(cfg)
    board = state.board
    for seat, spec in (pawns or {}).items():
        for name, where in spec.items():
            idx = PAWN_INDEX[name]
            if where == "off":
                state.pawns[seat][idx] = OFF
            elif isinstance(where, str):
                state.pawns[seat][idx] = board.n + int(where[1:]) - 1
            else:
                state.pawns[seat][idx] = (where - board.base(seat)) % board.n
    state.hands = [list((hands or {}).get(seat, [])) for seat in range(n)]
    held = {card for hand in state.hands for card in hand}
    state.stock = [card for card in state.deck if card not in held]
    state.stage = TURN
    state.current = current
    state.dealer = (current - 1) % n if dealer is None else dealer
    state.cycle_no = 1
    state.deal_no = 1
    state.deal_in_cycle = 1
    state.draw_contenders = []
    return state


def play(card: str, **action: Any) -> dict[str, Any]:
    return {"type": "play_card", "card": card, "action": action}


def move(card: str, pawn: str, steps: int | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"move": pawn}
    if steps is not None:
        action["steps"] = steps
    return play(card, **action)


def split(*parts: tuple[str, int]) -> dict[str, Any]:
    return play("7H", split=[{"pawn": p, "steps": k} for p, k in parts])


def enter(card: str, *entries: tuple[str, int]) -> dict[str, Any]:
    return play(card, enter=[{"pawn": p, "slot": s} for p, s in entries])


def swap(pawn: str, target_seat: int, target_pawn: str, card: str = "JH") -> dict[str, Any]:
    return play(card, swap={"pawn": pawn, "target_seat": target_seat, "target_pawn": target_pawn})


def apply(state: RoparunState, seat: int, mv: dict[str, Any]) -> tuple[RoparunState, list[Event]]:
    """Decide and fold a move; asserts that legal_moves lists it too."""
    assert mv in ENGINE.legal_moves(state, seat), f"{mv} not listed as legal"
    events = ENGINE.decide(state, seat, mv)
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def rejected(state: RoparunState, seat: int, mv: dict[str, Any], rule: str) -> IllegalMove:
    """Asserts that ``mv`` is illegal for ``rule`` and not listed by legal_moves."""
    assert mv not in ENGINE.legal_moves(state, seat)
    with pytest.raises(IllegalMove) as info:
        ENGINE.decide(state, seat, mv)
    assert info.value.rule == rule, (info.value.rule, info.value.code, info.value.message)
    assert info.value.message
    return info.value


def where(state: RoparunState, seat: int, pawn: str) -> Where:
    """A pawn's place as the builders write it."""
    code = state.pawns[seat][PAWN_INDEX[pawn]]
    if code == OFF:
        return "off"
    if code >= state.board.n:
        return f"F{code - state.board.n + 1}"
    return state.board.square(seat, code)


def defect(state: RoparunState, seat: int) -> list[int]:
    return list(ENGINE.view(state, None)["teams"][seat]["order_defect"])


def shuffle(state: RoparunState, values: list[int] | None = None) -> RoparunState:
    """Resolve the pending shuffle (default: the canonical deck order)."""
    from services.games.engines.base import chance_event

    request = ENGINE.chance_request(state)
    assert request is not None and request.kind == "shuffle"
    return ENGINE.evolve(state, chance_event(request, 0, values or list(range(request.n))))


def force_turn_end(state: RoparunState) -> tuple[RoparunState, list[Event]]:
    """Ends the current turn (as a voluntary end) and folds the automatic events that follow."""
    seat = state.current
    assert seat is not None
    first: Event = {
        "type": "TurnEnded",
        "seat": seat,
        "reason": "voluntary",
        "discarded_count": len(state.hands[seat]),
    }
    events = ENGINE._with_auto(state, [first])
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def run_cycle(state: RoparunState) -> tuple[RoparunState, list[Event]]:
    """Ends turns until the deck cycle ends; returns the state and every event of the cycle."""
    log: list[Event] = []
    while not any(e["type"] == "CycleEnded" for e in log):
        state, events = force_turn_end(state)
        log += events
    return state, log
