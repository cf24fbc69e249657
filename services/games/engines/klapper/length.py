"""KL-R-LEN, the length guard's ruling for Klapper (issue 17.2; README "Game length").

KL-39 ends the game once a side has 500 or more after a deal, but a void deal (KL-14: all pass twice)
scores nothing and equal top scores play on (KL-R18), so nothing in the spec bounds the number of
deals. The platform caps a table at ``max_deals`` deals. When deal ``max_deals + 1`` would be dealt, the
game is adjudicated on the scores after the last deal as KL-39 ranks them (KL-43, KL-47 per player):
the higher score is better, also below 500; equal scores share the rank.
"""

from __future__ import annotations

from services.games.engines.base import LengthLimit, Outcome, ranks_from_scores

from .state import KlapperState

RULE = "KL-R-LEN"
LIMIT = LengthLimit(
    option="max_deals",
    unit="deals",
    default=100,
    minimum=1,
    maximum=1000,
    rule=RULE,
    description=(
        "KL-R-LEN: at most this many deals (void deals and equal scores can otherwise go on, KL-14, KL-R18); "
        "when the next deal would be dealt the game is adjudicated on the scores as KL-39 ranks them; "
        "equal scores share the rank."
    ),
)


def length(state: KlapperState) -> int:
    """Deals dealt so far (1 during the first deal)."""
    return state.deal_no


def adjudicate(state: KlapperState) -> Outcome:
    return ranked_on_scores(state, f"{RULE}: adjudicated after {state.deal_no} deals on the scores (KL-39)")


def ranked_on_scores(state: KlapperState, reason: str) -> Outcome:
    """The outcome KL-39 ranks from the sides' scores (KL-43, KL-47: per player with 2 or 3 players;
    partnerships with 4 or 6): the game's own end and the length guard's adjudication alike."""
    side_scores = [float(s) for s in state.score]
    seat_scores = [side_scores[state.side_of[s]] for s in range(state.n)]
    if state.n in (4, 6):
        team_ranks = ranks_from_scores(side_scores)
        return Outcome(
            [team_ranks[state.side_of[s]] for s in range(state.n)],
            seat_scores,
            reason,
            teams=[state.members(s) for s in range(state.num_sides)],
            team_ranks=team_ranks,
            team_scores=side_scores,
        )
    return Outcome(ranks_from_scores(seat_scores), seat_scores, reason)
