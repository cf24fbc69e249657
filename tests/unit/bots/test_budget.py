"""The think budget holds (issue 18: "time budget per move configurable, default <= 1 s"): a search
reads the clock before every playout move, so it stops within about one engine move of
``max_seconds``, whatever the iteration budget and however long a round of playouts would be.

No real time: the fake clock advances by ``TICK`` on every ``evolve`` of the game's engine class (time
passes with the work a search does; CityHopper's races, which fold no events, tick once a turn), so a search that checked the clock only between rounds or
playouts would overrun it by a whole playout (tens to hundreds of moves)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from services.bots.domain.budget import Budget
from services.bots.domain.games.cityhopper_race import Race
from services.bots.domain.levels import choose
from services.games.engines.registry import default_registry
from tests.unit.bots.positions import positions

TICK = 0.001  # seconds of "work" per evolve
BUDGET_S = 0.05  # 50 evolves
SLACK = 25  # evolves one move may take (its events and the chance settled after it)


class WorkClock:
    def __init__(self) -> None:
        self.work = 0

    def __call__(self) -> float:
        return self.work * TICK


@pytest.mark.parametrize("game_type", ["klapper", "hoppaa", "paardenkoppen", "roparun", "cityhopper"])
def test_strong_stops_at_its_time_budget_within_one_move(
    game_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    positions_ = list(positions(game_type, range(3), max_moves=150, every=7))
    clock = WorkClock()
    cls = type(default_registry().get(game_type))
    evolve, determinize = cls.evolve, cls.determinize

    def counted(self: Any, state: Any, event: Any) -> Any:
        clock.work += 1
        return evolve(self, state, event)

    def sampled(self: Any, view: Any, seat: int, rng: random.Random) -> Any:
        clock.work += 1  # Paardenkoppen's compact playouts fold no events: each sample costs a tick
        return determinize(self, view, seat, rng)

    monkeypatch.setattr(cls, "evolve", counted)
    monkeypatch.setattr(cls, "determinize", sampled)
    go = Race.go

    def turn(self: Race, pawn: Any, steps: int, luck: Any) -> None:
        clock.work += 1  # CityHopper's races fold no events either: each turn of a race costs a tick
        go(self, pawn, steps, luck)

    monkeypatch.setattr(Race, "go", turn)
    decided = 0
    for _engine, _state, seat, view, legal in positions_:
        if len(legal) < 2:
            continue
        clock.work = 0
        budget = Budget(max_iterations=10**9, max_seconds=BUDGET_S, now=clock)
        move = choose(game_type, "strong", {"view": view}, legal, seat, random.Random(decided), budget)
        assert json.loads(json.dumps(move)) in legal
        assert clock() <= BUDGET_S + SLACK * TICK, (game_type, clock.work)
        decided += 1
    assert decided >= 3
