"""PK-R-LEN, the length guard's ruling for Paardenkoppen (issue 17.2; README "Game length").

PK-21's ``fixed_rounds`` mode ends the game after ``rounds`` rounds (R6, advised 10), but
``until_cannot_ante`` has "no round limit" and PK-23's ``play_on`` adds rounds until one player alone
has the highest balance; chips only move between players, mat and pot (PK-24), so neither is bounded.
The platform caps a table at ``max_rounds`` rounds (at least ``rounds`` in ``fixed_rounds`` mode, so the
spec's own end comes first). When round ``max_rounds + 1`` would start, the game ends as if PK-21 had
stopped it there: score = balance (PK-22, R13), the highest wins, and players tied for the highest
share the win (PK-23: "if PK-21 stops the game first, the players tied for highest ... share").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import LengthLimit, Outcome, ranks_from_scores

from .state import PKState

RULE = "PK-R-LEN"
LIMIT = LengthLimit(
    option="max_rounds",
    unit="rounds",
    default=200,
    minimum=1,
    maximum=1000,
    rule=RULE,
    description=(
        "PK-R-LEN: at most this many rounds (until_cannot_ante and tie_rule play_on have no limit; in "
        "fixed_rounds mode at least `rounds`); when the next round would start the game ends as if PK-21 had "
        "stopped it: score = balance, tied highest share the win (PK-22, PK-23)."
    ),
)


def length(state: PKState) -> int:
    """Rounds started (``RoundStarted`` sets ``round_no``: 1, 2 ...)."""
    return state.round_no


def floor(options: Mapping[str, Any]) -> int:
    """In fixed_rounds mode the spec's own end (after ``rounds`` rounds) must come first."""
    return int(options["rounds"]) if options.get("end_mode") == "fixed_rounds" else LIMIT.minimum


def adjudicate(state: PKState) -> Outcome:
    scores: list[float] = [float(b) for b in state.balances]
    return Outcome(
        ranks_from_scores(scores), scores, f"{RULE}: adjudicated after {state.round_no} rounds on balances (PK-22)"
    )
