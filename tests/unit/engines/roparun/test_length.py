"""RR-R-LEN, the length guard's ruling (issue 17.2): RR-38 ends the game only when a team finishes; a table
plays at most ``max_deals`` deals and is then adjudicated on pawn progress."""

from __future__ import annotations

import copy

from services.games.engines.roparun import RoparunEngine
from services.games.engines.roparun.board import OFF
from tests.unit.engines.length_support import assert_stops_exactly_at_the_cap

ENGINE = RoparunEngine()


def test_RR_R_LEN_RR_38_game_stops_when_the_next_deal_would_be_dealt() -> None:
    """RR-R-LEN: no team finished (RR-38) within max_deals deals: the next deal is not dealt."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 2, {"max_deals": 2})
    assert at.state.deal_no == 2


def test_RR_R_LEN_B_5_B_6_progress_then_pawns_home_equal_shares() -> None:
    """RR-R-LEN: progress per pawn: off-route 0, route code c counts c+1, finish place Fi counts N+i
    (B-5, B-6); then pawns in the finish column; equal standings share the rank."""
    at = assert_stops_exactly_at_the_cap(ENGINE, 3, {"max_deals": 1})
    state = copy.deepcopy(at.state)
    n = state.board.n
    state.pawns = [[OFF, 4, 9, 0], [n, OFF, OFF, 9], [2, 2, 5, 4], [OFF, OFF, OFF, OFF]][:3]
    outcome = ENGINE.adjudicate(state)
    assert outcome.scores == [float(0 + 5 + 10 + 1), float(n + 1 + 10), float(3 + 3 + 6 + 5)]
    assert outcome.ranks == [3, 1, 2] and "RR-R-LEN" in outcome.reason
    state.pawns = [[n, 0, OFF, OFF], [n - 1, 1, OFF, OFF], [OFF] * 4]  # equal progress; F1 against the last square
    outcome = ENGINE.adjudicate(state)
    assert outcome.scores[0] == outcome.scores[1] and outcome.ranks == [1, 2, 3]
