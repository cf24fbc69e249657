"""Builders and drivers for the Paardenkoppen tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.games.domain.play import SeedMaterial
from services.games.engines.base import CHANCE_EVENT, Event, GameConfig, chance_event
from services.games.engines.paardenkoppen import PaardenkoppenEngine
from services.games.engines.paardenkoppen.cards import ANIMALS, DECK_SIZE, card_id, make_card, parse_card
from services.games.engines.paardenkoppen.state import PLAYING, START_BALANCE, PKState

ENGINE = PaardenkoppenEngine()
A, B, C, D, E, F = range(6)
IDENTITY = list(range(DECK_SIZE))


def config(n: int = 4, **options: Any) -> GameConfig:
    return GameConfig(n, ENGINE.normalize_options(n, options))


def fold(state: PKState, events: Sequence[Event]) -> PKState:
    for event in events:
        state = ENGINE.evolve(state, event)
    return state


def deal_event(values: list[int] | None = None, counter: int = 0) -> Event:
    return {
        "type": CHANCE_EVENT,
        "purpose": "deal",
        "kind": "shuffle",
        "n": DECK_SIZE,
        "sides": 6,
        "counter": counter,
        "values": IDENTITY if values is None else values,
    }


def started(n: int = 4, start: int = 0, values: list[int] | None = None, **options: Any) -> PKState:
    """A game whose round 1 has been dealt (start player configured)."""
    cfg = config(n, first_start_player=start, **options)
    state = fold(ENGINE.initial_state(cfg), ENGINE.opening_events(cfg))
    return ENGINE.evolve(state, deal_event(values))


def run(low: int, high: int) -> tuple[int, ...]:
    """A played order for a row low..high: the 6, then 5 down to low, then 7 up to high."""
    return (6, *range(5, low - 1, -1), *range(7, high + 1))


def arrange(
    state: PKState,
    rows: Mapping[str, tuple[int, int]] | None = None,
    hands: Mapping[int, Sequence[str]] | None = None,
    *,
    fields: Sequence[int] | None = None,
    pot: int | None = None,
    balances: Sequence[int] | None = None,
    to_move: int | None = None,
    round_no: int | None = None,
) -> PKState:
    """A copy of ``state`` with the given rows (animal -> (low, high)) and hands.

    Cards in no given row or hand go round-robin to the seats whose hands were not given, so
    the 52 cards stay complete whenever some seat is left unspecified. Chips are rebalanced
    onto the seats not given in ``balances`` so that PK-24 holds when that is possible.
    """
    s = state.clone()
    rows = rows or {}
    hands = hands or {}
    s.rows = [(), (), (), ()]
    s.lows = [0, 0, 0, 0]
    s.highs = [0, 0, 0, 0]
    used: set[int] = set()
    for name, (low, high) in rows.items():
        animal = ANIMALS.index(name)
        s.rows[animal] = run(low, high)
        s.lows[animal], s.highs[animal] = low, high
        used.update(make_card(animal, r) for r in range(low, high + 1))
    given: dict[int, list[int]] = {}
    for seat, ids in hands.items():
        cards = [parse_card(i) for i in ids]
        assert all(c is not None for c in cards), ids
        given[seat] = sorted(c for c in cards if c is not None)
        assert not used.intersection(given[seat]), "a card is both in a row and in a hand"
        used.update(given[seat])
    free = [seat for seat in range(s.num_players) if seat not in given]
    rest = [c for c in range(DECK_SIZE) if c not in used]
    filled: dict[int, list[int]] = {seat: [] for seat in free}
    for k, card in enumerate(rest):
        if free:
            filled[free[k % len(free)]].append(card)
    s.hands = [tuple(given.get(seat, filled.get(seat, []))) for seat in range(s.num_players)]
    if fields is not None:
        s.fields = list(fields)
    if pot is not None:
        s.pot = pot
    if balances is not None:
        s.balances = list(balances)
    else:  # keep PK-24: the last seat absorbs the difference
        s.balances[-1] += START_BALANCE * s.num_players - sum(s.balances) - sum(s.fields) - s.pot
    # a ledger consistent with the arranged chips (see invariants._chip_problems)
    led = s.ledger
    s.round_pass_paid = s.pot
    led.passes = led.pot_payouts + s.pot
    led.antes = max(led.antes, sum(s.fields))
    led.head_payouts = led.antes - sum(s.fields)
    if to_move is not None:
        s.current_seat = to_move
    if round_no is not None:
        s.round_no = round_no
    s.phase = PLAYING
    s.round_over = False
    s.last_pass = None
    return s


def with_turn(state: PKState, seat: int) -> PKState:
    s = state.clone()
    s.current_seat = seat
    return s


def strings(obj: object) -> set[str]:
    """Every string inside a JSON-like value (keys and values)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(k) | strings(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


def card_ids(cards: Sequence[int]) -> list[str]:
    return [card_id(c) for c in cards]


def legal(state: PKState, seat: int | None = None) -> list[dict[str, Any]]:
    return ENGINE.legal_moves(state, state.current_seat if seat is None else seat)


def play(state: PKState, card: str, seat: int | None = None) -> tuple[PKState, list[Event]]:
    seat = state.current_seat if seat is None else seat
    events = ENGINE.decide(state, seat, {"type": "play_card", "card": card})
    return fold(state, events), events


def pass_turn(state: PKState, seat: int | None = None) -> tuple[PKState, list[Event]]:
    seat = state.current_seat if seat is None else seat
    events = ENGINE.decide(state, seat, {"type": "pass"})
    return fold(state, events), events


EventHook = Callable[[Event, PKState, PKState], None]


def drive(
    cfg: GameConfig,
    game_seed: int,
    *,
    on_event: EventHook | None = None,
    stop: Callable[[PKState], bool] | None = None,
    state: PKState | None = None,
    chance_count: int = 0,
) -> tuple[PKState, list[Event], int]:
    """Play random legal moves (chance from a seed) until the game ends or ``stop`` holds."""
    seeds = SeedMaterial(f"pk-test-{game_seed}".encode(), f"g{game_seed}", ())
    chooser = random.Random(game_seed)
    log: list[Event] = []

    def apply_all(events: Sequence[Event]) -> None:
        nonlocal state
        assert state is not None
        for event in events:
            before, state = state, ENGINE.evolve(state, event)
            log.append(event)
            if on_event is not None:
                on_event(event, before, state)

    def settle() -> None:
        nonlocal chance_count
        assert state is not None
        while (request := ENGINE.chance_request(state)) is not None:
            values = seeds.values(chance_count, request.kind, request.n, request.sides)
            apply_all([chance_event(request, chance_count, values)])
            chance_count += 1

    if state is None:
        state = ENGINE.initial_state(cfg)
        apply_all(ENGINE.opening_events(cfg))
    settle()
    while ENGINE.outcome(state) is None and not (stop is not None and stop(state)):
        seat = chooser.choice(ENGINE.to_move(state))
        move = chooser.choice(ENGINE.legal_moves(state, seat))
        apply_all(ENGINE.decide(state, seat, move))
        settle()
    return state, log, chance_count
