"""Bot playing strength (issue 18, "Measure"): win rate of each level against the level below.

For every game type in ``GAMES``: ``games`` seeded games per pairing (``rules`` v ``random``,
``strong`` v ``rules``), two players head to head, the seats alternating; the rate is the higher
level's wins over all games with a 95% Wilson interval. Also the move time p50/p99 per level per game
(only decisions with more than one legal move are timed) and the load average while it ran, since
the figures depend on it. Games run in process (``services.bots.domain.arena``): every bot sees only
its seat's JSON view and legal moves.

Sizes (environment): ``BOT_BENCH_GAMES`` (default 200), ``BOT_BENCH_STRONG_ITERATIONS`` (the strong
level's search budget in iterations, default per game below; the 1 s time cap also holds),
``BOT_BENCH_ONLY`` (comma-separated game types), ``BOT_BENCH_LEVELS`` (only the pairings whose
higher level is listed, e.g. ``strong``). The strong budget here is smaller than a live bot's
(1 s per move) so that 200 strong games fit in minutes; the printed table says which budget was used.

Run alone: ``.venv/bin/python -m bench.bots`` (prints a table and the JSON); ``make bench`` runs it too.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from bench.common import latency_stats
from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import Budget
from services.games.engines.base import GameConfig

LIVE_ITERATIONS = 100_000  # a live bot stops on time (1 s) long before this
LIVE_SECONDS = 1.0


@dataclass(frozen=True)
class BenchGame:
    config: GameConfig
    strong_iterations: int
    note: str = ""
    pairings: tuple[tuple[str, str], ...] = (("rules", "random"), ("strong", "rules"))


# Other game types add their entry here.
GAMES: dict[str, BenchGame] = {
    "klapper": BenchGame(
        GameConfig(2, {"target": 150}),
        strong_iterations=6,
        note="2 players head to head; target 150 instead of 500 (about 2 deals a game) to fit 200 games",
    ),
    "hoppaa": BenchGame(
        GameConfig(2, {"pawns_per_player": 1}),
        strong_iterations=8,
        note="2 players head to head; quick version (one pawn each, HP-R22) to fit 200 games",
    ),
    "paardenkoppen": BenchGame(
        GameConfig(3, {"rounds": 1}),
        strong_iterations=60,
        note="3 players (the smallest table): one bot of the level against two of the level below, seats "
        "rotating; one round a game to fit 200 games",
    ),
    "roparun": BenchGame(
        GameConfig(2, {}),
        strong_iterations=5,
        note="2 players head to head; strong at 5 playouts a move (an engine playout takes ~0.1 s)",
    ),
    "cityhopper": BenchGame(
        GameConfig(2, {}),
        strong_iterations=20,
        note="2 players head to head; questions from self-play's sample pack; strong at 20 playouts a move",
    ),
}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Pairing:
    game_type: str
    high: str
    low: str
    games: int = 0
    wins: int = 0
    unfinished: int = 0
    seconds: float = 0.0
    times: dict[str, list[float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins, self.games)
        return {
            "game_type": self.game_type,
            "pairing": f"{self.high} v {self.low}",
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.wins / self.games, 3) if self.games else None,
            "ci95": [round(lo, 3), round(hi, 3)],
            "unfinished": self.unfinished,
            "seconds": round(self.seconds, 1),
            "move_time": {level: latency_stats(ts) | {"moves": len(ts)} for level, ts in self.times.items()},
        }


def run_pairing(
    game_type: str, bench: BenchGame, high: str, low: str, games: int, strong_iterations: int
) -> Pairing:
    out = Pairing(game_type, high, low)
    n = bench.config.num_players

    def budget(level: str) -> Budget:
        iterations = strong_iterations if level == "strong" else LIVE_ITERATIONS
        return Budget(iterations, LIVE_SECONDS, time.perf_counter)

    started = time.perf_counter()
    for g in range(games):
        hero = g % n
        bots = [Bot(high if s == hero else low, 7919 * g + 31 * s + 1) for s in range(n)]
        result = play_game(game_type, bench.config, 10_000 + g, bots, budget, clock=time.perf_counter)
        out.games += 1
        out.wins += hero in result.winners()
        out.unfinished += not result.finished
        for _, level, seconds in result.timings:
            out.times.setdefault(level, []).append(seconds)
        if (g + 1) % 25 == 0:
            print(
                f"  {game_type} {high} v {low}: {out.wins}/{out.games} after {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    out.seconds = time.perf_counter() - started
    return out


def main() -> dict[str, Any]:
    games = int(os.environ.get("BOT_BENCH_GAMES", "200"))
    only = {g for g in os.environ.get("BOT_BENCH_ONLY", "").split(",") if g}
    override = os.environ.get("BOT_BENCH_STRONG_ITERATIONS")
    levels = {x for x in os.environ.get("BOT_BENCH_LEVELS", "").split(",") if x}
    load_before = os.getloadavg()
    report: dict[str, Any] = {"games_per_pairing": games, "results": []}
    for game_type, bench in GAMES.items():
        if only and game_type not in only:
            continue
        iterations = int(override) if override else bench.strong_iterations
        for high, low in bench.pairings:
            if levels and high not in levels:
                continue
            pairing = run_pairing(game_type, bench, high, low, games, iterations)
            row = pairing.as_dict() | {
                "config": {"num_players": bench.config.num_players, "options": dict(bench.config.options)},
                "strong_budget": f"{iterations} iterations, at most {LIVE_SECONDS} s per move",
                "note": bench.note,
            }
            report["results"].append(row)
            print(_line(row), file=sys.stderr, flush=True)
    report["load_average"] = {
        "before": [round(x, 2) for x in load_before],
        "after": [round(x, 2) for x in os.getloadavg()],
    }
    report["cpus"] = os.cpu_count()
    return report


def _line(row: dict[str, Any]) -> str:
    times = "; ".join(
        f"{level} p50 {t.get('p50_ms')} ms p99 {t.get('p99_ms')} ms ({t['moves']} moves)"
        for level, t in row["move_time"].items()
    )
    lo, hi = row["ci95"]
    return (
        f"| {row['game_type']} | {row['pairing']} | {row['games']} | {row['win_rate']:.3f} | "
        f"[{lo:.3f}, {hi:.3f}] | {times} |"
    )


def table(report: dict[str, Any]) -> str:
    head = "| game | pairing | games | win rate of the higher level | 95% CI (Wilson) | move time |\n|---|---|---|---|---|---|"
    rows = [_line(r) for r in report["results"]]
    load = report["load_average"]
    return "\n".join(
        [head, *rows, f"load average before {load['before']}, after {load['after']} on {report['cpus']} CPUs"]
    )


if __name__ == "__main__":
    result = main()
    print(table(result))
    print(json.dumps(result, indent=2))
