"""Clock ticker benchmark: how many clocks the games ticker checks (and records as timed out) per second.

On a fresh migrated database, GAMES clocked Klapper tables are opened at an injected time; then, with the
injected clock moved past every deadline, one ``tick_clocks`` run finds each due game by the indexed
deadline column, re-derives its clocks from the events and records the timeout (forfeit: TimeExpired and
GameFinished; auto_move: TimeExpired, the automatic move and what it causes). The reference, measured in
the same run on the same database, is the in-process move rate (``make_move`` of a legal move: the same
load and commit path), so the ratios stay comparable on a loaded machine; the load average is printed.
An idle run (nothing due, GAMES clocks running) shows what a tick costs when nobody is late."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.common import bench_backends, load_average

GAMES = int(os.environ.get("CLOCK_BENCH_GAMES", "150"))
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


def main() -> dict[str, Any]:
    from services.games.adapters.postgres import UnitOfWork
    from services.games.engines.registry import default_registry
    from services.games.service_layer.handlers import GamesService
    from shared.auth import Identity, PlayerDirectory
    from shared.db import make_pool

    admin = Identity(admin=True)
    with bench_backends() as (url, _redis, _backends):
        pool = make_pool(url, max_size=4)
        try:
            clock = Clock()
            svc = GamesService(default_registry(), UnitOfWork(pool), now=clock)
            seats = [PlayerDirectory(pool).register(f"b{k}")[0] for k in range(4)]

            def open_tables(policy: str) -> list[dict[str, Any]]:
                body = {"game_type": "klapper", "seats": seats, "clock": {"kind": "per_move", "seconds": 30},
                        "timeout_policy": policy}
                return [svc.create_game(admin, body) for _ in range(GAMES)]

            # reference: one legal move in each of GAMES games (same load + commit path as a timeout)
            games = open_tables("forfeit")
            start = time.perf_counter()
            for game in games:
                seat = game["to_move"][0]
                who = Identity(player_id=seats[seat])
                move = svc.legal_moves(game["id"], who)["moves"][0]
                svc.make_move(who, game["id"], move, game["version"], None)
            moves_per_s = GAMES / (time.perf_counter() - start)

            clock.at = T0 + timedelta(seconds=10)  # nobody is late yet
            runs, start = 20, time.perf_counter()
            for _ in range(runs):
                assert svc.tick_clocks().expired == 0
            idle_ticks_per_s = runs / (time.perf_counter() - start)

            results: dict[str, Any] = {}
            for policy in ("forfeit", "auto_move"):
                if policy == "auto_move":
                    clock.at = T0
                    open_tables(policy)
                clock.at = T0 + timedelta(days=1)  # every deadline has passed
                start = time.perf_counter()
                report = svc.tick_clocks(limit=10 * GAMES)
                elapsed = time.perf_counter() - start
                results[policy] = {
                    "games_checked": report.checked,
                    "timeouts_recorded": report.expired,
                    "clocks_checked_per_s": round(report.checked / elapsed, 1),
                    "ratio_to_moves_per_s": round(report.checked / elapsed / moves_per_s, 3),
                }
        finally:
            pool.close()
    return {
        "games": GAMES,
        "reference_moves_per_s": round(moves_per_s, 1),
        "idle_tick_runs_per_s": round(idle_ticks_per_s, 1),
        "idle_tick_clocks_running": GAMES,
        "forfeit": results["forfeit"],
        "auto_move": results["auto_move"],
        "load_average_1m": load_average()[0],
        "cpus": os.cpu_count(),
    }


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
