"""Paardenkoppen: one whole game per player count over HTTP, never leaking a hand (``whole_games.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.whole_games import cases, play_whole_game_checking_hands

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("num_players", "options"), cases("paardenkoppen"))
def test_whole_game_over_http_never_leaks_hands(games_url: str, num_players: int, options: dict[str, Any]) -> None:
    play_whole_game_checking_hands(games_url, "paardenkoppen", num_players, options)
