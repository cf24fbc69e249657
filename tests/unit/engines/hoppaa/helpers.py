"""Builders for HopPaa test states: crafted deals and scoring positions."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event, GameConfig, Move
from services.games.engines.hoppaa import HopPaaEngine
from services.games.engines.hoppaa.cards import deck
from services.games.engines.hoppaa.state import SCORING, HopPaaState

ENGINE = HopPaaEngine()
A, B, C, D = 0, 1, 2, 3  # the spec's seats: A deals round 1, B opens


def config(n: int = 4, **options: Any) -> GameConfig:
    return GameConfig(n, ENGINE.normalize_options(n, options))


def deal_event(state: HopPaaState, hands: dict[int, list[str]] | None = None) -> Event:
    """A shuffle whose deal gives each listed seat (at least) the listed cards."""
    n = state.num_players
    canonical = list(deck(n))
    hands = hands or {}
    order: list[str | None] = [None] * len(canonical)
    used: set[str] = set()
    for seat, cards in hands.items():
        k = (seat - state.dealer - 1) % n
        for j, card in enumerate(cards):
            order[j * n + k] = card
            used.add(card)
    rest = iter(c for c in canonical if c not in used)
    full = [c if c is not None else next(rest) for c in order]
    values = [canonical.index(c) for c in full]
    return {
        "type": CHANCE_EVENT,
        "purpose": "deal",
        "kind": "shuffle",
        "n": len(values),
        "sides": 6,
        "counter": 0,
        "values": values,
    }


def new_game(n: int = 4, hands: dict[int, list[str]] | None = None, **options: Any) -> HopPaaState:
    """Opened and dealt (round 1, dealer A unless first_dealer is given)."""
    cfg = config(n, **options)
    state = ENGINE.initial_state(cfg)
    for event in ENGINE.opening_events(cfg):
        state = ENGINE.evolve(state, event)
    return ENGINE.evolve(state, deal_event(state, hands))


def act(state: HopPaaState, seat: int, move: Move) -> tuple[HopPaaState, list[Event]]:
    events = ENGINE.decide(state, seat, move)
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def run(state: HopPaaState, moves: list[tuple[int, Move]]) -> HopPaaState:
    for seat, move in moves:
        state, _ = act(state, seat, move)
    return state


def white(state: HopPaaState, use: bool = False) -> HopPaaState:
    """Settle the white-pawn question (default timing: right after the deal)."""
    seat = state.white_offer
    assert seat is not None
    return act(state, seat, {"type": "choose_white_pawn", "use": use})[0]


def bid_all(state: HopPaaState, bids: list[int], trump: str = "none") -> HopPaaState:
    """Bids in bidding order (opener first), each followed by a discard of the lowest-listed card."""
    for k, n in enumerate(bids):
        seat = state.turn
        assert seat is not None
        move: Move = {"type": "bid", "n": n}
        if k == 0:
            move["trump"] = trump
        state, _ = act(state, seat, move)
        state, _ = act(state, seat, {"type": "discard", "card": state.hands[seat][-1]})
    return state


def scoring_state(
    pawns: list[list[int]],
    bids: list[int],
    tricks: list[int],
    n: int = 4,
    opener: int = B,
    white_seat: int | None = None,
    index: int = 0,
    **options: Any,
) -> HopPaaState:
    """A state at the scoring step of seat (opener + index), with the given results."""
    state = new_game(n, **options).clone()
    state.phase = SCORING
    state.opener = opener
    state.dealer = (opener - 1) % n
    state.pawns = [list(p) for p in pawns]
    state.bids = list(bids)  # type: ignore[arg-type]
    state.bid_order = [(opener + k) % n for k in range(n)]
    state.tricks_won = list(tricks)
    state.white_offer = white_seat if white_seat is not None else opener
    state.white_used = white_seat is not None
    state.scoring_index = index
    state.hands = [[] for _ in range(n)]
    state.deck = list(deck(n))  # keep every card somewhere
    return state


def scoring_moves(state: HopPaaState) -> list[Move]:
    seat = state.scoring_seat
    assert seat is not None
    return ENGINE.legal_moves(state, seat)


def forward_options(state: HopPaaState) -> set[tuple[str, int]]:
    return {(m["pawn"], m["steps"]) for m in scoring_moves(state) if m["type"] == "choose_pawn_move"}


def finish_round(state: HopPaaState) -> tuple[HopPaaState, list[Event]]:
    """Play the first legal move until a new round is dealt (or the game ends)."""
    start = state.round
    log: list[Event] = []
    while state.round == start and ENGINE.outcome(state) is None:
        if ENGINE.chance_request(state) is not None:
            event = deal_event(state)
            state = ENGINE.evolve(state, event)
            log.append(event)
            continue
        seat = ENGINE.to_move(state)[0]
        state, events = act(state, seat, ENGINE.legal_moves(state, seat)[0])
        log += events
    return state, log
