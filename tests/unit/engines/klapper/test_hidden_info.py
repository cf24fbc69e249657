"""Hidden information (section 4): no view or redacted event shows a card a viewer may not see."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from services.games.domain.play import Progress, apply_move, open_game
from services.games.engines.base import GameConfig
from services.games.engines.klapper.cards import NAMES
from services.games.engines.klapper.state import KlapperState
from services.games.service_layer.selfplay import seeds_for

from .support import E

CARD_NAMES = set(NAMES)


def card_strings(value: Any) -> set[str]:
    """Card ids anywhere in a JSON value, except the public omboeren cards (a separate shuffle)."""
    if isinstance(value, str):
        return {value} & CARD_NAMES
    if isinstance(value, dict):
        return set().union(*(card_strings(v) for k, v in value.items() if k != "omboeren"))
    if isinstance(value, list):
        return set().union(*(card_strings(v) for v in value))
    return set()


def hidden_from(state: KlapperState, viewer: int | None) -> set[str]:
    """Cards ``viewer`` may not see now: other hands (less the turned card and declared melds),
    every extra card not yet taken up (owner included, KL-45) and the dead hand but its turned card."""
    public = {state.turned_card} | {c for melds in state.roem for _, cards in melds for c in cards}
    hidden: set[int] = set()
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            hidden |= set(hand)
    for extra in state.extras:
        hidden |= set(extra)
    hidden |= set(state.dead_hand)
    return {NAMES[c] for c in hidden - public}


def _collector(states: list[KlapperState]) -> Callable[[Progress], None]:
    def observe(progress: Progress) -> None:
        states.append(progress.state)

    return observe


def check_views(state: KlapperState) -> None:
    for viewer in [None, *range(state.n)]:
        view = E.view(state, viewer)
        leaked = card_strings(view) & hidden_from(state, viewer)
        assert not leaked, f"seat {viewer} sees {leaked}"
        assert "hands" not in view and "dead_hand" not in view and "extras" not in view
        if viewer is None:
            assert view["hand"] is None
        elif state.hands:
            assert view["hand"] == [NAMES[c] for c in state.hands[viewer]]


@pytest.mark.parametrize("n", [4, 3, 2, 6])
def test_views_and_events_hide_other_hands(n: int) -> None:
    config = GameConfig(n, E.normalize_options(n, {}))
    for game in range(4):
        chooser = random.Random(game)
        seeds = seeds_for(1000 + game)
        previous: list[KlapperState] = [E.initial_state(config)]
        progress, log = open_game(E, config, seeds, _collector(previous))
        states = previous[1:]
        for event, after, before in zip(log, states, previous, strict=False):
            for viewer in [None, *range(n)]:
                redacted = E.redact_event(event, viewer, before, after)
                assert not card_strings(redacted) & hidden_from(after, viewer)
        while E.outcome(progress.state) is None:
            check_views(progress.state)
            seat = E.to_move(progress.state)[0]
            before = progress.state
            events = apply_move(E, progress, seat, chooser.choice(E.legal_moves(before, seat)), seeds)
            state = before
            for event in events:
                after = E.evolve(state, event)
                for viewer in [None, *range(n)]:
                    redacted = E.redact_event(event, viewer, state, after)
                    leaked = card_strings(redacted) & hidden_from(after, viewer)
                    assert not leaked, f"{event['type']} shows seat {viewer} {leaked}"
                state = after
        check_views(progress.state)  # after the end: still no dead hand (KL-46, KL-R19)


def test_deal_event_shows_each_seat_only_its_own_hand() -> None:
    config = GameConfig(4, E.normalize_options(4, {"seating": "fixed"}))
    progress, log = open_game(E, config, seeds_for(5))
    deal = log[-1]
    before = E.initial_state(config)
    for seat in range(4):
        shown = E.redact_event(deal, seat, before, progress.state)
        assert shown["values"] == "hidden"
        assert shown["hand"] == [NAMES[c] for c in progress.state.hands[seat]]
    assert E.redact_event(deal, None, before, progress.state)["hand"] is None


def test_two_player_extras_hidden_from_owner_until_bidding_ends() -> None:
    config = GameConfig(2, E.normalize_options(2, {"seating": "fixed"}))
    progress, _ = open_game(E, config, seeds_for(9))
    state = progress.state
    own_extras = {NAMES[c] for c in state.extras[1]}
    assert not card_strings(E.view(state, 1)) & own_extras
    events = E.decide(state, 1, {"type": "bid", "choice": "play"})
    taken = next(e for e in events if e["type"] == "ExtrasTakenUp")
    assert E.redact_event(taken, 1, state, state)["cards"][0] is None
    assert set(E.redact_event(taken, 1, state, state)["cards"][1]) == own_extras
    assert E.redact_event(taken, None, state, state)["cards"] == [None, None]
