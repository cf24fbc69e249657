"""Seat bots over real HTTP (issue 18): a person plays a whole Klapper game against three bots that
learn their turns from the games outbox (RQ queue ``bots``) and play through the public API with their
own tokens; bot seats are flagged everywhere; the bots read only their own seat; the audit passes."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from redis import Redis
from rq import Queue, SimpleWorker

from services.bots.bootstrap import BotsSettings, build_player
from services.bots.entrypoints import jobs as bot_jobs
from services.games.bootstrap import create_app
from services.games.engines.registry import default_registry
from shared.bots import bot_player_id, bot_token
from shared.db import make_pool
from shared.outbox import relay_once
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for

pytestmark = pytest.mark.e2e
SECRET = "test-bots-secret"


class Stack:
    def __init__(self, url: str, pump: Callable[[], int], calls: list[tuple[str, str, str]]) -> None:
        self.url, self.pump, self.calls = url, pump, calls


@pytest.fixture
def stack(database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("BOTS_SECRET", SECRET)
    monkeypatch.setenv("BOTS_MAX_SECONDS", "0.2")
    monkeypatch.setenv("BOTS_MAX_ITERATIONS", "30")  # a strong bot's search, kept small for the test's time
    server = Server(create_app(settings_for(database_url, redis_url), default_registry("")))
    monkeypatch.setenv("GAMES_URL", server.url)
    calls: list[tuple[str, str, str]] = []
    # the real job function, with a player whose HTTP client records every request it makes
    settings = BotsSettings.from_env()
    monkeypatch.setitem(bot_jobs._PLAYERS, settings, build_player(settings, lambda m, u, t: calls.append((m, u, t))))
    pool = make_pool(database_url, max_size=2)
    redis = Redis.from_url(redis_url)

    def pump() -> int:
        """games outbox -> RQ ``bots`` -> the bots worker (burst); returns the rows relayed."""
        moved = relay_once(pool, "games", redis)
        # with the scheduler, as `speltafel worker` runs: a turn that met a busy server (RetryLater) is
        # retried once its RQ Retry interval is due
        SimpleWorker([Queue("bots", connection=redis)], connection=redis).work(burst=True, with_scheduler=True)
        return moved

    yield Stack(server.url, pump, calls)
    server.stop()
    pool.close()
    redis.close()


def _klapper_with_bots(stack: Stack, human: Client, level: str) -> str:
    game = human.post("/v1/games", {"game_type": "klapper", "num_players": 4}).json()
    game_id = game["id"]
    assert human.post(f"/v1/games/{game_id}/join", {"seat": 0}).status_code == 200
    for seat in (1, 2, 3):
        r = human.post(f"/v1/games/{game_id}/seats/{seat}/bot", {"level": level})
        assert r.status_code == 200, r.text
    return game_id


@pytest.mark.parametrize("level", ["random", "strong"])
def test_a_person_plays_a_whole_klapper_game_against_three_bots(stack: Stack, level: str) -> None:
    """Issue 18 "Done when": a Klapper table, three bots in the other seats, a whole game (the default
    options: KL-39, to 500) played through the API against them."""
    human = register(stack.url, "Anneke")
    game_id = _klapper_with_bots(stack, human, level)
    game = human.get(f"/v1/games/{game_id}").json()
    assert game["status"] == "running"
    assert [s["bot"] for s in game["seats"]] == [None] + [{"level": level}] * 3
    assert [s["display_name"] for s in game["seats"]][1:] == [f"{level.capitalize()} bot {k}" for k in (1, 2, 3)]
    rng = random.Random(5)
    human_moves = bot_rounds = last_version = 0
    moved_at = time.monotonic()
    for _ in range(20000):
        legal = human.get(f"/v1/games/{game_id}/legal-moves").json()
        if legal["moves"]:
            move = rng.choice(legal["moves"])
            r = human.post(
                f"/v1/games/{game_id}/moves",
                {"move": move, "expected_version": legal["version"]},
                headers={"Idempotency-Key": f"h-{legal['version']}"},
            )
            assert r.status_code == 201, r.text
            human_moves += 1
            continue
        state = human.get(f"/v1/games/{game_id}").json()
        if state["status"] != "running":
            break
        assert state["to_move"] and 0 not in state["to_move"]
        if state["version"] != last_version:
            last_version, moved_at = state["version"], time.monotonic()
        assert time.monotonic() - moved_at < 90, (
            f"bot seats {state['to_move']} have not moved at version {last_version} for 90 s: a lost bot turn")
        stack.pump()
        bot_rounds += 1
    final = human.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished", final["to_move"]
    assert human_moves > 5
    # every bot move is an ordinary MoveMade by the bot's player id
    events = human.get(f"/v1/games/{game_id}/events", params={"after": 0, "limit": 1000}).json()["events"]
    movers = {e["payload"]["player_id"] for e in events if e["type"] == "MoveMade"}
    assert {bot_player_id(level, k) for k in (1, 2, 3)} <= movers
    audit = human.get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"], audit
    # each bot used only documented public endpoints of this game, only with its own token
    tokens = {bot_token(SECRET, bot_player_id(level, k)) for k in (1, 2, 3)}
    assert stack.calls and {t for _, _, t in stack.calls} <= tokens
    allowed = {
        ("GET", f"{stack.url}/v1/games/{game_id}"),
        ("GET", f"{stack.url}/v1/games/{game_id}/legal-moves"),
        ("POST", f"{stack.url}/v1/games/{game_id}/moves"),
    }
    assert {(m, u) for m, u, _ in stack.calls} <= allowed
    posts = [t for m, _, t in stack.calls if m == "POST"]
    assert len(posts) >= sum(1 for e in events if e["type"] == "MoveMade") - human_moves
    # and what a bot reads is its own seat: the server answers its token with its seat's view
    for k, seat in ((1, 1), (2, 2), (3, 3)):
        bot = Client(stack.url, bot_token(SECRET, bot_player_id(level, k)))
        assert bot.get(f"/v1/games/{game_id}").json()["your_seat"] == seat


def test_bot_seats_are_flagged_in_lists_and_profiles(stack: Stack) -> None:
    human = register(stack.url, "Bram")
    game_id = _klapper_with_bots(stack, human, "rules")
    listed = human.get("/v1/games", params={"player": human.player_id}).json()["items"]
    item = next(i for i in listed if i["id"] == game_id)
    assert [s["bot"] for s in item["seats"]] == [None] + [{"level": "rules"}] * 3
    profile = human.get(f"/v1/players/{bot_player_id('rules', 1)}").json()
    assert profile["bot"] == {"level": "rules"} and profile["display_name"] == "Rules bot 1"
    assert human.get(f"/v1/players/{human.player_id}").json()["bot"] is None


def test_seating_a_bot_is_refused_with_problems(stack: Stack) -> None:
    creator, other = register(stack.url, "Cor"), register(stack.url, "Dirk")
    game_id = creator.post("/v1/games", {"game_type": "klapper", "num_players": 2}).json()["id"]
    assert creator.post(f"/v1/games/{game_id}/join", {"seat": 0}).status_code == 200

    def problem(client: Client, seat: int, body: Any) -> tuple[int, dict[str, Any]]:
        r = client.post(f"/v1/games/{game_id}/seats/{seat}/bot", body)
        assert r.headers["Content-Type"].startswith("application/problem+json"), r.text
        return r.status_code, r.json()

    status, p = problem(creator, 1, {"level": "grandmaster"})
    assert status == 422 and "level" in p["errors"]
    status, p = problem(other, 1, {"level": "rules"})
    assert status == 403 and p["code"] == "not_creator"
    status, p = problem(creator, 0, {"level": "rules"})
    assert status == 409 and p["code"] == "seat_taken"
    status, p = problem(creator, 5, {"level": "rules"})
    assert status == 404
    status, p = problem(Client(stack.url), 1, {"level": "rules"})
    assert status == 401
    assert creator.post(f"/v1/games/{game_id}/seats/1/bot", {"level": "rules"}).status_code == 200
    status, p = problem(creator, 1, {"level": "rules"})
    assert status == 409 and p["code"] == "game_not_open"  # the table is full: the game started
    admin = Client(stack.url, ADMIN)
    open_game = creator.post("/v1/games", {"game_type": "klapper", "num_players": 2}).json()["id"]
    assert admin.post(f"/v1/games/{open_game}/seats/0/bot", {"level": "strong"}).status_code == 200


def test_a_bot_account_is_move_limited_per_game_not_across_its_games(
    database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch, closing: Any
) -> None:
    """One bot account plays many games at once: the move limit counts per game for it (per player for people)."""
    from tests.e2e.test_front_door import assert_429, limited_games_app

    monkeypatch.setenv("BOTS_SECRET", SECRET)
    client = closing(limited_games_app(database_url, redis_url, moves="2/minute")).test_client()
    admin = {"Authorization": f"Bearer {ADMIN}"}
    game = client.post("/v1/games", json={"game_type": "klapper", "num_players": 2}, headers=admin).get_json()
    assert client.post(f"/v1/games/{game['id']}/seats/0/bot", json={"level": "random"}, headers=admin).status_code == 200
    token = bot_token(SECRET, bot_player_id("random", 1))

    def move(game_id: str) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
        return client.post(f"/v1/games/{game_id}/moves", json={"move": {"type": "pass"}, "expected_version": 1}, headers=headers)

    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    assert [move(first).status_code for _ in range(2)] == [404, 404]
    assert_429(move(first))
    assert move(second).status_code == 404  # another game of the same bot account is not held back
