"""Ratings (pure domain): games rated per second for a 4-player free-for-all and for 2 v 2, and the
time to rebuild every pool from an in-memory log of 100,000 finished games.

Run alone: ``python -m bench.ratings [rebuild_games]`` prints one JSON object.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from services.ratings.domain.rating import Ledger, Rater, replay, result_from_finished

PLAYERS = 2000
RATE_GAMES = 3000
REBUILD_GAMES = 100_000


def _body(rng: random.Random, k: int, people: list[str], teams: bool) -> dict[str, Any]:
    table = rng.sample(people, 4)
    if teams:
        first = rng.randint(1, 2)
        return {
            "game_id": f"g{k}",
            "game_type": "klapper",
            "options": {},
            "players": table,
            "outcome": {
                "ranks": [first, 3 - first, first, 3 - first],
                "scores": [0, 0, 0, 0],
                "reason": "bench",
                "teams": [[0, 2], [1, 3]],
                "team_ranks": [first, 3 - first],
                "team_scores": [0, 0],
            },
        }
    scores = [rng.randint(0, 5) for _ in range(4)]
    ranks = [1 + sum(1 for o in scores if o > s) for s in scores]  # ties share a place
    return {
        "game_id": f"g{k}",
        "game_type": "paardenkoppen",
        "options": {},
        "players": table,
        "outcome": {
            "ranks": ranks,
            "scores": scores,
            "reason": "bench",
            "teams": None,
            "team_ranks": None,
            "team_scores": None,
        },
    }


def _rate(teams: bool, games: int) -> float:
    rng = random.Random(11)
    people = [f"p{i}" for i in range(PLAYERS)]
    bodies = [_body(rng, k, people, teams) for k in range(games)]
    rater, ledger = Rater(), Ledger()
    started = time.perf_counter()
    for position, body in enumerate(bodies, 1):
        ledger.apply(rater, result_from_finished(body), position)
    return games / (time.perf_counter() - started)


def main(rebuild_games: int = REBUILD_GAMES) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": "openskill PlackettLuce (Weng-Lin), pure domain, one process",
        "ffa4_games_per_s": round(_rate(False, RATE_GAMES), 1),
        "team_2v2_games_per_s": round(_rate(True, RATE_GAMES), 1),
    }
    rng = random.Random(12)
    people = [f"p{i}" for i in range(PLAYERS)]
    log = [(k + 1, _body(rng, k, people, k % 2 == 1)) for k in range(rebuild_games)]
    started = time.perf_counter()
    ledger = replay(log)
    elapsed = time.perf_counter() - started
    out["rebuild"] = {
        "games": rebuild_games,
        "mix": "half 4-player free-for-all, half 2 v 2",
        "pools": len(ledger.ratings),
        "players": sum(len(p) for p in ledger.ratings.values()),
        "seconds": round(elapsed, 2),
        "games_per_s": round(rebuild_games / elapsed, 1),
    }
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else REBUILD_GAMES)))
