"""Issue 14: a worker SIGKILLed mid-job: the stack keeps running, the worker comes back, and the job
is done exactly once in effect (every finished game rated once)."""

from __future__ import annotations

import os
import random
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from redis import Redis
from rq import Queue
from rq.registry import StartedJobRegistry

from tests.faults.infra import Backplane
from tests.faults.play import QUICK_SEATS, Tally, create_game, play_to_end, register, wait_for_effects

pytestmark = pytest.mark.faults
GAMES = 10


def test_ratings_worker_sigkilled_mid_job_comes_back_and_rates_each_game_once(own_plane: Backplane) -> None:
    stack = own_plane.stack
    games = []
    for k in range(GAMES):
        seats = [register(stack, f"kill-g{k}-s{s}") for s in range(QUICK_SEATS)]
        games.append((create_game(stack, seats), seats))
    game_ids = [g for g, _ in games]
    (worker,) = stack.pids_of("worker", "ratings")
    redis = Redis.from_url(own_plane.redis.url)
    started_jobs = StartedJobRegistry(queue=Queue("ratings", connection=redis))
    tally = Tally()
    killed_job: str | None = None
    os.kill(worker, signal.SIGSTOP)  # the ratings jobs pile up while the games finish
    try:
        deadline = time.monotonic() + 120
        with ThreadPoolExecutor(5) as pool:
            list(pool.map(lambda k: play_to_end(games[k][0], games[k][1], tally, random.Random(k), deadline),
                          range(GAMES)))
        waiting = 0
        for _ in range(150):  # every GameFinished relayed onto the ratings queue
            with stack.db() as conn:
                (waiting,) = conn.execute(  # type: ignore[misc]
                    "SELECT count(*) FROM games.outbox WHERE queue = 'ratings' AND dispatched_at IS NOT NULL"
                    " AND message->'body'->>'game_id' = ANY(%s)", (game_ids,)).fetchone()
            if waiting >= GAMES:
                break
            time.sleep(0.2)
    finally:
        os.kill(worker, signal.SIGCONT)
    until = time.monotonic() + 20
    while time.monotonic() < until:  # the moment the worker holds a job: kill it
        ids = started_jobs.get_job_ids()
        if ids:
            os.kill(worker, signal.SIGKILL)
            killed_job = ids[0]
            break
        time.sleep(0.002)
    assert killed_job is not None, "the worker was never seen mid-job"
    back: list[int] = []
    until = time.monotonic() + 30
    while time.monotonic() < until and not back:
        back = [p for p in stack.pids_of("worker", "ratings") if p != worker]
        time.sleep(0.2)
    got = wait_for_effects(stack, game_ids, QUICK_SEATS, timeout=90 if stack.alive() else 5, matchmade=False)
    answering = all(requests.get(u + "/readyz", timeout=5).status_code == 200 for u in stack.urls.values()) \
        if stack.alive() else False
    print(f"faults: worker-sigkill: games={GAMES}, finished={len(tally.finished)}, jobs relayed={waiting}, "
          f"killed pid={worker} mid-job {killed_job}, worker back={back or None}, launcher alive={stack.alive()}, "
          f"services ready={answering}, rated once={got.rated}, rated twice={got.rated_twice}, "
          f"recorded={got.recorded}, 5xx={tally.server_errors} {got.detail}")
    assert len(tally.finished) == GAMES
    assert stack.alive() and answering, "the stack keeps running"
    assert back, "the launcher started a new ratings worker"
    assert got.rated == GAMES and got.rated_twice == 0, "the killed job was done exactly once in effect"
    assert got.recorded == GAMES
