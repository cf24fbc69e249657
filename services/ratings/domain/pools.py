"""Rating pools: which games are rated together.

A pool is one game type in one mode; players have one rating per pool. The pool of a finished
game is derived from its ``game_type``, its number of players and ``outcome.teams``:

=================  ==============  ===============================================================
pool               mode            games
=================  ==============  ===============================================================
``hoppaa/solo``    free-for-all    HopPaa without partnerships (``outcome.teams`` null), 2-4 players
``hoppaa/team``    teams           HopPaa with partnerships (``outcome.teams`` given), 2 v 2
``klapper/2``      free-for-all    Klapper with 2 players (1 v 1)
``klapper/3``      free-for-all    Klapper with 3 players, each for himself
``klapper/4``      teams           Klapper with 4 players: 2 v 2 (fixed seating or omboeren)
``klapper/6``      teams           Klapper with 6 players: 3 v 3
``paardenkoppen``  free-for-all    Paardenkoppen, 3-6 players, places with ties
``roparun``        free-for-all    ROPARUN, 2-4 players (each player is one team of pawns)
``cityhopper``     free-for-all    CityHopper, 2-4 players
=================  ==============  ===============================================================

Any other game type ``g`` (a new or a test game) is rated in ``g`` (free-for-all) or ``g/team``
(with ``outcome.teams``). A Klapper game with 4 or 6 players that arrives without teams goes to
``klapper/<n>/solo`` so that partnership pools never mix with free-for-all results.

Pool names contain a slash. In URLs the pool is one path segment group matched by a ``path``
converter, so ``/v1/pools/klapper/4/leaderboard`` and the percent-encoded
``/v1/pools/klapper%2F4/leaderboard`` both work.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

FREE_FOR_ALL = "free-for-all"
TEAMS = "teams"

POOL_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}(/[a-z0-9_-]{1,20}){0,2}$")
GAME_TYPE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


@dataclass(frozen=True)
class PoolInfo:
    name: str
    game_type: str
    mode: str
    player_counts: tuple[int, ...]  # as GET /v1/game-types and matchmaking's tickets name them
    description: str


CATALOGUE: tuple[PoolInfo, ...] = (
    PoolInfo("hoppaa/solo", "hoppaa", FREE_FOR_ALL, (2, 3, 4),
             "HopPaa, every player for himself: the winner ranks 1, the others share rank 2."),
    PoolInfo("hoppaa/team", "hoppaa", TEAMS, (4,),
             "HopPaa with partnerships, 2 v 2: the winning team ranks 1, the other team ranks 2."),
    PoolInfo("klapper/2", "klapper", FREE_FOR_ALL, (2,), "Klapper, 1 v 1."),
    PoolInfo("klapper/3", "klapper", FREE_FOR_ALL, (3,), "Klapper, three players each for himself."),
    PoolInfo("klapper/4", "klapper", TEAMS, (4,), "Klapper, 2 v 2 partnerships (fixed seating or omboeren)."),
    PoolInfo("klapper/6", "klapper", TEAMS, (6,), "Klapper, 3 v 3 partnerships."),
    PoolInfo("paardenkoppen", "paardenkoppen", FREE_FOR_ALL, (3, 4, 5, 6),
             "Paardenkoppen: places from the outcome, tied players share a place."),
    PoolInfo("roparun", "roparun", FREE_FOR_ALL, (2, 3, 4), "ROPARUN: the first team home ranks 1."),
    PoolInfo("cityhopper", "cityhopper", FREE_FOR_ALL, (2, 3, 4), "CityHopper: places from the outcome."),
)
KNOWN = {info.name: info for info in CATALOGUE}


def pool_for(game_type: str, num_players: int, teams: Sequence[Sequence[int]] | None) -> str:
    """The pool of a finished game (see the module docstring for the mapping)."""
    partnered = bool(teams)
    if game_type == "hoppaa":
        return "hoppaa/team" if partnered else "hoppaa/solo"
    if game_type == "klapper":
        if partnered or num_players in (2, 3):
            return f"klapper/{num_players}"
        return f"klapper/{num_players}/solo"
    return f"{game_type}/team" if partnered else game_type


def describe(name: str) -> PoolInfo:
    """Catalogue entry of a pool, or a generic one for a pool outside the catalogue."""
    if name in KNOWN:
        return KNOWN[name]
    game_type, _, rest = name.partition("/")
    mode = TEAMS if rest == "team" else FREE_FOR_ALL
    return PoolInfo(name, game_type, mode, (), "Pool of a game type outside the catalogue.")


def valid_pool_name(name: str) -> bool:
    return bool(POOL_NAME.match(name))
