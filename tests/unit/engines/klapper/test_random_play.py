"""Random play: at least 50 seeded games to the end for every variant, invariants after every
event, replay equal to the live game (services.games.service_layer.selfplay)."""

from __future__ import annotations

import pytest

from services.games.engines.base import GameConfig
from services.games.service_layer.selfplay import selfplay

from .support import E

VARIANTS = E.variants()


def _label(cfg: GameConfig) -> str:
    o = cfg.options
    return f"n{cfg.num_players}-{o['seating']}-{o['roem_tie']}-r2{o['round2_turned_suit']}-cmp{o['compare_with_roem']}"


def test_variants_cover_every_player_count_and_option() -> None:
    assert {c.num_players for c in VARIANTS} == {2, 3, 4, 6}
    assert {c.options["seating"] for c in VARIANTS} == {"omboeren", "fixed"}
    assert {c.options["roem_tie"] for c in VARIANTS} == {"nobody", "voorhand_first"}
    assert {c.options["round2_turned_suit"] for c in VARIANTS} == {True, False}
    assert {c.options["compare_with_roem"] for c in VARIANTS} == {True, False}


@pytest.mark.parametrize("cfg", VARIANTS, ids=_label)
def test_random_play_50_games_per_variant(cfg: GameConfig) -> None:
    """KL-6, KL-25, KL-28, KL-35, KL-37, KL-39: invariants hold in 50 random games."""
    report = selfplay(E, cfg, games=50, seed=cfg.num_players * 7 + len(_label(cfg)))
    assert report.ok, report.failures
    assert report.games == 50 and report.moves > 0 and report.unfinished == 0
