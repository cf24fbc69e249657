"""Issue 14: Redis goes away while people play; nothing accepted is lost and every finished game
reaches ratings and matchmaking exactly once after recovery, with no operator action."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.faults.infra import Backplane
from tests.faults.play import (
    QUICK_SEATS,
    Tally,
    moves_stored,
    play_to_end,
    private_table_game,
    register,
    wait_for_effects,
)

pytestmark = pytest.mark.faults
CLIENTS = 8
GAMES_PER_CLIENT = 2
OUTAGE_S = 30.0


def test_redis_stopped_30s_while_8_clients_play(own_plane: Backplane) -> None:
    stack, redis = own_plane.stack, own_plane.redis
    # every game is formed by matchmaking (a private table through the queues) before the outage
    tables: list[tuple[str, list]] = []  # type: ignore[type-arg]
    lock = threading.Lock()

    def form(k: int) -> None:
        for g in range(GAMES_PER_CLIENT):
            seats = [register(stack, f"c{k}-g{g}-s{s}") for s in range(QUICK_SEATS)]
            game_id = private_table_game(stack, seats)
            with lock:
                tables.append((game_id, seats))

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(form, range(CLIENTS)))
    tally = Tally()
    deadline = time.monotonic() + OUTAGE_S + 120
    mine = {k: [t for i, t in enumerate(tables) if i % CLIENTS == k] for k in range(CLIENTS)}

    def client(k: int) -> None:
        rng = random.Random(k)
        for game_id, seats in mine[k]:
            play_to_end(game_id, seats, tally, rng, deadline)

    with ThreadPoolExecutor(CLIENTS) as pool:
        running = [pool.submit(client, k) for k in range(CLIENTS)]
        time.sleep(1.0)
        redis.stop()
        down_at = time.monotonic()
        time.sleep(OUTAGE_S)
        finished_during = len(tally.finished)
        acked_during = len(tally.acked)
        redis.start()
        outage = time.monotonic() - down_at
        for f in running:
            f.result(timeout=max(1.0, deadline - time.monotonic() + 5))
    game_ids = [g for g, _ in tables]
    got = wait_for_effects(stack, game_ids, QUICK_SEATS, timeout=75)
    found, rows = moves_stored(stack, tally)
    print(f"faults: redis-stop-30s: outage={outage:.1f}s, games={len(game_ids)}, moves acked={len(tally.acked)} "
          f"(during outage {acked_during}), stored once={found}, MoveMade rows={rows}, unconfirmed={tally.unconfirmed}, "
          f"finished={len(tally.finished)} (during outage {finished_during}), rated once={got.rated}, "
          f"rated twice={got.rated_twice}, recorded by matchmaking={got.recorded}, 5xx={tally.server_errors}, "
          f"503={tally.statuses[503]}, connection errors={sum(tally.errors.values())}, "
          f"launcher alive={stack.alive()} {got.detail}")
    assert tally.server_errors == 0
    assert finished_during > 0, "no game finished while Redis was down: the outage tested no GameFinished"
    assert len(tally.finished) == len(game_ids), f"unfinished: {tally.unfinished}"
    assert found == len(tally.acked) <= rows <= len(tally.acked) + tally.unconfirmed, "acked moves stored once"
    assert got.rated == len(game_ids) and got.rated_twice == 0
    assert got.recorded == len(game_ids)
    assert stack.alive()


def test_redis_restarted_with_its_data_lost_while_jobs_wait(own_plane: Backplane) -> None:
    stack, redis = own_plane.stack, own_plane.redis
    if not stack.alive():
        pytest.fail("the stack did not survive the previous scenario")
    stack.wait_for_processes(timeout=30)
    games = []
    for g in range(4):
        seats = [register(stack, f"lost-g{g}-s{s}") for s in range(QUICK_SEATS)]
        games.append((private_table_game(stack, seats), seats))
    # the consumers pause, so the finished games' jobs wait in Redis
    paused = stack.pids_of("worker", "ratings") + stack.pids_of("worker", "matchmaking")
    assert len(paused) == 2, stack.processes()
    tally = Tally()
    try:
        for pid in paused:
            os.kill(pid, signal.SIGSTOP)
        deadline = time.monotonic() + 90
        rng = random.Random(99)
        for game_id, seats in games:
            play_to_end(game_id, seats, tally, rng, deadline)
        game_ids = [g for g, _ in games]
        waiting = 0
        for _ in range(100):  # the relay hands the GameFinished rows to Redis: the jobs now wait there
            with stack.db() as conn:
                (waiting,) = conn.execute(  # type: ignore[misc]
                    "SELECT count(*) FROM games.outbox WHERE message->>'type' = 'GameFinished'"
                    " AND queue IN ('ratings', 'matchmaking')"  # the paused consumers'
                    " AND dispatched_at IS NOT NULL AND message->'body'->>'game_id' = ANY(%s)", (game_ids,)
                ).fetchone()
            if waiting == 2 * len(game_ids):
                break
            time.sleep(0.2)
        redis.stop(kill=True)
        redis.wipe()
        redis.start()
    finally:
        for pid in paused:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    got = wait_for_effects(stack, game_ids, QUICK_SEATS, timeout=75)
    print(f"faults: redis-data-lost: games={len(game_ids)}, finished={len(tally.finished)}, jobs waiting "
          f"when Redis lost its data={waiting}, rated once={got.rated}, rated twice={got.rated_twice}, "
          f"recorded by matchmaking={got.recorded}, 5xx={tally.server_errors}, launcher alive={stack.alive()} "
          f"{got.detail}")
    assert len(tally.finished) == len(game_ids)
    assert waiting == 2 * len(game_ids), "the jobs were in Redis (not still in the outbox) when it lost them"
    assert got.rated == len(game_ids) and got.rated_twice == 0
    assert got.recorded == len(game_ids)
    assert stack.alive()
