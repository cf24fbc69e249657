"""Klapper: strong beats rules and rules beats random (the method and the seeded figures: ``strength.py``)."""

from __future__ import annotations

import pytest

from services.games.engines.base import GameConfig
from tests.unit.bots.strength import ALPHA, duplicate, sign_test_p

pytestmark = pytest.mark.slow(cpu_seconds=135)  # measured alone (strength.py)


def test_strong_beats_rules() -> None:
    won, lost, games = duplicate("klapper", GameConfig(2, {"target": 1}), "strong", "rules", 64, 30)
    assert sign_test_p(won, lost) <= ALPHA, (won, lost, games)


def test_rules_beats_random() -> None:
    won, lost, games = duplicate("klapper", GameConfig(2, {"target": 1}), "rules", "random", 20, 1)
    assert sign_test_p(won, lost) <= ALPHA, (won, lost, games)
