"""GET /v1/pools describes each pool's player counts; they must be the counts its game really takes
(issue 15.5: HopPaa was listed as 2-6 and 4-6 players while it takes 2-4, HP-47: the team game is 4)."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.engines.registry import default_registry
from services.ratings.domain.pools import CATALOGUE


@pytest.mark.parametrize("engine", default_registry("").all(), ids=lambda e: e.game_type)
def test_pool_player_counts_are_the_engines(engine: Any) -> None:
    game_type = engine.game_type
    pools = [info for info in CATALOGUE if info.game_type == game_type]
    assert pools, f"{game_type} has no pool"
    listed = set().union(*(info.player_counts for info in pools))
    assert listed == set(engine.player_counts), (game_type, [(p.name, p.player_counts) for p in pools])
    for info in pools:
        assert set(info.player_counts) <= set(engine.player_counts), info


def test_hoppaa_team_pool_is_four_players() -> None:
    """HP-47: the HopPaa team game is 2 v 2."""
    assert {info.name: info.player_counts for info in CATALOGUE}["hoppaa/team"] == (4,)
