"""CH-R-LEN, the length guard's ruling (issue 17.2): CH-47 is the only end; a table plays at most
``max_turns`` turns and is then adjudicated on public standings."""

from __future__ import annotations

import copy

from services.games.engines.cityhopper import CityHopperEngine
from services.games.engines.cityhopper.state import EndCard
from tests.unit.engines.length_support import assert_stops_exactly_at_the_cap

ENGINE = CityHopperEngine()


def test_CH_R_LEN_CH_47_game_stops_when_the_next_turn_would_start() -> None:
    """CH-R-LEN: nobody played away every end city (CH-47) within max_turns turns: turn max_turns + 1 does
    not start."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 3, {"max_turns": 5})
    assert at.state.turn_no == 5


def test_CH_R_LEN_fewest_end_cities_left_then_money_equal_shares() -> None:
    """CH-R-LEN: fewer end cities still to play away (public count), then more money; equal shares."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 3, {"max_turns": 2})
    state = copy.deepcopy(at.state)
    cards = [EndCard("Assen"), EndCard("Leiden"), EndCard("Delft")]
    for player, held, money in zip(state.players, ([0, 1], [2], [0]), (30, 5, 5), strict=True):
        player.end_cards = [cards[i] for i in held]
        player.money = money
    outcome = ENGINE.adjudicate(state)
    assert outcome.scores == [2.0, 1.0, 1.0] and outcome.ranks == [3, 1, 1]
    state.players[2].money = 6
    assert ENGINE.adjudicate(state).ranks == [3, 2, 1] and "CH-R-LEN" in outcome.reason


def test_CH_R_LEN_uniformly_random_play_ends_at_the_default_500_turns() -> None:
    """CH-R-LEN: uniformly random play never plays away every end city (CH-47); with the default options
    it is stopped when turn 501 would start."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 2, {}, seed=7)
    assert at.state.turn_no == 500
