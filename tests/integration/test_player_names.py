"""Display names travel as PlayerRegistered / PlayerRenamed through the games outbox, the relay and the
real RQ queues to ratings and matchmaking, which keep their own copy (issue 15, item 2)."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from flask.testing import FlaskClient
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue

from shared.auth import Identity, PlayerDirectory
from shared.config import Settings
from shared.outbox import relay_once
from shared.web.closing import close_app
from tests.support.jobs import close_cached_services, work_off
from tests.unit.ratings.factories import envelope, finished

pytestmark = pytest.mark.integration

ADMIN = "test-admin-token"
DEAD = "http://127.0.0.1:9"


@pytest.fixture
def env(database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("ADMIN_TOKEN", ADMIN)
    monkeypatch.setenv("RATINGS_URL", DEAD)
    monkeypatch.setenv("GAMES_URL", DEAD)
    close_cached_services()
    base = Settings.from_env()
    yield Settings(database_url, redis_url, ADMIN, "127.0.0.1", 0, base.ports, "WARNING")
    close_cached_services()


@pytest.fixture
def pool(env: Settings) -> Iterator[ConnectionPool]:
    p = ConnectionPool(env.database_url, min_size=1, max_size=4, open=True)
    yield p
    p.close()


@pytest.fixture
def redis(env: Settings) -> Iterator[Redis]:
    r = Redis.from_url(env.redis_url)
    yield r
    r.close()


@pytest.fixture
def ratings(env: Settings) -> Iterator[FlaskClient]:
    from services.ratings.bootstrap import create_app

    app = create_app(env)
    yield app.test_client()
    close_app(app)


@pytest.fixture
def matchmaking(env: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    from services.matchmaking.bootstrap import create_app
    from tests.integration.matchmaking.test_matchmaking_flow import games_server

    games = games_server(env.database_url, env.redis_url)  # leagues are checked against its game types
    monkeypatch.setenv("GAMES_URL", games.url)
    app = create_app(env)
    yield app.test_client()
    close_app(app)
    games.stop()


def deliver(pool: ConnectionPool, redis: Redis) -> None:
    """The games outbox onto the queues, then the ratings and matchmaking workers in burst mode."""
    while relay_once(pool, "games", redis):
        pass
    for name in ("ratings", "matchmaking"):
        work_off(Queue(name, connection=redis))


def publish_finished(pool: ConnectionPool, body: dict[str, Any]) -> None:
    """A GameFinished as the games service writes it (event + outbox rows in one transaction)."""
    from shared.eventstore.model import NewEvent
    from shared.eventstore.postgres import PostgresEventStore
    from shared.messages import outbox_for

    env = envelope("GameFinished", body)
    PostgresEventStore(pool, "games").append(
        f"test-{uuid.uuid4()}", 0, [NewEvent("GameFinished", body)], outbox_for("GameFinished", env["message_id"], body)
    )


def test_a_rename_reaches_the_leaderboard_history_and_chart_title(
    pool: ConnectionPool, redis: Redis, ratings: FlaskClient
) -> None:
    directory = PlayerDirectory(pool)
    people = [directory.register(name)[0] for name in ("Anneke", "Bram", "Carla")]
    publish_finished(pool, finished("roparun", people, [1, 2, 3]))
    deliver(pool, redis)
    board = ratings.get("/v1/pools/roparun/leaderboard?provisional=true").get_json()
    assert {i["player_id"]: i["display_name"] for i in board["items"]} == dict(
        zip(people, ["Anneke", "Bram", "Carla"], strict=True)
    )

    directory.rename(people[0], "Anneke <de Snelle>")
    deliver(pool, redis)
    board = ratings.get("/v1/pools/roparun/leaderboard?provisional=true").get_json()
    assert board["items"][0] == {**board["items"][0], "player_id": people[0], "display_name": "Anneke <de Snelle>"}
    mine = ratings.get(f"/v1/players/{people[0]}/ratings").get_json()
    assert mine["display_name"] == "Anneke <de Snelle>"
    svg = ratings.get(f"/v1/players/{people[0]}/ratings/roparun.svg").get_data(as_text=True)
    root = ET.fromstring(svg)  # the name is escaped, so the SVG still parses
    title = root.find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text == "Anneke <de Snelle> \u2014 rating in roparun"
    assert "after 1 game:" in svg and "1 games" not in svg
    predicted = ratings.post("/v1/predict", json={"pool": "roparun", "players": people}).get_json()
    assert [p["display_name"] for t in predicted["teams"] for p in t["players"]] == [
        "Anneke <de Snelle>", "Bram", "Carla"]


def test_a_rename_reaches_league_participants_and_standings(
    pool: ConnectionPool, redis: Redis, matchmaking: FlaskClient
) -> None:
    directory = PlayerDirectory(pool)
    people = [directory.register(f"speler {k}")[0] for k in range(4)]
    deliver(pool, redis)
    r = matchmaking.post(
        "/v1/leagues",
        json={"name": "Names", "game_type": "roparun", "participants": people, "rounds": 1, "table_sizes": [4]},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert r.status_code == 201, r.get_json()
    league_id = r.get_json()["id"]
    directory.rename(people[2], "Carla")
    deliver(pool, redis)
    league = matchmaking.get(f"/v1/leagues/{league_id}").get_json()
    assert {p["player_id"]: p["display_name"] for p in league["participants"]} == {
        people[0]: "speler 0", people[1]: "speler 1", people[2]: "Carla", people[3]: "speler 3",
    }
    rows = matchmaking.get(f"/v1/leagues/{league_id}/standings").get_json()["rows"]
    assert {row["player_id"]: row["display_name"] for row in rows}[people[2]] == "Carla"


def test_names_are_kept_from_messages_not_from_the_identity_schema(
    pool: ConnectionPool, redis: Redis, database_url: str
) -> None:
    """Until the message is delivered, ratings and matchmaking do not know the new name."""
    directory = PlayerDirectory(pool)
    player = directory.register("Daan")[0]
    deliver(pool, redis)
    directory.rename(player, "Daan Jansen")
    with psycopg.connect(database_url) as conn:
        for schema in ("ratings", "matchmaking"):
            row = conn.execute(f"SELECT display_name FROM {schema}.player_names WHERE player_id = %s",
                               (player,)).fetchone()
            assert row == ("Daan",)
    deliver(pool, redis)
    with psycopg.connect(database_url) as conn:
        for schema in ("ratings", "matchmaking"):
            row = conn.execute(f"SELECT display_name, name_version FROM {schema}.player_names"
                               " WHERE player_id = %s", (player,)).fetchone()
            assert row == ("Daan Jansen", 2)


def test_late_and_repeated_name_messages_never_bring_an_old_name_back(
    pool: ConnectionPool, redis: Redis, database_url: str
) -> None:
    player = str(uuid.uuid4())
    job = {"ratings": "services.ratings.entrypoints.jobs.handle_message",
           "matchmaking": "services.matchmaking.entrypoints.jobs.handle_message"}

    def send(kind: str, name: str, version: int) -> None:
        body = {"player_id": player, "display_name": name, "name_version": version}
        for queue_name, path in job.items():
            Queue(queue_name, connection=redis).enqueue(
                path, {"message_id": f"{player}:name:{version}", "type": kind, "body": body}
            )

    send("PlayerRenamed", "third", 3)
    send("PlayerRegistered", "first", 1)  # late
    send("PlayerRenamed", "second", 2)  # late
    send("PlayerRenamed", "third", 3)  # redelivered
    deliver(pool, redis)
    with psycopg.connect(database_url) as conn:
        for schema in ("ratings", "matchmaking"):
            row = conn.execute(f"SELECT display_name, name_version FROM {schema}.player_names"
                               " WHERE player_id = %s", (player,)).fetchone()
            assert row == ("third", 3)


def test_players_registered_before_tokens_and_names_keep_their_token_and_are_announced(database_url: str) -> None:
    """identity 0002 on a database with players: their token moves to identity.tokens and one
    PlayerRegistered per consumer goes into the games outbox."""
    import shutil
    import tempfile
    from pathlib import Path

    from shared.auth import hash_token
    from shared.migrate import MigrationSet, apply, identity_set, service_sets

    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    name = f"names_migration_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = database_url.rsplit("/", 1)[0] + "/" + name
    first_only = Path(tempfile.mkdtemp())
    try:
        shutil.copy(identity_set().folder / "0001_players.sql", first_only)
        root = Path(__file__).resolve().parents[2]
        apply(url, [MigrationSet("identity", "identity", first_only),
                    *service_sets("games", root / "services" / "games" / "adapters" / "migrations")])
        player = str(uuid.uuid4())
        with psycopg.connect(url) as conn:
            conn.execute("INSERT INTO identity.players (id, display_name, token_hash) VALUES (%s, 'Oud', %s)",
                         (player, hash_token("old-token")))
        apply(url, [identity_set()])
        pool = ConnectionPool(url, min_size=1, max_size=2, open=True)
        try:
            assert PlayerDirectory(pool).identity_for_token("old-token") == Identity(player_id=player)
        finally:
            pool.close()
        with psycopg.connect(url) as conn:
            rows = conn.execute("SELECT queue, message FROM games.outbox ORDER BY queue").fetchall()
        assert [q for q, _ in rows] == ["matchmaking", "ratings"]
        assert all(m["type"] == "PlayerRegistered" and m["body"] == {
            "player_id": player, "display_name": "Oud", "name_version": 1, "created_at": m["body"]["created_at"]
        } for _, m in rows)
    finally:
        shutil.rmtree(first_only, ignore_errors=True)
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_every_matchmaking_listing_names_its_players_in_one_shape(
    pool: ConnectionPool, redis: Redis, matchmaking: FlaskClient
) -> None:
    """Issue 15.2: wherever matchmaking lists players (league pairings and byes, participants, withdrawals,
    private tables and their creator, tickets) each comes as ``{player_id, display_name}``, the name kept
    from PlayerRegistered / PlayerRenamed."""
    directory = PlayerDirectory(pool)
    registered = [directory.register(f"speler {k}") for k in range(5)]
    people = [p for p, _ in registered]
    deliver(pool, redis)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    r = matchmaking.post("/v1/leagues", headers=admin, json={
        "name": "Names", "game_type": "roparun", "participants": people, "rounds": 2, "table_sizes": [4]})
    assert r.status_code == 201, r.get_json()
    league_id = r.get_json()["id"]
    directory.rename(people[4], "Eva")
    deliver(pool, redis)
    names = {p: f"speler {k}" for k, p in enumerate(people)} | {people[4]: "Eva"}

    def ref(player_id: str) -> dict[str, Any]:
        return {"player_id": player_id, "display_name": names[player_id]}

    league = matchmaking.get(f"/v1/leagues/{league_id}").get_json()
    assert league["participants"] == [ref(p) for p in people]
    first = league["schedule"][0]
    seated = [p for table in first["tables"] for p in table["seats"]] + first["byes"]
    assert sorted(seated) == sorted(people) and len(first["byes"]) == 1
    for table in first["tables"]:
        assert table["players"] == [ref(p) for p in table["seats"]]
    assert first["bye_players"] == [ref(p) for p in first["byes"]]
    w = matchmaking.post(f"/v1/leagues/{league_id}/withdraw", headers=admin,
                         json={"player_id": people[4], "reason": "moved"})
    assert w.status_code == 200, w.get_json()
    assert [(x["player_id"], x["display_name"]) for x in w.get_json()["withdrawals"]] == [(people[4], "Eva")]

    host = {"Authorization": f"Bearer {registered[4][1]}"}
    table = matchmaking.post("/v1/private-tables", headers=host, json={"game_type": "roparun", "num_players": 2})
    assert table.status_code == 201, table.get_json()
    assert table.get_json()["players"] == [ref(people[4])] and table.get_json()["creator"] == ref(people[4])
    ticket = matchmaking.post("/v1/tickets", headers={"Authorization": f"Bearer {registered[1][1]}"},
                              json={"game_type": "roparun", "player_counts": [4]})
    assert ticket.status_code == 201, ticket.get_json()
    assert ticket.get_json()["player"] == ref(people[1])
    spec = matchmaking.get("/openapi.json").get_json()["components"]["schemas"]
    assert sorted(spec["PlayerRef"]["required"]) == ["display_name", "player_id"]
