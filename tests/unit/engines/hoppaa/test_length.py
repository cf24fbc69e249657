"""HP-R-LEN, the length guard's ruling (issue 17.2): HP-46 sets no round limit on the rules of play; the
platform adjudicates a table at ``max_rounds`` rounds (default 300) on pawn squares."""

from __future__ import annotations

import pytest

from services.games.domain import length
from services.games.domain.table import Table
from services.games.engines.base import InvalidOptions
from services.games.engines.hoppaa import HopPaaEngine
from tests.unit.engines.hoppaa.helpers import new_game
from tests.unit.engines.length_support import assert_stops_exactly_at_the_cap

ENGINE = HopPaaEngine()


def test_HP_R_LEN_HP_46_uniform_random_two_player_game_stops_when_round_three_would_start() -> None:
    """HP-R-LEN: HP-46 says no round limit; with uniformly random moves the 2-player game never ends
    (the issue saw 527 rounds), so the guard stops it when round max_rounds + 1 would start."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 2, {"max_rounds": 2})
    assert at.state.round == 2


def test_HP_R_LEN_default_300_rounds_and_bounds() -> None:
    """HP-R-LEN: the platform adjudicates at 300 rounds by default (issue 17: no game runs forever; HP-46's
    "no round limit" is about the rules of play, which never see the option); a table sets 1..1000, and
    anything else (no limit included) is refused naming the option and the ruling."""
    limit = ENGINE.length_limit
    assert limit is not None and (limit.option, limit.unit, limit.default, limit.rule) == (
        "max_rounds", "rounds", 300, "HP-R-LEN")
    options, record = length.split_options(ENGINE, 4, {})
    assert options["max_rounds"] == 300 and record == {"option": "max_rounds", "unit": "rounds", "limit": 300,
                                                        "rule": "HP-R-LEN"}
    options, record = length.split_options(ENGINE, 2, {"max_rounds": 1000})
    assert options["max_rounds"] == 1000 and record is not None and record["limit"] == 1000
    assert length.engine_options(options, record) == ENGINE.normalize_options(2, {})  # the engine never sees it
    for bad in (0, 1001, True, "5", None):
        with pytest.raises(InvalidOptions) as caught:
            length.split_options(ENGINE, 4, {"max_rounds": bad})
        assert caught.value.field == "max_rounds" and caught.value.rule == "HP-R-LEN"


def test_HP_R_LEN_a_table_that_recorded_no_maximum_keeps_none() -> None:
    """A table created while HopPaa had no default (its GameCreated has no ``max_length``) keeps no maximum:
    the guard reads the limit the table recorded, never today's default, and the engine sees its options."""
    old = Table("g")
    old.apply(ENGINE, "GameCreated", {"game_type": "hoppaa", "options": ENGINE.normalize_options(2, {}),
                                      "num_players": 2, "seats": ["a", "b"], "commitment": "c"})
    assert old.max_length is None and old.config.options == ENGINE.normalize_options(2, {})
    state = new_game(2)
    state.round = 5000  # far past any default
    assert length.over(ENGINE, old.max_length, state) is False
    assert length.over(ENGINE, {"option": "max_rounds", "unit": "rounds", "limit": 300, "rule": "HP-R-LEN"}, state)


def test_HP_R_LEN_HP_9_adjudication_sums_pawn_squares_then_the_higher_lowest_pawn() -> None:
    """HP-R-LEN: score = sum of the pawns' squares; equal sums go to the higher lowest pawn (the reverse of
    HP-9's white-pawn measure); what is still equal shares the rank."""
    state = new_game(4)
    state.pawns = [[10, 3], [7, 6], [20, 0], [6, 7]]
    outcome = ENGINE.adjudicate(state)
    assert outcome.scores == [13.0, 13.0, 20.0, 13.0]
    assert outcome.ranks == [4, 2, 1, 2]
    assert "HP-R-LEN" in outcome.reason and outcome.teams is None


def test_HP_R_LEN_HP_43_team_mode_counts_both_partners() -> None:
    """HP-R-LEN with HP-43: in team mode both partners' pawns count for the team."""
    state = new_game(4, mode="team")
    state.pawns = [[35, 35], [20, 20], [0, 0], [10, 10]]
    outcome = ENGINE.adjudicate(state)
    assert outcome.teams == [[0, 2], [1, 3]] and outcome.team_scores == [70.0, 60.0]
    assert outcome.team_ranks == [1, 2] and outcome.ranks == [1, 2, 1, 2]


def test_HP_R_LEN_the_issues_game_ends_at_the_default_300_rounds() -> None:
    """HP-R-LEN, issue 17: a uniformly random 2-player game (which HP-46's rules of play let run for ever)
    with the default options is stopped when round 301 would start."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 2, {}, seed=7)
    assert at.state.round == 300
