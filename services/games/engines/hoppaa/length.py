"""HP-R-LEN, the length guard's ruling for HopPaa (issue 17.2; README "Game length").

HP-46 says there is no round limit, and at every player count one bidder at least must miss (the bids
may not sum to the 9 tricks, HP-15 / HP-R2), so a game can go on for hundreds of rounds: with
uniformly random moves two players practically never finish (HP-42 needs every pawn exactly on 35,
HP-R11, while each miss moves a pawn back, HP-30). Issue 17 requires that no game runs forever, so the
platform adjudicates a table that reaches ``max_rounds`` rounds (default 300, 1-1000 when a table or a
league sets it), as a tournament director would: a ruling of the platform, not a change to the rules
of play. HP-46's "no round limit" still holds for the rules of play (the engine never sees the option),
and 300 is far above real games (seeded self-play with sensible moves: 88 rounds at the median, 158 at
most, for two players). Tables created while HopPaa had no default recorded no maximum and keep none.
When round ``max_rounds + 1`` would start, the game is adjudicated on the
positions after the last round: a player's score is the sum of his pawns' squares (a finished pawn
counts 35, as in HP-9); in team mode both partners' pawns count for the team (HP-43). Higher is
better; equal scores are split by the higher lowest pawn (the reverse of HP-9's white-pawn measure);
what is still equal shares the rank.
"""

from __future__ import annotations

from services.games.engines.base import LengthLimit, Outcome, ranks_from_keys

from .state import HopPaaState

RULE = "HP-R-LEN"
LIMIT = LengthLimit(
    option="max_rounds",
    unit="rounds",
    default=300,  # the platform's adjudication (HP-46 sets no limit on the rules of play)
    minimum=1,
    maximum=1000,
    rule=RULE,
    description=(
        "HP-R-LEN: at most this many rounds, a platform adjudication so that no game runs forever (HP-46 sets "
        "no round limit on the rules of play); when the next round would start the game is adjudicated: sum "
        "of pawn squares (team: both partners), then the higher lowest pawn; equal standings share the rank."
    ),
)


def length(state: HopPaaState) -> int:
    """Rounds started (``RoundStarted`` sets ``round``: 1, 2 ...)."""
    return state.round


def adjudicate(state: HopPaaState) -> Outcome:
    scores = [float(sum(track)) for track in state.pawns]
    teams = state.table.teams
    reason = f"{RULE}: adjudicated after {state.round} rounds on pawn squares"
    if teams is None:
        ranks = ranks_from_keys([(scores[s], float(min(state.pawns[s]))) for s in range(state.num_players)])
        return Outcome(ranks, scores, reason)
    team_scores = [sum(scores[s] for s in team) for team in teams]
    lowest = [float(min(p for s in team for p in state.pawns[s])) for team in teams]
    team_ranks = ranks_from_keys(list(zip(team_scores, lowest, strict=True)))
    team_of = {seat: k for k, team in enumerate(teams) for seat in team}
    ranks = [team_ranks[team_of[s]] for s in range(state.num_players)]
    return Outcome(ranks, scores, reason, [list(t) for t in teams], team_ranks, team_scores)
