"""Matchmaking over real PostgreSQL and Redis, with the games service behind the queue (in-process
through its RQ job) and, where needed, the games and a stub ratings service on real HTTP ports."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import psycopg
import pytest
from flask import Flask, jsonify
from redis import Redis
from rq import Queue

from services.matchmaking.domain.league import game_points
from services.matchmaking.domain.seating import repeat_cost
from shared.auth import PlayerDirectory
from shared.config import Settings
from shared.db import make_pool
from shared.outbox import relay_once
from shared.web.closing import close_app
from tests.e2e.conftest import Server
from tests.support.jobs import close_cached_services, work_off

pytestmark = pytest.mark.integration

ADMIN = "test-admin-token"
DEAD = "http://127.0.0.1:9"  # nothing listens: the adapters fall back (the game types: 503)


def games_server(database_url: str, redis_url: str) -> Server:
    """The games service on a real HTTP port: matchmaking checks game types and options against its
    ``GET /v1/game-types`` (and attaches its audits to disputes)."""
    from services.games.bootstrap import create_app as create_games_app
    from services.games.engines.registry import default_registry

    base = Settings.from_env()
    return Server(create_games_app(
        Settings(database_url, redis_url, ADMIN, "127.0.0.1", 0, base.ports, "WARNING"),
        default_registry("tests.support.diceduel:DiceDuel"),
    ))


@pytest.fixture
def env(database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("ADMIN_TOKEN", ADMIN)
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    monkeypatch.setenv("RATINGS_URL", DEAD)
    games = games_server(database_url, redis_url)
    monkeypatch.setenv("GAMES_URL", games.url)
    close_cached_services()
    yield {"database_url": database_url, "redis_url": redis_url, "games_url": games.url}
    close_cached_services()
    games.stop()


@pytest.fixture
def pool(env: dict[str, str]) -> Iterator[Any]:
    p = make_pool(env["database_url"], max_size=4)
    yield p
    p.close()


@pytest.fixture
def redis(env: dict[str, str]) -> Iterator[Redis]:
    r = Redis.from_url(env["redis_url"])
    yield r
    r.close()


def make_app(env: dict[str, str]) -> Flask:
    from services.matchmaking.bootstrap import create_app

    base = Settings.from_env()
    return create_app(Settings(env["database_url"], env["redis_url"], ADMIN, "127.0.0.1", 0, base.ports, "WARNING"))


@pytest.fixture
def app(env: dict[str, str]) -> Iterator[Flask]:
    made = make_app(env)
    yield made
    close_app(made)


def players(pool: Any, n: int) -> list[tuple[str, str]]:
    directory = PlayerDirectory(pool)
    return [directory.register(f"player {k}") for k in range(n)]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def pump(pool: Any, redis: Redis) -> None:
    """Our outbox -> games job -> games outbox -> our job, as the relay and workers would."""
    relay_once(pool, "matchmaking", redis)
    work_off(Queue("games", connection=redis))
    relay_once(pool, "games", redis)
    work_off(Queue("matchmaking", connection=redis))


def deliver(redis: Redis, message: dict[str, Any]) -> None:
    queue = Queue("matchmaking", connection=redis)
    queue.enqueue_call("services.matchmaking.entrypoints.jobs.handle_message", args=(message,))
    work_off(queue)


def finished(game_id: str, seats: list[str], ranks: list[int]) -> dict[str, Any]:
    return {
        "message_id": f"{game_id}:GameFinished",
        "type": "GameFinished",
        "body": {
            "game_id": game_id, "game_type": "diceduel", "options": {}, "players": seats,
            "outcome": {"ranks": ranks, "scores": [float(10 - r) for r in ranks], "reason": "target reached",
                        "teams": None, "team_ranks": None, "team_scores": None},
            "revealed_seed": "00" * 32,
        },
    }


# ------------------------------------------------------------------------------ queue
def test_four_tickets_become_one_game_with_those_players(app: Flask, pool: Any, redis: Redis) -> None:
    client = app.test_client()
    people = players(pool, 4)
    tickets = []
    for _, token in people:
        r = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [4]}, headers=bearer(token))
        assert r.status_code == 201, r.get_json()
        tickets.append(r.get_json())
    assert tickets[0]["status"] == "waiting" and tickets[0]["rating"]["source"] == "default"
    first = client.get(f"/v1/tickets/{tickets[0]['id']}", headers=bearer(people[0][1])).get_json()
    assert first["status"] == "matched" and tickets[-1]["status"] == "matched"

    pump(pool, redis)

    views = [client.get(f"/v1/tickets/{t['id']}", headers=bearer(tok)).get_json()
             for t, (_, tok) in zip(tickets, people, strict=True)]
    assert {v["status"] for v in views} == {"ready"}
    game_ids = {v["game_id"] for v in views}
    assert len(game_ids) == 1 and None not in game_ids
    with psycopg.connect(app.extensions["matchmaking_service"].uow.pool.conninfo) as conn:
        row = conn.execute("SELECT seats, status FROM games.games WHERE id = %s", (game_ids.pop(),)).fetchone()
    assert row is not None
    assert sorted(row[0]) == sorted(p for p, _ in people) and row[1] == "running"
    assert row[0] == views[0]["seats"]

    # a second delivery of the reply changes nothing; the SSE stream ends at once on a ready ticket
    pump(pool, redis)
    stream = client.get(f"/v1/tickets/{tickets[0]['id']}/stream?timeout=1", headers=bearer(people[0][1]))
    body = stream.get_data(as_text=True)
    assert stream.mimetype == "text/event-stream" and "event: status" in body and "event: end" in body


def test_ticket_errors_are_problems(app: Flask, pool: Any) -> None:
    client = app.test_client()
    (_, token), (_, other) = players(pool, 2)
    r = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [9]}, headers=bearer(token))
    assert r.status_code == 422 and r.mimetype == "application/problem+json" and "player_counts" in r.get_json()["errors"]
    assert client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2]}).status_code == 401
    t = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [3]}, headers=bearer(token))
    again = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [3]}, headers=bearer(token))
    assert again.status_code == 409 and again.get_json()["code"] == "active_ticket"
    assert client.get(f"/v1/tickets/{t.get_json()['id']}", headers=bearer(other)).status_code == 403
    assert client.get("/v1/tickets/not-a-uuid", headers=bearer(token)).status_code == 404
    left = client.delete(f"/v1/tickets/{t.get_json()['id']}", headers=bearer(token))
    assert left.status_code == 200 and left.get_json()["status"] == "cancelled"


@pytest.fixture
def ratings_stub() -> Iterator[tuple[str, dict[str, float]]]:
    mus: dict[str, float] = {}
    stub = Flask("ratings-stub")

    @stub.get("/v1/players/<player_id>/ratings")
    def ratings(player_id: str) -> Any:
        return jsonify({"player_id": player_id,
                        "ratings": [{"pool": "diceduel", "mu": mus.get(player_id, 25.0), "sigma": 2.0}]})

    server = Server(stub)
    yield server.url, mus
    server.stop()


def test_a_ticket_that_waits_long_enough_is_matched_across_a_wider_gap(
    env: dict[str, str], pool: Any, monkeypatch: pytest.MonkeyPatch, ratings_stub: tuple[str, dict[str, float]],
    closing: Any,
) -> None:
    url, mus = ratings_stub
    monkeypatch.setenv("RATINGS_URL", url)
    app = closing(make_app(env))
    client = app.test_client()
    (a, ta), (b, tb) = players(pool, 2)
    mus[a], mus[b] = 20.0, 25.0  # 5 apart: base gap 2, +0.1 per second waited
    ticket_a = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2]}, headers=bearer(ta))
    ticket_b = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2]}, headers=bearer(tb))
    assert ticket_a.get_json()["rating"] == {"pool": "diceduel", "mu": 20.0, "sigma": 2.0, "source": "ratings"}
    assert ticket_b.get_json()["status"] == "waiting"
    svc = app.extensions["matchmaking_service"]
    created = max(datetime.fromisoformat(t.get_json()["created_at"]).timestamp() for t in (ticket_a, ticket_b))
    assert svc.tick(now=created + 10) == []  # gap 3 < 5
    formed = svc.tick(now=created + 31)  # gap 5.1 >= 5
    assert len(formed) == 1
    view = client.get(f"/v1/tickets/{ticket_a.get_json()['id']}", headers=bearer(ta)).get_json()
    assert view["status"] == "matched" and sorted(view["seats"]) == sorted([a, b])
    assert "rating spread 5.00" in view["reason"]


def test_private_table_starts_when_full(app: Flask, pool: Any, redis: Redis) -> None:
    client = app.test_client()
    people = players(pool, 3)
    made = client.post("/v1/private-tables", json={"game_type": "diceduel", "num_players": 3},
                       headers=bearer(people[0][1]))
    assert made.status_code == 201, made.get_json()
    code = made.get_json()["invite_code"]
    assert client.post("/v1/private-tables/join", json={"code": "NOPE1234"},
                       headers=bearer(people[1][1])).status_code == 404
    for _, token in people[1:]:
        joined = client.post("/v1/private-tables/join", json={"code": code}, headers=bearer(token))
        assert joined.status_code == 200, joined.get_json()
    assert joined.get_json()["status"] == "requested"
    pump(pool, redis)
    table = client.get(f"/v1/private-tables/{made.get_json()['id']}", headers=bearer(people[0][1])).get_json()
    assert table["status"] == "created" and table["game_id"]
    assert table["seats"] == [p for p, _ in people]
    mine = client.get(f"/v1/tickets/{made.get_json()['your_ticket_id']}", headers=bearer(people[0][1])).get_json()
    assert mine["status"] == "ready" and mine["game_id"] == table["game_id"]


# ------------------------------------------------------------------------------ leagues
def _met_before(tables: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    met: dict[str, dict[str, int]] = {}
    for t in tables:
        for p in t["seats"]:
            for q in t["seats"]:
                if p != q:
                    met.setdefault(p, {})[q] = met.setdefault(p, {}).get(q, 0) + 1
    return met


def _min_cost(people: list[str], met: dict[str, dict[str, int]]) -> int:
    """Brute force over every split of 12 players into three tables of four."""
    best = 10**9
    first = people[0]
    rest = people[1:]
    for mates in itertools.combinations(rest, 3):
        t1 = (first, *mates)
        left = [p for p in rest if p not in mates]
        for mates2 in itertools.combinations(left[1:], 3):
            t2 = (left[0], *mates2)
            t3 = [p for p in left if p not in t2]
            best = min(best, repeat_cost(t1, met) + repeat_cost(t2, met) + repeat_cost(t3, met))
    return best


def _play_round(client: Any, pool: Any, redis: Redis, league_id: str, round_no: int,
                points: dict[str, float]) -> list[dict[str, Any]]:
    pump(pool, redis)
    league = client.get(f"/v1/leagues/{league_id}").get_json()
    tables = league["schedule"][round_no - 1]["tables"]
    assert all(t["game_id"] and t["status"] == "created" for t in tables)
    for k, t in enumerate(tables):
        ranks = [((seat + k + round_no) % 4) + 1 for seat in range(4)]
        for p, pts in zip(t["seats"], game_points(ranks), strict=True):
            points[p] = points.get(p, 0.0) + pts
        deliver(redis, finished(t["game_id"], t["seats"], ranks))
    return tables


def test_league_of_12_plays_3_rounds_with_fewest_repeats_and_correct_standings(
    app: Flask, pool: Any, redis: Redis
) -> None:
    client = app.test_client()
    people = [p for p, _ in players(pool, 12)]
    r = client.post("/v1/leagues", json={"name": "Test league", "game_type": "diceduel", "participants": people,
                                         "rounds": 3, "table_sizes": [4]}, headers=bearer(ADMIN))
    assert r.status_code == 201, r.get_json()
    league = r.get_json()
    assert league["format"] == "swiss" and league["seated_rounds"] == 1
    points: dict[str, float] = {}
    history: list[dict[str, Any]] = []
    for round_no in (1, 2, 3):
        league = client.get(f"/v1/leagues/{league['id']}").get_json()
        seated = league["schedule"][round_no - 1]["tables"]
        assert len(seated) == 3 and all(t["reason"] for t in seated)
        met = _met_before(history)
        cost = sum(repeat_cost(t["seats"], met) for t in seated)
        assert cost == _min_cost(people, met), f"round {round_no}: {cost} repeats where fewer were possible"
        if round_no == 1:
            assert cost == 0
        history += _play_round(client, pool, redis, league["id"], round_no, points)
    league = client.get(f"/v1/leagues/{league['id']}").get_json()
    assert league["status"] == "completed" and len(league["schedule"]) == 3

    standings = client.get(f"/v1/leagues/{league['id']}/standings").get_json()
    rows = standings["rows"]
    assert {row["player_id"]: row["points"] for row in rows} == points
    assert [row["place"] for row in rows] == list(range(1, 13))
    keys = [(-row["points"], -row["buchholz"], -row["wins"], -row["score"]) for row in rows]
    assert keys == sorted(keys)
    assert all(row["games"] == 3 and not row["provisional"] for row in rows)
    csv = client.get(f"/v1/leagues/{league['id']}/export?format=csv")
    assert csv.mimetype == "text/csv" and csv.get_data(as_text=True).count("\n") == 13
    doc = client.get(f"/v1/leagues/{league['id']}/export?format=json").get_json()
    assert doc["standings"]["rows"][0]["player_id"] == rows[0]["player_id"]


def test_disputed_game_ruled_void_changes_standings_and_emits_game_voided(
    env: dict[str, str], pool: Any, redis: Redis, monkeypatch: pytest.MonkeyPatch, closing: Any
) -> None:
    games = games_server(env["database_url"], env["redis_url"])
    monkeypatch.setenv("GAMES_URL", games.url)
    try:
        app = closing(make_app(env))
        client = app.test_client()
        people = [p for p, _ in players(pool, 8)]
        league = client.post("/v1/leagues", json={"name": "Cup", "game_type": "diceduel", "participants": people,
                                                  "rounds": 2, "table_sizes": [4]},
                             headers=bearer(ADMIN)).get_json()
        points: dict[str, float] = {}
        tables = _play_round(client, pool, redis, league["id"], 1, points)
        disputed = tables[0]
        before = client.get(f"/v1/leagues/{league['id']}/standings").get_json()

        bad = client.post(f"/v1/leagues/{league['id']}/disputes", json={"game_id": disputed["game_id"]},
                          headers=bearer(ADMIN))
        assert bad.status_code == 422 and "reason" in bad.get_json()["errors"]
        assert client.post(f"/v1/leagues/{league['id']}/disputes",
                           json={"game_id": disputed["game_id"], "reason": "x"}).status_code == 401
        flagged = client.post(f"/v1/leagues/{league['id']}/disputes",
                              json={"game_id": disputed["game_id"], "reason": "dice looked loaded"},
                              headers=bearer(ADMIN))
        assert flagged.status_code == 201, flagged.get_json()
        dispute = flagged.get_json()
        assert dispute["status"] == "open" and dispute["audit"]["available"] is True
        provisional = client.get(f"/v1/leagues/{league['id']}/standings").get_json()
        assert provisional["provisional"] and provisional["disputed_games"] == [disputed["game_id"]]
        flags = {row["player_id"]: row["provisional"] for row in provisional["rows"]}
        assert {p for p, f in flags.items() if f} == set(disputed["seats"])

        ruled = client.post(f"/v1/leagues/{league['id']}/disputes/{dispute['dispute_id']}/ruling",
                            json={"ruling": "void", "note": "audit inconclusive, replay not possible"},
                            headers=bearer(ADMIN))
        assert ruled.status_code == 200 and ruled.get_json()["ruling"] == "void"
        again = client.post(f"/v1/leagues/{league['id']}/disputes/{dispute['dispute_id']}/ruling",
                            json={"ruling": "void"}, headers=bearer(ADMIN))
        assert again.status_code == 409

        after = client.get(f"/v1/leagues/{league['id']}/standings").get_json()
        old = {row["player_id"]: row["points"] for row in before["rows"]}
        new = {row["player_id"]: row["points"] for row in after["rows"]}
        assert not after["provisional"]
        for p in people:
            assert new[p] == (0.0 if p in disputed["seats"] else old[p])
        assert old != new
        events = client.get(f"/v1/leagues/{league['id']}/events").get_json()["events"]
        assert [e["type"] for e in events].count("DisputeRuled") == 1
        with psycopg.connect(env["database_url"]) as conn:
            rows = conn.execute(
                "SELECT queue, message FROM matchmaking.outbox WHERE message->>'type' = 'GameVoided'"
            ).fetchall()
        assert len(rows) == 1 and rows[0][0] == "ratings"
        assert rows[0][1]["body"]["game_id"] == disputed["game_id"]
    finally:
        games.stop()


def test_openapi_documents_every_endpoint_with_examples(app: Flask) -> None:
    spec = app.test_client().get("/openapi.json").get_json()
    ours = {path: ops for path, ops in spec["paths"].items() if path.startswith("/v1/")}
    assert len(ours) >= 13
    for path, ops in ours.items():
        for method, op in ops.items():
            if method == "parameters":
                continue
            assert op.get("summary") or op.get("description"), (path, method)
            assert any(code.startswith("2") for code in op["responses"]), (path, method)
    schemas = spec["components"]["schemas"]
    for name in ("TicketCreate", "Ticket", "LeagueCreate", "Standings", "Dispute", "PrivateTable", "League"):
        props = schemas[name]["properties"]
        assert any("example" in p for p in props.values()), name


def test_ticket_stream_pushes_status_changes_without_waiting_for_a_poll(
    env: dict[str, str], pool: Any, redis: Redis
) -> None:
    """A status change committed anywhere (in an HTTP request, by a queue worker) reaches an open ticket
    stream at once: the fallback check runs every 30 s here, so only a pushed change arrives in time."""
    import json
    import queue as queues
    import time

    import requests

    prompt = 5.0  # seconds: generous for a loaded machine, far below the 30 s fallback
    server = Server(make_app(env))
    try:
        (_, first), (_, second) = players(pool, 2)
        body = {"game_type": "diceduel", "player_counts": [2]}
        ticket = requests.post(server.url + "/v1/tickets", json=body, headers=bearer(first), timeout=10).json()
        assert ticket["status"] == "waiting"
        seen: queues.Queue[dict[str, Any] | None] = queues.Queue()

        def read() -> None:
            with requests.get(f"{server.url}/v1/tickets/{ticket['id']}/stream", headers=bearer(first),
                              params={"timeout": 120, "interval": 30}, stream=True, timeout=60) as r:
                for line in r.iter_lines(decode_unicode=True):
                    if line.startswith("data: "):
                        seen.put(json.loads(line[6:]))
            seen.put(None)

        threading.Thread(target=read, daemon=True).start()
        assert (seen.get(timeout=10) or {})["status"] == "waiting"
        time.sleep(0.3)  # the stream is waiting for a change now
        other = requests.post(server.url + "/v1/tickets", json=body, headers=bearer(second), timeout=10)
        assert other.status_code == 201 and other.json()["status"] == "matched"  # the table formed
        assert (seen.get(timeout=prompt) or {})["status"] == "matched"
        pump(pool, redis)  # games creates the game; a matchmaking worker consumes the reply
        ready = seen.get(timeout=prompt) or {}
        assert ready["status"] == "ready" and ready["game_id"]
        assert seen.get(timeout=prompt) == {"status": "ready"}  # the `end` event, then the stream closes
        assert seen.get(timeout=prompt) is None
    finally:
        server.stop()
