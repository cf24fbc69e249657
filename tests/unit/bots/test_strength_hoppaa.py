"""HopPaa: strong beats rules and rules beats random (the method and the seeded figures: ``strength.py``)."""

from __future__ import annotations

import pytest

from services.games.engines.base import GameConfig
from tests.unit.bots.strength import ALPHA, duplicate, sign_test_p

pytestmark = pytest.mark.slow(cpu_seconds=120)  # measured alone (strength.py)


def test_strong_beats_rules() -> None:
    won, lost, games = duplicate("hoppaa", GameConfig(2, {"pawns_per_player": 1}), "strong", "rules", 48, 6)
    assert sign_test_p(won, lost) <= ALPHA, (won, lost, games)


def test_rules_beats_random() -> None:
    # HopPaa's random already plays only the sensible moves (hoppaa_sensible); seeded: 14 v 0 of 24 deals
    won, lost, games = duplicate("hoppaa", GameConfig(2, {"pawns_per_player": 1}), "rules", "random", 24, 1)
    assert sign_test_p(won, lost) <= ALPHA, (won, lost, games)
