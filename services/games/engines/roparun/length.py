"""RR-R-LEN, the length guard's ruling for ROPARUN (issue 17.2; README "Game length").

RR-38 ends the game only when a team has finished, and nothing in the spec bounds the number of deals:
captures send pawns off the route (RR-28), a 4 moves backward (RR-18), swaps break an opponent's order
(RR-36) and a turn without a legal play discards the hand (RR-12). The platform caps a table at
``max_deals`` deals. When deal ``max_deals + 1`` would be dealt, the game is adjudicated on the board:
a team's score is the progress of its four pawns (off the route 0, a route square its progress 1..N
counted from the team's own start, finish place Fi N+i; B-5, B-6); higher is better, then more pawns
in the finish column; what is still equal shares the rank.
"""

from __future__ import annotations

from services.games.engines.base import LengthLimit, Outcome, ranks_from_keys

from .board import OFF
from .state import RoparunState

RULE = "RR-R-LEN"
LIMIT = LengthLimit(
    option="max_deals",
    unit="deals",
    default=200,
    minimum=1,
    maximum=1000,
    rule=RULE,
    description=(
        "RR-R-LEN: at most this many deals (RR-38 ends the game only when a team finishes); when the next "
        "deal would be dealt the game is adjudicated on pawn progress (off-route 0, route square 1..N, "
        "finish Fi N+i), then pawns in the finish column; equal standings share the rank."
    ),
)


def length(state: RoparunState) -> int:
    """Deals dealt so far (1 during the first deal)."""
    return state.deal_no


def adjudicate(state: RoparunState) -> Outcome:
    n_squares = state.board.n
    scores = [float(sum(code + 1 for code in team if code != OFF)) for team in state.pawns]
    home = [float(sum(1 for code in team if code >= n_squares)) for team in state.pawns]
    ranks = ranks_from_keys(list(zip(scores, home, strict=True)))
    return Outcome(ranks, scores, f"{RULE}: adjudicated after {state.deal_no} deals on pawn progress")
