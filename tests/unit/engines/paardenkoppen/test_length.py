"""PK-R-LEN, the length guard's ruling (issue 17.2): ``until_cannot_ante`` and ``tie_rule = play_on``
have no round limit (PK-21, PK-23); a table plays at most ``max_rounds`` rounds and then ends as if PK-21
had stopped it."""

from __future__ import annotations

import copy

import pytest

from services.games.domain import length
from services.games.engines.base import InvalidOptions
from services.games.engines.paardenkoppen import PaardenkoppenEngine
from tests.unit.engines.length_support import assert_stops_exactly_at_the_cap

ENGINE = PaardenkoppenEngine()


def test_PK_R_LEN_PK_21_until_cannot_ante_stops_when_the_next_round_would_start() -> None:
    """PK-R-LEN: in until_cannot_ante mode round max_rounds + 1 does not start (no antes are paid)."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 3, {"end_mode": "until_cannot_ante", "max_rounds": 2})
    assert at.state.round_no == 2 and at.state.round_over


def test_PK_R_LEN_PK_23_play_on_is_capped_too() -> None:
    """PK-R-LEN with PK-23: play_on's extra rounds stop at max_rounds."""
    config, record = length.split_options(ENGINE, 4, {"rounds": 1, "tie_rule": "play_on", "max_rounds": 1})
    assert record is not None and record["limit"] == 1 and config["rounds"] == 1


def test_PK_R_LEN_PK_21_fixed_rounds_end_first() -> None:
    """PK-R-LEN: in fixed_rounds mode max_rounds must be at least rounds, so the spec's own end (R6) comes first."""
    with pytest.raises(InvalidOptions) as caught:
        length.split_options(ENGINE, 4, {"rounds": 10, "max_rounds": 9})
    assert caught.value.field == "max_rounds" and caught.value.rule == "PK-R-LEN"
    options, _ = length.split_options(ENGINE, 4, {"end_mode": "until_cannot_ante", "max_rounds": 3})
    assert options["max_rounds"] == 3 and options["rounds"] == 10


def test_PK_R_LEN_PK_22_PK_23_balances_decide_tied_highest_share() -> None:
    """PK-R-LEN: score = balance (PK-22); players tied for the highest share the win (PK-23)."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 3, {"end_mode": "until_cannot_ante", "max_rounds": 1})
    state = copy.deepcopy(at.state)
    state.balances = [250, 250, 100]
    outcome = ENGINE.adjudicate(state)
    assert outcome.scores == [250.0, 250.0, 100.0] and outcome.ranks == [1, 1, 3]
    assert "PK-R-LEN" in outcome.reason
