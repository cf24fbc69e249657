"""Issue 17, items 4 and 5: validation at the door and roles, over real PostgreSQL and Redis, with the
games service on a real HTTP port (matchmaking learns game types and options schemas from its
``GET /v1/game-types``) and behind the real queues (the relay and RQ workers in burst mode).

* a league, ticket or private table the games service would refuse is a 422 naming the field; when the
  games service does not answer, a 503 with Retry-After; a table it refuses later shows ``failed``;
* organiser tokens run only their own leagues, auditor tokens read every export and write nothing
  (every write operation of every service's OpenAPI is tried), revoked tokens are 401, and a player
  files a dispute only about a game they played in.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from redis import Redis

from shared.config import Settings
from shared.web.closing import close_app
from tests.integration.matchmaking.test_matchmaking_flow import (  # noqa: F401  (fixtures)
    ADMIN,
    DEAD,
    app,
    bearer,
    deliver,
    env,
    finished,
    make_app,
    players,
    pool,
    pump,
    redis,
)

pytestmark = pytest.mark.integration
WRITE_METHODS = ("post", "put", "patch", "delete")


def settings(env: dict[str, str]) -> Settings:  # noqa: F811
    base = Settings.from_env()
    return Settings(env["database_url"], env["redis_url"], ADMIN, "127.0.0.1", 0, base.ports, "WARNING")


@pytest.fixture
def games(env: dict[str, str]) -> Iterator[FlaskClient]:  # noqa: F811
    from services.games.bootstrap import create_app
    from services.games.engines.registry import default_registry

    made = create_app(settings(env), default_registry("tests.support.diceduel:DiceDuel"))
    yield made.test_client()
    close_app(made)


def mint(games: FlaskClient, role: str, label: str = "", principal_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "label": label}
    if principal_id:
        body["principal_id"] = principal_id
    r = games.post("/v1/tokens", json=body, headers=bearer(ADMIN))
    assert r.status_code == 201, r.get_json()
    return dict(r.get_json())


def league_body(people: list[str], **extra: Any) -> dict[str, Any]:
    return {"name": "Club cup", "game_type": "diceduel", "participants": people, "rounds": 2,
            "table_sizes": [2], **extra}


def concrete(path: str, op: dict[str, Any], values: dict[str, str]) -> str:
    """An OpenAPI path with every parameter filled (integers 1, ids from ``values`` or a fresh uuid)."""
    for param in op.get("parameters", []):
        if param.get("in") != "path":
            continue
        name = param["name"]
        value = "1" if param.get("schema", {}).get("type") == "integer" else values.get(name, str(uuid.uuid4()))
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, path
    return path


def write_operations(client: FlaskClient) -> list[tuple[str, str, dict[str, Any]]]:
    spec = client.get("/openapi.json").get_json()
    return [  # path-level parameters joined to each operation's own
        (method, path, {**op, "parameters": [*ops.get("parameters", []), *op.get("parameters", [])]})
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        if method in WRITE_METHODS
    ]


# ------------------------------------------------------------------------------ validation at the door
def test_a_league_with_mode_banana_is_refused_naming_options_mode(app: Flask, pool: Any) -> None:  # noqa: F811
    client = app.test_client()
    people = [p for p, _ in players(pool, 4)]
    body = {"name": "Banana", "game_type": "hoppaa", "participants": people, "rounds": 1, "table_sizes": [4],
            "options": {"mode": "banana"}}
    r = client.post("/v1/leagues", json=body, headers=bearer(ADMIN))
    assert r.status_code == 422 and r.mimetype == "application/problem+json", r.get_json()
    assert list(r.get_json()["errors"]) == ["options.mode"]
    assert "banana" in r.get_json()["errors"]["options.mode"][0]

    unknown = client.post("/v1/leagues", json={**body, "options": {"colour": "red", "pawns_per_player": 3}},
                          headers=bearer(ADMIN))
    assert unknown.status_code == 422
    assert set(unknown.get_json()["errors"]) == {"options.colour", "options.pawns_per_player"}

    no_game = client.post("/v1/leagues", json={**body, "game_type": "schaken", "options": {}}, headers=bearer(ADMIN))
    assert no_game.status_code == 422 and list(no_game.get_json()["errors"]) == ["game_type"]
    sizes = client.post("/v1/leagues", json={**body, "table_sizes": [5], "options": {}}, headers=bearer(ADMIN))
    assert sizes.status_code == 422 and list(sizes.get_json()["errors"]) == ["table_sizes"]
    assert client.get("/v1/leagues").get_json()["total"] == 0  # nothing was created


def test_tickets_and_private_tables_with_bad_options_or_game_types_are_refused(app: Flask, pool: Any) -> None:  # noqa: F811
    client = app.test_client()
    (_, token), = players(pool, 1)
    bad = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2], "options": {"target": 2}},
                      headers=bearer(token))
    assert bad.status_code == 422 and list(bad.get_json()["errors"]) == ["options.target"]
    wrong_type = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2],
                                                  "options": {"target": "far"}}, headers=bearer(token))
    assert wrong_type.status_code == 422 and "options.target" in wrong_type.get_json()["errors"]
    unknown = client.post("/v1/tickets", json={"game_type": "mens-erger-je-niet", "player_counts": [2]},
                          headers=bearer(token))
    assert unknown.status_code == 422 and list(unknown.get_json()["errors"]) == ["game_type"]
    private = client.post("/v1/private-tables", json={"game_type": "hoppaa", "num_players": 4,
                                                      "options": {"mode": "banana"}}, headers=bearer(token))
    assert private.status_code == 422 and list(private.get_json()["errors"]) == ["options.mode"]
    fine = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2], "options": {"target": 30}},
                       headers=bearer(token))
    assert fine.status_code == 201, fine.get_json()  # none of the refusals left a ticket behind


def test_the_games_service_down_is_a_503_with_retry_after_not_an_unchecked_accept(
    env: dict[str, str], pool: Any, monkeypatch: pytest.MonkeyPatch, closing: Any  # noqa: F811
) -> None:
    monkeypatch.setenv("GAMES_URL", DEAD)
    client = closing(make_app(env)).test_client()
    people = players(pool, 2)
    token = people[0][1]
    attempts = [
        client.post("/v1/leagues", json=league_body([p for p, _ in people]), headers=bearer(ADMIN)),
        client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2]}, headers=bearer(token)),
        client.post("/v1/private-tables", json={"game_type": "diceduel", "num_players": 2}, headers=bearer(token)),
    ]
    for r in attempts:
        assert r.status_code == 503 and r.mimetype == "application/problem+json", r.get_json()
        assert int(r.headers["Retry-After"]) > 0
        assert r.get_json()["backend"] == "games service"
    assert client.get("/v1/leagues").get_json()["total"] == 0


def test_hp_47_team_mode_at_the_wrong_table_size_is_refused_at_the_door(app: Flask, pool: Any) -> None:  # noqa: F811
    """HP-47: the team game needs exactly 4 players. The options schema cannot say so (it does not know
    the table size), so the door asks the games service's table check for every table size: a league,
    ticket or private table with team mode at a table of 3 is a 422 naming options.mode with the rule,
    and nothing is created."""
    client = app.test_client()
    people = players(pool, 6)
    ids = [p for p, _ in people]
    league = client.post("/v1/leagues", json={"name": "Teams of three", "game_type": "hoppaa", "participants": ids,
                                              "rounds": 1, "table_sizes": [4, 3], "options": {"mode": "team"}},
                         headers=bearer(ADMIN))
    assert league.status_code == 422, league.get_json()
    assert list(league.get_json()["errors"]) == ["options.mode"] and league.get_json()["rule"] == "HP-47"
    assert "table of 3" in league.get_json()["detail"] and "4 players" in league.get_json()["detail"]
    assert client.get("/v1/leagues").get_json()["total"] == 0
    ticket = client.post("/v1/tickets", json={"game_type": "hoppaa", "player_counts": [3],
                                              "options": {"mode": "team"}}, headers=bearer(people[0][1]))
    assert ticket.status_code == 422 and ticket.get_json()["rule"] == "HP-47", ticket.get_json()
    private = client.post("/v1/private-tables", json={"game_type": "hoppaa", "num_players": 2,
                                                      "options": {"mode": "team"}}, headers=bearer(people[0][1]))
    assert private.status_code == 422 and list(private.get_json()["errors"]) == ["options.mode"]
    fine = client.post("/v1/leagues", json={"name": "Teams of four", "game_type": "hoppaa",
                                            "participants": ids[:4], "rounds": 1, "table_sizes": [4],
                                            "options": {"mode": "team"}}, headers=bearer(ADMIN))
    assert fine.status_code == 201, fine.get_json()


def test_tickets_private_tables_and_leagues_carry_a_clock_checked_at_the_door(
    app: Flask, pool: Any, redis: Redis  # noqa: F811
) -> None:
    """A clock and timeout policy, as POST /v1/games takes them, checked against the games service's
    published clock schema (every bad field named) and its table check; stored normalized (defaults
    filled in) and sent in CreateGameRequested, so the game has the clock."""
    client = app.test_client()
    people = players(pool, 4)
    token = people[0][1]
    for body, fields in [
        ({"clock": {"kind": "per_move", "seconds": 0}}, {"clock.seconds"}),
        ({"clock": {"kind": "fischer"}}, {"clock.base_seconds"}),
        ({"clock": {"kind": "fischer", "base_seconds": 60, "seconds": 5}}, {"clock.seconds"}),
        ({"clock": {"kind": "sundial"}}, {"clock.kind"}),
        ({"timeout_policy": "forfeit"}, {"timeout_policy"}),
        ({"clock": {"kind": "per_move", "seconds": 30}, "timeout_policy": "auto_move"}, {"timeout_policy"}),
        ({"clock": {"kind": "correspondence", "days_per_move": 99}, "options": {"target": 1}},
         {"clock.days_per_move", "options.target"}),
    ]:
        for path, extra in (("/v1/tickets", {"player_counts": [2]}), ("/v1/private-tables", {"num_players": 2})):
            r = client.post(path, json={"game_type": "diceduel", **extra, **body}, headers=bearer(token))
            assert r.status_code == 422 and r.mimetype == "application/problem+json", (path, body, r.get_json())
            assert set(r.get_json()["errors"]) == fields, (path, body, r.get_json())
        r = client.post("/v1/leagues", json={**league_body([p for p, _ in people]), **body}, headers=bearer(ADMIN))
        assert r.status_code == 422 and set(r.get_json()["errors"]) == fields, (body, r.get_json())
    assert client.get("/v1/leagues").get_json()["total"] == 0

    fischer = {"kind": "fischer", "base_seconds": 300}
    tickets = [client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2], "clock": fischer},
                           headers=bearer(t)).get_json() for _, t in people[:2]]
    assert tickets[0]["clock"] == {**fischer, "increment_seconds": 0} and tickets[0]["timeout_policy"] == "forfeit"
    other = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [2]},
                        headers=bearer(people[2][1])).get_json()
    assert tickets[1]["status"] == "matched" and other["status"] == "waiting"  # no clock: another pool
    pump(pool, redis)
    game_id = client.get(f"/v1/tickets/{tickets[0]['id']}", headers=bearer(people[0][1])).get_json()["game_id"]
    with pool.connection() as conn:
        created = conn.execute("SELECT payload FROM games.events WHERE stream_id = %s AND version = 1",
                               (game_id,)).fetchone()[0]
    assert created["clock"] == {**fischer, "increment_seconds": 0} and created["timeout_policy"] == "forfeit"

    private = client.post("/v1/private-tables", json={"game_type": "diceduel", "num_players": 2,
                                                      "clock": {"kind": "per_move", "seconds": 45}},
                          headers=bearer(people[3][1])).get_json()
    assert private["clock"] == {"kind": "per_move", "seconds": 45} and private["timeout_policy"] == "forfeit"


@pytest.fixture
def next_version_worker(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:  # noqa: F811
    """The games worker runs a later version of Dice Duel (at most 50 squares, DD-5) than the games service
    that answers matchmaking's door: a table the door accepted is refused when its game is created."""
    from tests.support.jobs import close_cached_services

    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuelNextVersion")
    close_cached_services()
    yield
    close_cached_services()


def test_a_league_table_the_games_service_refuses_shows_failed_with_the_reason(
    app: Flask, pool: Any, redis: Redis, next_version_worker: None  # noqa: F811
) -> None:
    client = app.test_client()
    people = [p for p, _ in players(pool, 4)]
    r = client.post("/v1/leagues", json={**league_body(people), "rounds": 1, "options": {"target": 60}},
                    headers=bearer(ADMIN))
    assert r.status_code == 201, r.get_json()
    pump(pool, redis)  # fails if a job failed: the refusal is a message, not a stack trace
    league = client.get(f"/v1/leagues/{r.get_json()['id']}").get_json()
    tables = league["schedule"][0]["tables"]
    assert len(tables) == 2
    for table in tables:
        assert table["status"] == "failed" and table["game_id"] is None
        assert table["failure"]["field"] == "options.target" and table["failure"]["rule"] == "DD-5"
        assert "at most 50 squares" in table["failure"]["reason"]
    events = [e["type"] for e in client.get(f"/v1/leagues/{league['id']}/events").get_json()["events"]]
    assert events.count("TableCreationFailed") == 2
    pump(pool, redis)  # a repeated delivery changes nothing
    assert [e["type"] for e in client.get(f"/v1/leagues/{league['id']}/events").get_json()["events"]] == events


def test_a_queue_table_the_games_service_refuses_fails_its_tickets_with_the_reason(
    app: Flask, pool: Any, redis: Redis, next_version_worker: None  # noqa: F811
) -> None:
    client = app.test_client()
    people = players(pool, 3)
    tickets = [client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [3],
                                                "options": {"target": 60}}, headers=bearer(token)).get_json()
               for _, token in people]
    assert {t["status"] for t in tickets[-1:]} == {"matched"}
    pump(pool, redis)
    for ticket, (_, token) in zip(tickets, people, strict=True):
        view = client.get(f"/v1/tickets/{ticket['id']}", headers=bearer(token)).get_json()
        assert view["status"] == "failed" and view["game_id"] is None
        assert view["failure"] == {"reason": view["failure"]["reason"], "field": "options.target", "rule": "DD-5"}
        stream = client.get(f"/v1/tickets/{ticket['id']}/stream?timeout=1", headers=bearer(token))
        assert "event: end" in stream.get_data(as_text=True)  # failed is final
    again = client.post("/v1/tickets", json={"game_type": "diceduel", "player_counts": [3]},
                        headers=bearer(people[0][1]))
    assert again.status_code == 201  # a failed ticket is not active


# ------------------------------------------------------------------------------ roles
def test_role_tokens_are_minted_listed_and_revoked_by_the_admin_only(
    games: FlaskClient, app: Flask, pool: Any  # noqa: F811
) -> None:
    (_, player), = players(pool, 1)
    body = {"role": "organiser", "label": "Club Utrecht"}
    assert games.post("/v1/tokens", json=body).status_code == 401
    assert games.post("/v1/tokens", json=body, headers=bearer(player)).status_code == 403
    assert games.post("/v1/tokens", json={"role": "superuser"}, headers=bearer(ADMIN)).status_code == 422
    organiser = mint(games, "organiser", "Club Utrecht")
    assert organiser["role"] == "organiser" and organiser["token"] and organiser["revoked_at"] is None
    auditor = mint(games, "auditor", "KNSB arbiter")
    assert games.post("/v1/tokens", json=body, headers=bearer(organiser["token"])).status_code == 403
    assert games.get("/v1/tokens", headers=bearer(auditor["token"])).status_code == 403
    listed = games.get("/v1/tokens", headers=bearer(ADMIN)).get_json()["items"]
    assert [t["id"] for t in listed] == [organiser["id"], auditor["id"]]
    assert all("token" not in t for t in listed)  # the secret is shown once
    assert [t["id"] for t in games.get("/v1/tokens?role=auditor", headers=bearer(ADMIN)).get_json()["items"]] == [
        auditor["id"]]
    unknown_principal = games.post("/v1/tokens", json={"role": "organiser", "principal_id": auditor["principal_id"]},
                                   headers=bearer(ADMIN))
    assert unknown_principal.status_code == 404 and "principal_id" in unknown_principal.get_json()["errors"]

    # rotation keeps the organiser's leagues; the revoked token is a 401 everywhere at once
    people = [p for p, _ in players(pool, 2)]
    client = app.test_client()
    league = client.post("/v1/leagues", json=league_body(people), headers=bearer(organiser["token"]))
    assert league.status_code == 201, league.get_json()
    rotated = mint(games, "organiser", "Club Utrecht (new)", organiser["principal_id"])
    assert rotated["principal_id"] == organiser["principal_id"]
    revoked = games.delete(f"/v1/tokens/{organiser['id']}", headers=bearer(ADMIN))
    assert revoked.status_code == 200 and revoked.get_json()["revoked_at"]
    assert games.delete(f"/v1/tokens/{uuid.uuid4()}", headers=bearer(ADMIN)).status_code == 404
    for r in (
        client.post("/v1/leagues", json=league_body(people), headers=bearer(organiser["token"])),
        client.post(f"/v1/leagues/{league.get_json()['id']}/disputes",
                    json={"game_id": str(uuid.uuid4()), "reason": "x"}, headers=bearer(organiser["token"])),
        games.get("/v1/games/" + str(uuid.uuid4()) + "/export", headers=bearer(organiser["token"])),
    ):
        assert r.status_code == 401, r.get_json()
    assert games.delete(f"/v1/tokens/{auditor['id']}", headers=bearer(ADMIN)).status_code == 200
    assert games.get(f"/v1/games/{uuid.uuid4()}/export", headers=bearer(auditor["token"])).status_code == 401
    assert listed[0]["id"] not in [t["id"] for t in games.get("/v1/tokens", headers=bearer(ADMIN)).get_json()["items"]]
    # the new token runs the same league: a dispute about an unknown game is the league's 422, not a 403
    mine = client.post(f"/v1/leagues/{league.get_json()['id']}/disputes",
                       json={"game_id": str(uuid.uuid4()), "reason": "x"}, headers=bearer(rotated["token"]))
    assert mine.status_code == 422 and "game_id" in mine.get_json()["errors"]


def test_an_organiser_cannot_touch_another_organisers_league(
    games: FlaskClient, app: Flask, pool: Any, redis: Redis  # noqa: F811
) -> None:
    client = app.test_client()
    people = [p for p, _ in players(pool, 4)]
    anna, bram = mint(games, "organiser", "Anna"), mint(games, "organiser", "Bram")
    made = client.post("/v1/leagues", json=league_body(people), headers=bearer(anna["token"]))
    assert made.status_code == 201, made.get_json()
    league_id = made.get_json()["id"]
    created = client.get(f"/v1/leagues/{league_id}/events").get_json()["events"][0]
    assert created["type"] == "LeagueCreated" and created["payload"]["created_by"] == anna["principal_id"]
    pump(pool, redis)
    league = client.get(f"/v1/leagues/{league_id}").get_json()
    game_id = league["schedule"][0]["tables"][0]["game_id"]
    dispute = {"game_id": game_id, "reason": "a die rolled off the table"}

    # every league command (every write operation under /v1/leagues/{league_id}, also ones added later)
    commands = [(m, p, op) for m, p, op in write_operations(client) if p.startswith("/v1/leagues/{league_id}")]
    assert len(commands) >= 2
    for method, path, op in commands:
        url = concrete(path, op, {"league_id": league_id})
        for body in ({}, dispute):
            r = client.open(url, method=method.upper(), json=body, headers=bearer(bram["token"]))
            assert r.status_code == 403, (method, path, r.get_json())
            assert r.get_json()["code"] == "not_organiser"
            assert client.open(url, method=method.upper(), json=body).status_code == 401
    assert client.post("/v1/leagues", json=league_body(people), headers=bearer(bram["token"])).status_code == 201
    # the organiser is no player and no admin elsewhere
    assert games.post("/v1/games", json={"game_type": "diceduel", "num_players": 2},
                      headers=bearer(anna["token"])).status_code == 403
    assert client.post("/v1/matching/tick", headers=bearer(anna["token"])).status_code == 403

    # Anna runs her own league: she flags the game once it has a result and rules on it
    table = league["schedule"][0]["tables"][0]
    deliver(redis, finished(game_id, table["seats"], [1, 2]))
    flagged = client.post(f"/v1/leagues/{league_id}/disputes", json=dispute, headers=bearer(anna["token"]))
    assert flagged.status_code == 201, flagged.get_json()
    ruling = f"/v1/leagues/{league_id}/disputes/{flagged.get_json()['dispute_id']}/ruling"
    assert client.post(ruling, json={"ruling": "void"}, headers=bearer(bram["token"])).status_code == 403
    ruled = client.post(ruling, json={"ruling": "result_stands"}, headers=bearer(anna["token"]))
    assert ruled.status_code == 200 and ruled.get_json()["ruling"] == "result_stands"


def test_a_player_files_a_dispute_about_their_own_game_only(
    app: Flask, pool: Any, redis: Redis  # noqa: F811
) -> None:
    client = app.test_client()
    people = players(pool, 4)
    tokens = dict(people)
    made = client.post("/v1/leagues", json=league_body([p for p, _ in people]), headers=bearer(ADMIN))
    assert made.status_code == 201, made.get_json()
    league_id = made.get_json()["id"]
    pump(pool, redis)
    mine, theirs = client.get(f"/v1/leagues/{league_id}").get_json()["schedule"][0]["tables"]
    for table in (mine, theirs):
        deliver(redis, finished(table["game_id"], table["seats"], [1, 2]))
    me = mine["seats"][1]

    other = client.post(f"/v1/leagues/{league_id}/disputes", json={"game_id": theirs["game_id"], "reason": "odd"},
                        headers=bearer(tokens[me]))
    assert other.status_code == 403 and other.get_json()["code"] == "not_your_game"
    filed = client.post(f"/v1/leagues/{league_id}/disputes",
                        json={"game_id": mine["game_id"], "reason": "my opponent's dice looked loaded"},
                        headers=bearer(tokens[me]))
    assert filed.status_code == 201, filed.get_json()
    events = client.get(f"/v1/leagues/{league_id}/events").get_json()["events"]
    assert events[-1]["type"] == "DisputeOpened" and events[-1]["payload"]["filed_by"] == me
    ruling = f"/v1/leagues/{league_id}/disputes/{filed.get_json()['dispute_id']}/ruling"
    assert client.post(ruling, json={"ruling": "void"}, headers=bearer(tokens[me])).status_code == 403
    assert client.post("/v1/leagues", json=league_body([p for p, _ in people]),
                       headers=bearer(tokens[me])).status_code == 403


@pytest.fixture
def every_service(env: dict[str, str], games: FlaskClient) -> Iterator[dict[str, FlaskClient]]:  # noqa: F811
    from services.matchmaking.bootstrap import create_app as matchmaking_app
    from services.questions.bootstrap import create_app as questions_app
    from services.questions.config import RoutingConfig
    from services.ratings.bootstrap import create_app as ratings_app

    apps = [matchmaking_app(settings(env)), questions_app(settings(env), RoutingConfig()), ratings_app(settings(env))]
    yield {"games": games, **{name: a.test_client() for name, a in zip(("matchmaking", "questions", "ratings"),
                                                                     apps, strict=True)}}
    for a in apps:
        close_app(a)


def test_an_auditor_reads_every_export_and_audit_and_gets_403_on_every_write(
    every_service: dict[str, FlaskClient], pool: Any  # noqa: F811
) -> None:
    games = every_service["games"]
    auditor = mint(games, "auditor", "arbiter")
    (a, ta), (b, _), (_, outsider) = players(pool, 3)
    made = games.post("/v1/games", json={"game_type": "diceduel", "seats": [a, b]}, headers=bearer(ADMIN))
    assert made.status_code == 201, made.get_json()
    game_id = made.get_json()["id"]
    assert games.get(f"/v1/games/{game_id}/export", headers=bearer(auditor["token"])).status_code == 409  # running
    assert games.post(f"/v1/games/{game_id}/abort", json={"reason": "test"}, headers=bearer(ADMIN)).status_code == 200

    export = games.get(f"/v1/games/{game_id}/export", headers=bearer(auditor["token"]))
    assert export.status_code == 200, export.get_json()
    assert export.get_json()["game_id"] == game_id and export.get_json()["revealed_seed"]
    assert games.get(f"/v1/games/{game_id}/export", headers=bearer(outsider)).status_code == 403
    assert games.get(f"/v1/games/{game_id}/audit", headers=bearer(auditor["token"])).get_json()["ok"] is True
    view = games.get(f"/v1/games/{game_id}", headers=bearer(auditor["token"])).get_json()
    assert view["your_seat"] is None  # reads, but sits nowhere

    tried = 0
    for name, client in every_service.items():
        for method, path, op in write_operations(client):
            if op.get("x-reads-only"):
                continue  # computes an answer, changes nothing (ratings' predict)
            url = concrete(path, op, {"game_id": game_id})
            r = client.open(url, method=method.upper(), json={}, headers=bearer(auditor["token"]))
            assert r.status_code == 403, (name, method, path, r.status_code, r.get_json())
            assert r.get_json()["errors"] == {"Authorization": [r.get_json()["detail"]]}
            tried += 1
    assert tried >= 20
    assert games.get(f"/v1/games/{game_id}", headers=bearer(ta)).get_json()["status"] == "aborted"  # unchanged
    predict = every_service["ratings"].post("/v1/predict", json={"pool": "diceduel", "players": [a, b]},
                                            headers=bearer(auditor["token"]))
    assert predict.status_code in {200, 404}  # a read: no 403 (404: the pool has no games yet)
