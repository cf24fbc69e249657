"""The whole-game hand check (tests/support/hidden_cards.py) on ROPARUN steps played by the engine.

Found by ``test_engines_over_http_roparun.py`` failing once ("seat 0 sees ['JD', 'JH'] in its events",
2026-12-04): within one step a seat can be dealt cards (RR-6) that the reshuffle at the cycle's end puts
into another hand (RR-8), when no seat has a legal play in the last deal of a cycle (RR-12). Its copy of
the step's ``CardsDealt`` rightly shows the seat its own dealt hand; the check must not call that a
leak, and must still catch a seat given another seat's hand."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import Event, GameConfig
from services.games.service_layer.selfplay import seeds_for
from tests.support.hidden_cards import held_during, hidden_cards, leaked_in_events

from .helpers import ENGINE

THREE_PLAYERS = next(c for c in ENGINE.variants() if c.num_players == 3)
# self-play game 1305 (3 players) holds a deal whose seats all have no legal play, at its step 148
RESHUFFLED_GAME = 1305


class Step:
    """One move and the events the rules add after it, with the state before and after each event."""

    def __init__(self, events: list[Event], states: list[Any]) -> None:
        self.events, self.states = events, states  # states[0]: before the step; states[k + 1]: after event k

    def copies(self, seat: int | None, leaky_as: int | None = None) -> str:
        """``seat``'s copy (None: a spectator's) of the step's events; ``leaky_as``: a broken server that
        hands out another seat's copy instead."""
        viewer = seat if leaky_as is None else leaky_as
        return json.dumps(
            [ENGINE.redact_event(e, viewer, b, a) for e, b, a in zip(self.events, self.states[:-1], self.states[1:], strict=True)]
        )

    def types(self) -> list[str]:
        return [str(e.get("type")) for e in self.events]

    def leaked(self, seat: int, with_held: bool = True, leaky_as: int | None = None) -> list[str]:
        now = ENGINE.full_view(self.states[-1])
        secret = hidden_cards(now, json.dumps(ENGINE.view(self.states[-1], None)), seat)
        held = held_during((ENGINE.full_view(s) for s in self.states), seat) if with_held else set()
        return leaked_in_events(secret, self.copies(None), held, self.copies(seat, leaky_as))


def steps(config: GameConfig, game: int) -> Iterator[Step]:
    chooser, seeds = random.Random(game), seeds_for(game)
    progress, _ = open_game(ENGINE, config, seeds)
    while ENGINE.outcome(progress.state) is None:
        seat = chooser.choice(ENGINE.to_move(progress.state))
        move = chooser.choice(ENGINE.selfplay_moves(progress.state, seat))
        states = [progress.state]
        events = apply_move(ENGINE, progress, seat, move, seeds, lambda p, into=states: into.append(p.state))
        yield Step(events, states)


def redealt_after_a_deal(step: Step) -> bool:
    types = step.types()
    return "CardsDealt" in types and "CycleEnded" in types[types.index("CardsDealt"):]


def test_cards_a_seat_was_dealt_and_lost_to_the_reshuffle_in_one_step_are_no_leak() -> None:
    """RR-6, RR-8, RR-12: the deal, every seat without a legal play, the cycle's end and the reshuffle
    in one step. Each seat's copy shows the cards it was dealt, some now in another hand."""
    step = next(s for s in steps(THREE_PLAYERS, RESHUFFLED_GAME) if redealt_after_a_deal(s))
    assert {"TurnEnded", "DealEnded", "ChanceResolved"} <= set(step.types())
    without_held = {seat: step.leaked(seat, with_held=False) for seat in range(3)}
    assert any(without_held.values()), "some seat saw its dealt cards move to another hand"
    for seat in range(3):
        assert step.leaked(seat) == [], f"seat {seat} only saw cards it held in this step"


def test_a_seat_given_another_seats_copy_of_a_deal_is_caught() -> None:
    """RR-6 and the hidden hands: a server that sent seat 0 seat 1's ``CardsDealt`` leaks seat 1's hand."""
    step = next(
        s for s in steps(THREE_PLAYERS, RESHUFFLED_GAME) if "CardsDealt" in s.types() and not redealt_after_a_deal(s)
    )
    assert step.leaked(0) == []
    assert step.leaked(0, leaky_as=1) != []
