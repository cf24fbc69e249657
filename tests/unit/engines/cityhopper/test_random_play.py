"""Random play: 50 seeded games to the end per variant (2, 3 and 4 players) with the in-process
question provider; invariants after every event, replay equal to the live game."""

from __future__ import annotations

import pytest

from services.games.engines.base import GameConfig
from services.games.service_layer.selfplay import selfplay

from .helpers import E


@pytest.mark.parametrize("cfg", E.variants(), ids=lambda c: f"n{c.num_players}")
def test_random_play_50_games(cfg: GameConfig) -> None:
    """CH-3, CH-4, CH-11, CH-30, CH-34, CH-40, CH-47, CH-48: the invariants hold in random games."""
    report = selfplay(E, cfg, games=50, seed=cfg.num_players)
    assert report.ok, report.failures
    assert report.games == 50 and report.unfinished == 0 and report.moves > 0


def test_invariants_catch_broken_states() -> None:
    from .helpers import Game

    g = Game(2).turn(0, "delft", 3)
    s = g.edit()
    s.players[0].money = -1
    s.owners["venlo"] = 1
    s.green.pop()
    problems = E.invariants(s)
    assert any(p.startswith("CH-34") for p in problems)
    assert any(p.startswith("CH-40") for p in problems)
    assert any(p.startswith("CH-54") for p in problems)
