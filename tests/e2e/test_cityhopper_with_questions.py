"""CityHopper over HTTP with the real question service behind the queue (issue 9): every time a pawn
enters a city, the games service asks the questions service through RQ and records its answer; the
game is then played to the end and audited without calling the question service again."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from redis import Redis
from rq import Queue, SimpleWorker

from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.games.bootstrap import create_app
from services.games.domain.table import Table
from services.games.engines.registry import default_registry
from shared.cityhopper.grading import COLOURS
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


def _other_key(question: dict[str, Any]) -> dict[str, Any]:
    """The same public question with a different answer key."""
    q = copy.deepcopy(question)
    if q["category"] == "ROAD_DISTANCE":
        q["key"] = {"km": round(float(q["key"]["km"]) * 2.7 + 3, 1)}
    elif q["category"] == "FLAG":
        q["key"] = {"colours": [c for c in COLOURS if c not in q["key"]["colours"]][:2]}
    else:
        ids = [o["id"] for o in q["options"]]
        q["key"] = {"option": ids[(ids.index(q["key"]["option"]) + 1) % len(ids)]}
    return q


def assert_no_key_in_what_the_seat_sees(
    client: Client, game_id: str, version: int, engine: Any, state: Any, seat: int
) -> None:
    """Issue 14.1 (CH-14, 3.3): the answering seat's legal moves are what the engine lists for the
    same question with any other key; its view shows no key, no source id and no selector."""
    question = state.question["question"]
    legal = client.get(f"/v1/games/{game_id}/legal-moves").json()["moves"]
    other = state.clone()
    other.question = {**state.question, "question": _other_key(question)}
    assert legal == engine.legal_moves(other, seat) == engine.legal_moves(state, seat)
    view = client.get(f"/v1/games/{game_id}").json()["view"]
    assert view["question"]["selector"] is None and view["question"]["question"]["id"] == question["id"]
    events = client.get(f"/v1/games/{game_id}/events", params={"after": version - 3}).json()["events"]
    served = [e["payload"] for e in events if e["type"] == "ExternalResolved"][-1]
    assert served["params"]["selector"] is None
    seen = json.dumps(view["question"]) + json.dumps(served)
    assert '"key"' not in seen and '"reveal"' not in seen and "gen:" not in seen
    assert question["reveal"]["source_id"] not in seen


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
    questions = answers = 0
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
        if (mirror.progress.state.question or {}).get("stage") == "answer":
            answers += 1
            assert_no_key_in_what_the_seat_sees(
                seats[seat], game_id, full["version"], engine, mirror.progress.state, seat
            )
        # the `rules` bot, from the seat's own view and legal moves: random CityHopper games run from
        # 387 to over 5,000 moves, rules-bot games end in ~83 (make test's budget)
        own = seats[seat].get(f"/v1/games/{game_id}").json()
        listed = seats[seat].get(f"/v1/games/{game_id}/legal-moves").json()["moves"]
        move = choose("cityhopper", "rules", own, listed, seat, chooser, fixed_budget())
        r = seats[seat].post(f"/v1/games/{game_id}/moves", {"move": move, "expected_version": full["version"]})
        assert r.status_code == 201, r.text
    final = admin.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished" and questions > 0 and answers == questions
    audit = admin.get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"], audit
