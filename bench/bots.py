"""Bot playing strength (issue 18, "Measure"): win rate of each level against the level below.

For every game type in ``GAMES``: ``BOT_BENCH_GAMES`` seeded games per pairing (``rules`` v
``random``, ``strong`` v ``rules``). Two players head to head where the game allows (Paardenkoppen:
one bot of the level against two of the level below). Games are played in **duplicate**: game ``g``
uses deal seed ``g // n`` with the higher level in seat ``g % n``, so every deal is played once from
every seat and the luck of the cards or dice cancels out of the comparison. The rate is the higher
level's wins over all games with a 95% Wilson interval. Also the move time p50/p99 per level per game
(only decisions with more than one legal move are timed; wall clock, so it grows with the load
average, which is printed) and, per game, ``BOT_BENCH_LIVE_MOVES`` strong decisions at the **live**
budget (1 s), with the iterations that second reached and the time it took: that is what a bot on the
platform does, and what the fixed iteration budgets of the win-rate games cost in comparison.

The strong level plays the win-rate games on a fixed iteration budget (``strong_iterations``, in the
game's own unit, see ``GAMES``; ``BOT_BENCH_STRONG_ITERATIONS`` overrides it for every game) so that a
seeded run is reproducible and fits the machine; its time cap there is ``BENCH_CAP_SECONDS`` (a
safety net, not the limit that binds). Games run in process (``services.bots.domain.arena``): every
bot sees only its seat's JSON view and legal moves.

Environment: ``BOT_BENCH_GAMES`` (default 200), ``BOT_BENCH_ONLY`` (comma-separated game types),
``BOT_BENCH_LEVELS`` (only the pairings whose higher level is listed, e.g. ``strong``; ``live``: only
the live-budget probe),
``BOT_BENCH_PROCESSES`` (default 2: the games of a pairing are shared out between that many worker
processes), ``BOT_BENCH_LIVE_MOVES`` (default 20; 0 skips the live-budget probe).

Run alone: ``nice -n 10 .venv/bin/python -m bench.bots`` (prints a table and the JSON); ``make bench``
runs it too.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bench.common import latency_stats, load_average
from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import Budget
from services.bots.domain.levels import choose as choose_level
from services.games.engines.base import GameConfig, Move

LIVE_ITERATIONS = 10_000_000  # a live bot stops on time (1 s) long before this
LIVE_SECONDS = 1.0
BENCH_CAP_SECONDS = 10.0  # the time cap of the fixed-iteration games: a safety net that should not bind


@dataclass(frozen=True)
class BenchGame:
    config: GameConfig
    strong_iterations: int
    unit: str
    note: str = ""
    pairings: tuple[tuple[str, str], ...] = (("rules", "random"), ("strong", "rules"))


# Other game types add their entry here.
GAMES: dict[str, BenchGame] = {
    "klapper": BenchGame(
        GameConfig(2, {"target": 1}),
        strong_iterations=60,
        unit="sampled deals (each plays every listed move out)",
        note="2 players head to head; one deal a game (target 1: the first scored deal decides; a void deal "
        "is redealt)",
    ),
    "hoppaa": BenchGame(
        GameConfig(2, {"pawns_per_player": 1}),
        strong_iterations=8,
        unit="sampled deals",
        note="2 players head to head; quick version (one pawn each, HP-R22)",
    ),
    "paardenkoppen": BenchGame(
        GameConfig(3, {"rounds": 1}),
        strong_iterations=60,
        unit="playouts",
        note="3 players (the smallest table): one bot of the level against two of the level below; "
        "one round a game",
    ),
    "roparun": BenchGame(
        GameConfig(2, {}),
        strong_iterations=5,
        unit="playouts",
        note="2 players head to head; a whole game",
    ),
    "cityhopper": BenchGame(
        GameConfig(2, {}),
        strong_iterations=150,
        unit="races (30 of the opponent's, then the seat's own for every candidate)",
        note="2 players head to head; a whole game; questions from self-play's sample pack",
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


def seating(g: int, n: int, high: str, low: str) -> tuple[int, int, list[Bot]]:
    """Game ``g`` in duplicate: (deal seed, the higher level's seat, the bots)."""
    hero = g % n
    bots = [Bot(high if s == hero else low, 7919 * g + 31 * s + 1) for s in range(n)]
    return 10_000 + g // n, hero, bots


def _one_game(args: tuple[str, int, str, str, int]) -> tuple[bool, bool, list[tuple[str, float]]]:
    """(the higher level won, the game finished, (level, seconds) per timed decision): one game."""
    game_type, g, high, low, strong_iterations = args
    bench = GAMES[game_type]
    seed, hero, bots = seating(g, bench.config.num_players, high, low)

    def budget(level: str) -> Budget:
        if level == "strong":
            return Budget(strong_iterations, BENCH_CAP_SECONDS, time.perf_counter)
        return Budget(LIVE_ITERATIONS, LIVE_SECONDS, time.perf_counter)

    result = play_game(game_type, bench.config, seed, bots, budget, clock=time.perf_counter)
    return hero in result.winners(), result.finished, [(level, t) for _, level, t in result.timings]


def run_pairing(
    game_type: str, high: str, low: str, games: int, strong_iterations: int, processes: int
) -> Pairing:
    out = Pairing(game_type, high, low)
    jobs = [(game_type, g, high, low, strong_iterations) for g in range(games)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=processes) as pool:
        for won, finished, timings in pool.map(_one_game, jobs, chunksize=4):
            out.games += 1
            out.wins += won
            out.unfinished += not finished
            for level, seconds in timings:
                out.times.setdefault(level, []).append(seconds)
            if out.games % 50 == 0:
                print(
                    f"  {game_type} {high} v {low}: {out.wins}/{out.games} after "
                    f"{time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    out.seconds = time.perf_counter() - started
    return out


@dataclass(frozen=True)
class CountingBudget(Budget):
    """A live budget that remembers the most iterations a search asked about (for the report)."""

    reached: list[int] = field(default_factory=lambda: [0])

    def exhausted(self, started: float, iterations: int) -> bool:
        self.reached[0] = max(self.reached[0], iterations)
        return super().exhausted(started, iterations)


def live_probe(game_type: str, moves: int) -> dict[str, Any]:
    """``moves`` strong decisions at the live budget (1 s by the wall clock), in strong v rules games:
    the time each took and the iterations it reached. Past ``moves`` the strong seat plays on at the
    game's fixed bench budget to finish the game cheaply."""
    bench = GAMES[game_type]
    n = bench.config.num_players
    seconds: list[float] = []
    reached: list[int] = []

    def chooser(
        gt: str, level: str, view: dict[str, Any], legal: list[Move], seat: int, rng: Any, budget: Budget
    ) -> Move:
        if level != "strong" or len(seconds) >= moves:
            return choose_level(gt, level, view, legal, seat, rng, budget)
        live = CountingBudget(LIVE_ITERATIONS, LIVE_SECONDS, time.perf_counter)
        t0 = time.perf_counter()
        move = choose_level(gt, level, view, legal, seat, rng, live)
        seconds.append(time.perf_counter() - t0)
        reached.append(live.reached[0])
        return move

    def budget(level: str) -> Budget:
        return Budget(bench.strong_iterations, BENCH_CAP_SECONDS, time.perf_counter)

    g = 0
    while len(seconds) < moves and g < 10:
        seed, _, bots = seating(g, n, "strong", "rules")
        play_game(game_type, bench.config, 90_000 + seed, bots, budget, choose=chooser)
        g += 1
    ordered = sorted(reached)
    return {
        "decisions": len(seconds),
        "budget_s": LIVE_SECONDS,
        "seconds": latency_stats(seconds) | {"max_ms": round(max(seconds, default=0.0) * 1000, 1)},
        "iterations_reached": {
            "p50": ordered[len(ordered) // 2] if ordered else None,
            "min": ordered[0] if ordered else None,
            "unit": bench.unit,
        },
    }


def main() -> dict[str, Any]:
    games = int(os.environ.get("BOT_BENCH_GAMES", "200"))
    only = {g for g in os.environ.get("BOT_BENCH_ONLY", "").split(",") if g}
    override = os.environ.get("BOT_BENCH_STRONG_ITERATIONS")
    levels = {x for x in os.environ.get("BOT_BENCH_LEVELS", "").split(",") if x}
    processes = max(1, int(os.environ.get("BOT_BENCH_PROCESSES", "2")))
    live_moves = int(os.environ.get("BOT_BENCH_LIVE_MOVES", "20"))
    load_before = load_average()
    cpu_before = _cpu()
    report: dict[str, Any] = {"games_per_pairing": games, "processes": processes, "results": [], "live": {}}
    for game_type, bench in GAMES.items():
        if only and game_type not in only:
            continue
        iterations = int(override) if override else bench.strong_iterations
        for high, low in bench.pairings:
            if levels and high not in levels:
                continue
            pairing = run_pairing(game_type, high, low, games, iterations, processes)
            row = pairing.as_dict() | {
                "config": {"num_players": bench.config.num_players, "options": dict(bench.config.options)},
                "strong_budget": f"{iterations} {bench.unit} a move (time cap {BENCH_CAP_SECONDS} s)",
                "note": bench.note,
            }
            report["results"].append(row)
            print(_line(row), file=sys.stderr, flush=True)
        if live_moves and (not levels or levels & {"strong", "live"}):
            report["live"][game_type] = live_probe(game_type, live_moves)
            print(f"  {game_type} live: {report['live'][game_type]}", file=sys.stderr, flush=True)
    report["load_average"] = {
        "before": load_before,
        "after": load_average(),
    }
    report["cpu_minutes"] = round((_cpu() - cpu_before) / 60, 1)
    report["cpus"] = os.cpu_count()
    return report


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _line(row: dict[str, Any]) -> str:
    times = "; ".join(
        f"{level} p50 {t.get('p50_ms')} ms p99 {t.get('p99_ms')} ms ({t['moves']} moves)"
        for level, t in row["move_time"].items()
    )
    lo, hi = row["ci95"]
    return (
        f"| {row['game_type']} | {row['pairing']} | {row['games']} | {row['win_rate']:.3f} | "
        f"[{lo:.3f}, {hi:.3f}] | {row['strong_budget'] if 'strong' in row['pairing'] else '-'} | {times} |"
    )


def table(report: dict[str, Any]) -> str:
    head = (
        "| game | pairing | games | win rate of the higher level | 95% CI (Wilson) | strong budget | move time |\n"
        "|---|---|---|---|---|---|---|"
    )
    rows = [_line(r) for r in report["results"]]
    live = [
        f"| {g} | live strong, {v['decisions']} decisions at {v['budget_s']} s | p50 {v['seconds'].get('p50_ms')} ms, "
        f"p99 {v['seconds'].get('p99_ms')} ms, max {v['seconds'].get('max_ms')} ms | iterations reached p50 "
        f"{v['iterations_reached']['p50']} (min {v['iterations_reached']['min']}) {v['iterations_reached']['unit']} |"
        for g, v in report["live"].items()
    ]
    load = report["load_average"]
    return "\n".join(
        [
            head,
            *rows,
            "",
            *live,
            f"load average before {load['before']}, after {load['after']} on {report['cpus']} CPUs; "
            f"{report['cpu_minutes']} CPU-minutes",
        ]
    )


if __name__ == "__main__":
    result = main()
    print(table(result))
    print(json.dumps(result, indent=2))
