"""Issue 14: 32 clients racing on one game: exactly one 201 per version, the rest 409, versions contiguous."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.faults.infra import Backplane
from tests.faults.play import QUICK_SEATS, Client, admin, create_game, register

pytestmark = pytest.mark.faults
RACERS = 32
ROUNDS = 10


def test_32_clients_racing_on_one_game_get_one_201_per_version(shared_plane: Backplane) -> None:
    stack = shared_plane.stack
    seats = [register(stack, f"racer-{k}") for k in range(QUICK_SEATS)]
    game_id = create_game(stack, seats)
    boss = admin(stack)
    per_round: list[Counter[int]] = []
    barrier = threading.Barrier(RACERS, timeout=30)
    for rnd in range(ROUNDS):
        game = boss.get(f"/v1/games/{game_id}").json()
        assert game["status"] == "running", "the race needs a running game"
        seat = game["to_move"][0]
        # 32 separate connections of the player to move, each with a legal move of its own choosing
        clients = [Client(stack.urls["games"], seats[seat].token, seats[seat].player_id) for _ in range(RACERS)]
        legal = clients[0].get(f"/v1/games/{game_id}/legal-moves").json()
        rng = random.Random(rnd)

        def race(k: int, legal: dict = legal, clients: list[Client] = clients, rng: random.Random = rng) -> int:  # type: ignore[type-arg]
            move = legal["moves"][rng.randrange(len(legal["moves"]))] if k else legal["moves"][0]
            barrier.wait()
            try:
                return clients[k].post(f"/v1/games/{game_id}/moves",
                                       {"move": move, "expected_version": legal["version"]},
                                       headers={"Idempotency-Key": str(uuid.uuid4())}, timeout=30).status_code
            except requests.RequestException:
                return 0  # no answer within 30 s

        started = time.monotonic()
        with ThreadPoolExecutor(RACERS) as pool:
            codes = Counter(pool.map(race, range(RACERS)))
        per_round.append(codes)
        assert time.monotonic() - started < 60
        barrier.reset()
    with stack.db() as conn:
        versions = [int(v) for (v,) in conn.execute(
            "SELECT version FROM games.events WHERE stream_id = %s ORDER BY version", (game_id,))]
    won = sum(c[201] for c in per_round)
    lost = sum(c[409] for c in per_round)
    other = Counter({code: n for c in per_round for code, n in c.items() if code not in (201, 409)})
    print(f"faults: race-32: rounds={ROUNDS}, 201={won}, 409={lost}, other={dict(other)}, "
          f"per-round 201s={[c[201] for c in per_round]}, versions={len(versions)} contiguous="
          f"{versions == list(range(1, len(versions) + 1))}")
    assert all(c[201] == 1 and c[409] == RACERS - 1 for c in per_round), per_round
    assert versions == list(range(1, len(versions) + 1))
