"""Issue 14: PostgreSQL stopped 45 s: every service answers 503 + Retry-After within 2 s (never 500);
after it is back nothing is half-written (every audit ok) and every finished game is rated once."""

from __future__ import annotations

import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.faults.infra import ADMIN, Backplane
from tests.faults.play import (
    QUICK_SEATS,
    Tally,
    admin,
    audits,
    create_game,
    moves_stored,
    play_to_end,
    register,
    wait_for_effects,
)

pytestmark = pytest.mark.faults
OUTAGE_S = 45.0
PLAYING = 4


def probes(urls: dict[str, str], game_id: str, token: str) -> list[tuple[str, str, str, dict | None, str]]:  # type: ignore[type-arg]
    """(service, method, url, json, token) of requests that need the database, on every service."""
    g, m, q, r = urls["games"], urls["matchmaking"], urls["questions"], urls["ratings"]
    return [
        ("games", "GET", f"{g}/v1/games/{game_id}", None, token),
        ("games", "GET", f"{g}/v1/games?limit=5", None, token),
        ("games", "POST", f"{g}/v1/players", {"display_name": "during the outage"}, ""),
        ("games", "POST", f"{g}/v1/games/{game_id}/moves", {"move": {"type": "pass"}, "expected_version": 1}, token),
        ("matchmaking", "GET", f"{m}/v1/leagues", None, token),
        ("matchmaking", "POST", f"{m}/v1/private-tables",
         {"game_type": "paardenkoppen", "num_players": 3, "options": {}}, token),
        ("questions", "GET", f"{q}/v1/packs", None, ADMIN),
        ("ratings", "GET", f"{r}/v1/pools", None, token),
        ("ratings", "GET", f"{r}/v1/pools/paardenkoppen/leaderboard", None, token),
    ]


def test_postgres_stopped_45s_gives_503_with_retry_after_and_loses_nothing(own_plane: Backplane) -> None:
    stack, pg = own_plane.stack, own_plane.pg
    games = []
    for k in range(PLAYING):
        seats = [register(stack, f"pg-g{k}-s{s}") for s in range(QUICK_SEATS)]
        games.append((create_game(stack, seats), seats))
    probe_list = probes(stack.urls, games[0][0], str(games[0][1][0].token))
    tally = Tally()
    deadline = time.monotonic() + OUTAGE_S + 150
    answers: Counter[tuple[str, int]] = Counter()
    slow, no_retry_after, not_problem = [], [], []
    slowest = 0.0
    with ThreadPoolExecutor(PLAYING) as pool:
        playing = [pool.submit(play_to_end, g, seats, tally, random.Random(k), deadline)
                   for k, (g, seats) in enumerate(games)]
        time.sleep(2.0)
        pg.stop("immediate")  # a crash: whatever was in flight is cut off mid-transaction
        down_at = time.monotonic()
        while time.monotonic() - down_at < OUTAGE_S:
            for service, method, url, body, token in probe_list:
                if time.monotonic() - down_at >= OUTAGE_S:
                    break
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                started = time.monotonic()
                try:
                    r = requests.request(method, url, json=body, headers=headers, timeout=2.5)
                    code = r.status_code
                except requests.RequestException as exc:
                    code, r = 0, None
                    not_problem.append(f"{service} {method} {url}: {type(exc).__name__}")
                took = time.monotonic() - started
                slowest = max(slowest, took)
                answers[(service, code)] += 1
                if took > 2.0:
                    slow.append(f"{service} {method} {url}: {took:.1f}s")
                if r is not None and r.status_code == 503 and not r.headers.get("Retry-After"):
                    no_retry_after.append(f"{service} {method} {url}")
                if r is not None and r.status_code >= 400 and r.headers.get("Content-Type") != "application/problem+json":
                    not_problem.append(f"{service} {method} {url}: {r.headers.get('Content-Type')}")
            time.sleep(1.0)
        pg.start()
        outage = time.monotonic() - down_at
        for f in playing:
            f.result(timeout=max(1.0, deadline - time.monotonic() + 5))
    game_ids = [g for g, _ in games]
    ok, bad = audits(stack, game_ids)
    # a consumer whose retries fell in the outage runs again within 30 s of its end (RQ Retry, see
    # shared/outbox.Delivery) once its pool has reconnected (with backoff): two minutes cover both
    got = wait_for_effects(stack, game_ids, QUICK_SEATS, timeout=120, matchmade=False)
    found, rows = moves_stored(stack, tally)
    per_service = {s: {c: n for (s2, c), n in answers.items() if s2 == s} for s in stack.urls}
    probed = sum(answers.values())
    unavailable = sum(n for (_, c), n in answers.items() if c == 503)
    errors500 = sum(n for (_, c), n in answers.items() if c >= 500 and c != 503)
    print(f"faults: postgres-stop-45s: outage={outage:.1f}s, probes={probed}, 503={unavailable}, 5xx other="
          f"{errors500}, slower than 2s={len(slow)} (slowest {slowest:.2f}s), 503 without Retry-After={len(no_retry_after)}, "
          f"not problem+json={len(not_problem)}, per service={per_service}; players: moves acked="
          f"{len(tally.acked)}, stored once={found}, MoveMade rows={rows}, unconfirmed={tally.unconfirmed}, 5xx={tally.server_errors}, "
          f"finished={len(tally.finished)}/{len(game_ids)}, audits ok={ok}, rated once={got.rated}, "
          f"rated twice={got.rated_twice}, recorded={got.recorded}, launcher alive={stack.alive()}")
    for line in (slow + no_retry_after + not_problem)[:10]:
        print(f"faults: postgres-stop-45s:   {line}")
    assert unavailable == probed, "every request needing the database answers 503 while it is down"
    assert not slow and not no_retry_after and not not_problem
    assert tally.server_errors == 0
    assert len(tally.finished) == len(game_ids), f"unfinished: {tally.unfinished}"
    assert ok == len(game_ids), f"audits failing: {bad}"
    assert found == len(tally.acked) <= rows <= len(tally.acked) + tally.unconfirmed
    assert got.rated == len(game_ids) and got.rated_twice == 0 and got.recorded == len(game_ids), got.detail
    assert stack.alive()
    assert admin(stack).get("/readyz").status_code == 200
