"""Win rates and move times of the Paardenkoppen and ROPARUN bot levels (issue 18, "Measure").

    .venv/bin/python -m bench.bots_pk_rr paardenkoppen rules random --games 200
    .venv/bin/python -m bench.bots_pk_rr roparun strong rules --games 20 --iterations 5

One bot of level ``hero`` plays against ``n - 1`` bots of level ``other`` (ROPARUN: head to head, 2
players; Paardenkoppen: 3 players, the smallest table), the hero's seat rotating, every game seeded
(``services.bots.domain.arena``: each bot sees only its seat's view). A shared win counts 1/k. Prints
the hero's win rate with a 95% Wilson interval against the fair share 1/n, and the p50/p99 think time
per level (decisions with more than one legal move only).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import Budget
from services.games.engines.base import GameConfig
from services.games.engines.registry import default_registry

PLAYERS = {"paardenkoppen": 3, "roparun": 2}


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(
    game_type: str,
    hero: str,
    other: str,
    games: int,
    iterations: int,
    seconds: float,
    options: dict[str, Any],
    progress: int = 0,
) -> dict[str, Any]:
    """The summary after ``games`` games; with ``progress`` > 0 also a partial line every that many."""
    engine = default_registry().get(game_type)
    n = PLAYERS[game_type]
    config = GameConfig(n, engine.normalize_options(n, options))
    won = 0.0
    times: dict[str, list[float]] = {}
    started = time.perf_counter()
    for g in range(games):
        seat = g % n
        bots = [Bot(hero if s == seat else other, seed=104_729 * g + s) for s in range(n)]
        result = play_game(
            game_type,
            config,
            9000 + g,
            bots,
            lambda level: Budget(iterations, seconds, time.perf_counter),
            clock=time.perf_counter,
        )
        winners = result.winners()
        if seat in winners:
            won += 1.0 / len(winners)
        for _, level, took in result.timings:
            times.setdefault(level, []).append(took)
        if progress and (g + 1) % progress == 0 and g + 1 < games:
            print(
                json.dumps(_summary(game_type, n, options, hero, other, g + 1, won, times, started)),
                flush=True,
            )
    return _summary(game_type, n, options, hero, other, games, won, times, started) | {
        "budget": {"max_iterations": iterations, "max_seconds": seconds}
    }


def _summary(
    game_type: str,
    n: int,
    options: dict[str, Any],
    hero: str,
    other: str,
    games: int,
    won: float,
    times: dict[str, list[float]],
    started: float,
) -> dict[str, Any]:
    low, high = wilson(won, games)
    return {
        "game_type": game_type,
        "players": n,
        "options": options,
        "hero": hero,
        "other": other,
        "games": games,
        "win_rate": round(won / games, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "fair_share": round(1 / n, 3),
        "move_ms": {
            level: {"p50": round(1000 * percentile(v, 0.5), 2), "p99": round(1000 * percentile(v, 0.99), 2)}
            for level, v in times.items()
        },
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> dict[str, Any]:
    """What ``make bench`` (``bench.run``, which calls every module's ``main()``) gets: a pointer, since
    ``bench.bots`` measures these two games too; the command line is ``cli``."""
    return {
        "note": "Paardenkoppen and ROPARUN are measured by bench.bots; run this module alone for one pairing"
    }


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game_type", choices=sorted(PLAYERS))
    parser.add_argument("hero")
    parser.add_argument("other")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--progress", type=int, default=0, help="print a partial line every N games")
    parser.add_argument("--options", default="{}", help="game options as JSON, e.g. '{\"rounds\": 2}'")
    args = parser.parse_args()
    out = run(
        args.game_type,
        args.hero,
        args.other,
        args.games,
        args.iterations,
        args.seconds,
        json.loads(args.options),
        args.progress,
    )
    print(json.dumps(out))


if __name__ == "__main__":
    cli()
