"""CH-R-LEN, the length guard's ruling for CityHopper (issue 17.2; README "Game length").

CH-47 ends the game only when a player plays away the last end city, and nothing bounds the number of
turns: a wrong answer ends the turn (CH-16), three penalty points add an end city (CH-17), and a chance
card may trade an end city in (``TRADE_IN_END_CITY``). The platform caps a table at ``max_turns``
turns (one turn = one player's roll and its consequences, CH-9). When turn ``max_turns + 1`` would
start, the game is adjudicated on public standings only (end cities stay secret, section 3.3): fewer
end cities still to play away is better (``end_city_count`` in every view), then more money; what is
still equal shares the rank. ``scores`` are the end cities still held (lower is better).
"""

from __future__ import annotations

from services.games.engines.base import LengthLimit, Outcome, ranks_from_keys

from .state import State

RULE = "CH-R-LEN"
LIMIT = LengthLimit(
    option="max_turns",
    unit="turns",
    default=500,
    minimum=1,
    maximum=5000,
    rule=RULE,
    description=(
        "CH-R-LEN: at most this many turns (CH-47 is the only end); when the next turn would start the game "
        "is adjudicated on public standings: fewer end cities still to play away, then more money; equal "
        "standings share the rank."
    ),
)


def length(state: State) -> int:
    """Turns started (``turn_no``: 1 from the first roll, +1 at every ``TurnEnded``)."""
    return state.turn_no


def adjudicate(state: State) -> Outcome:
    left = [len(p.end_cards) for p in state.players]
    ranks = ranks_from_keys([(-float(len(p.end_cards)), float(p.money)) for p in state.players])
    return Outcome(
        ranks,
        [float(k) for k in left],
        f"{RULE}: adjudicated after {state.turn_no} turns on end cities left, then money",
    )
