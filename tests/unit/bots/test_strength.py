"""Direction of playing strength, on few seeded games and with a wide margin (issue 18, "Measure").

The full figures (200 games per pairing, confidence intervals, move times) come from ``bench/bots.py``.
Seeded games are deterministic (the search runs on an iteration budget), so these counts are fixed.
"""

from __future__ import annotations

import pytest

from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import fixed_budget
from services.games.engines.base import GameConfig

pytestmark = pytest.mark.slow  # about a minute on an idle 2-core machine, several under load


def _wins(game_type: str, config: GameConfig, high: str, low: str, games: int, iterations: int) -> int:
    wins = 0
    for g in range(games):
        hero = g % 2
        bots = [Bot(high if s == hero else low, 100 * g + s) for s in range(2)]
        result = play_game(game_type, config, 500 + g, bots, lambda _: fixed_budget(iterations))
        assert result.finished
        wins += hero in result.winners()
    return wins


def test_klapper_rules_beats_random() -> None:
    assert _wins("klapper", GameConfig(2, {"target": 100}), "rules", "random", 12, 1) >= 9


@pytest.mark.skip(
    reason="not established: at bench budgets (6 sampled deals a move) bench/bots.py measured Klapper strong "
    "v rules at 0.475 [0.407, 0.544] over 200 games (rules v rules on those seeds: 0.465)"
)
def test_klapper_strong_beats_rules() -> None:
    assert _wins("klapper", GameConfig(2, {"target": 100}), "strong", "rules", 10, 6) >= 6


def test_hoppaa_rules_beats_random() -> None:
    assert _wins("hoppaa", GameConfig(2, {"pawns_per_player": 1}), "rules", "random", 12, 1) >= 7


def test_hoppaa_strong_beats_rules() -> None:
    assert _wins("hoppaa", GameConfig(2, {"pawns_per_player": 1}), "strong", "rules", 6, 6) >= 4
