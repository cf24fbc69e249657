"""CityHopper over HTTP with the real question service behind the queue (issue 9): every time a pawn
enters a city, the games service asks the questions service through RQ and records its answer; the
game is then played to the end and audited without calling the question service again."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from redis import Redis
from rq import Queue, SimpleWorker

from services.games.bootstrap import create_app
from services.games.domain.table import Table
from services.games.engines.registry import default_registry
from shared.db import make_pool
from shared.outbox import relay_once
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for

pytestmark = pytest.mark.e2e


@pytest.fixture
def stack(database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, object]]:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    server = Server(create_app(settings_for(database_url, redis_url), default_registry("")))
    pool = make_pool(database_url, max_size=2)
    redis = Redis.from_url(redis_url)

    def pump() -> int:
        """games outbox -> questions worker -> questions outbox -> games worker; returns jobs run."""
        moved = relay_once(pool, "games", redis)
        SimpleWorker([Queue("questions", connection=redis)], connection=redis).work(burst=True)
        moved += relay_once(pool, "questions", redis)
        SimpleWorker([Queue("games", connection=redis)], connection=redis).work(burst=True)
        return moved

    yield server.url, pump
    server.stop()
    pool.close()
    redis.close()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_cityhopper_game_over_http_with_questions_through_the_queue(stack, num_players: int) -> None:  # type: ignore[no-untyped-def]
    base, pump = stack
    admin = Client(base, ADMIN)
    seats = [register(base, f"ch{k}") for k in range(num_players)]
    game = admin.post("/v1/games", {"game_type": "cityhopper", "seats": [c.player_id for c in seats]}).json()
    game_id = game["id"]
    engine = default_registry("").get("cityhopper")
    mirror, mirrored = Table(game_id), 0
    chooser = random.Random(num_players)
    questions = 0
    for _ in range(20_000):
        full = admin.get(f"/v1/games/{game_id}").json()
        if full["status"] != "running":
            break
        if full["waiting_for"]:
            assert full["waiting_for"]["kind"] == "question" and full["to_move"] == []
            # nobody but the server holds the answer key while the question is open
            for client in seats:
                assert '"key"' not in client.get(f"/v1/games/{game_id}/events").text
            assert pump() >= 2, "the question went out and came back through the queues"
            questions += 1
            continue
        for event in admin.get(f"/v1/games/{game_id}/events", params={"after": mirrored}).json()["events"]:
            mirror.apply(engine, event["type"], event["payload"])
            mirrored = event["version"]
        seat = chooser.choice(full["to_move"])
        assert mirror.progress is not None
        move = chooser.choice(engine.selfplay_moves(mirror.progress.state, seat))
        r = seats[seat].post(f"/v1/games/{game_id}/moves", {"move": move, "expected_version": full["version"]})
        assert r.status_code == 201, r.text
    final = admin.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished" and questions > 0
    audit = admin.get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"], audit
