"""KL-R-LEN, the length guard's ruling (issue 17.2): void deals (KL-14) and equal scores (KL-R18) can go
on without end; a table plays at most ``max_deals`` deals and is then adjudicated on the scores (KL-39)."""

from __future__ import annotations

import copy

from services.games.engines.klapper import KlapperEngine
from tests.unit.engines.length_support import assert_stops_exactly_at_the_cap

ENGINE = KlapperEngine()


def test_KL_R_LEN_KL_14_game_stops_when_the_next_deal_would_be_dealt() -> None:
    """KL-R-LEN: the deal after deal max_deals is not dealt; the game is adjudicated instead."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 4, {"max_deals": 1})
    assert at.state.deal_no == 1


def test_KL_R_LEN_KL_39_KL_R18_higher_side_score_wins_equal_scores_share() -> None:
    """KL-R-LEN: ranked as KL-39 ranks the sides, also below 500; equal scores share (KL-R18 would play on)."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 4, {"max_deals": 1})
    state = copy.deepcopy(at.state)
    state.score = [312, 280]
    outcome = ENGINE.adjudicate(state)
    assert outcome.team_scores == [312.0, 280.0] and outcome.team_ranks == [1, 2]
    assert outcome.ranks == [1 if state.side_of[s] == 0 else 2 for s in range(4)]
    state.score = [480, 480]
    assert ENGINE.adjudicate(state).ranks == [1, 1, 1, 1] and "KL-R-LEN" in ENGINE.adjudicate(state).reason


def test_KL_R_LEN_KL_47_two_players_each_a_side() -> None:
    """KL-R-LEN with KL-47: with 2 players each player is a side."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 2, {"max_deals": 2}, seed=3)
    state = copy.deepcopy(at.state)
    state.score = [100, 150]
    outcome = ENGINE.adjudicate(state)
    assert outcome.ranks == [2, 1] and outcome.teams is None
