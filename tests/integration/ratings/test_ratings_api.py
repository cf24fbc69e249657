"""The ratings HTTP API on real PostgreSQL and Redis (Flask test client)."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from services.ratings.bootstrap import create_app
from shared.config import Settings
from shared.web.closing import close_app
from tests.integration.ratings.conftest import Bus
from tests.unit.ratings.factories import every_game_type, finished, team_game

pytestmark = pytest.mark.integration


@pytest.fixture
def client(database_url: str, redis_url: str) -> Iterator[FlaskClient]:
    base = Settings.from_env()
    app = create_app(Settings(database_url, redis_url, "test-admin-token", "127.0.0.1", 0, base.ports, "WARNING"))
    yield app.test_client()
    close_app(app)


@pytest.fixture
def people(bus: Bus) -> list[str]:
    ids = [str(uuid.uuid4()) for _ in range(6)]
    for _, body in every_game_type(ids):
        bus.publish("GameFinished", body)
    bus.publish("GameFinished", team_game("klapper", ids[:4], [[0, 2], [1, 3]], [1, 2]))
    bus.publish("GameFinished", team_game("klapper", ids[:4], [[0, 1], [2, 3]], [1, 2]))
    bus.work()
    return ids


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json()
    assert body["status"] == status
    return body


def test_pools_list_the_catalogue_and_the_mapping(client: FlaskClient, people: list[str]) -> None:
    body = client.get("/v1/pools").get_json()
    pools = {p["pool"]: p for p in body["items"]}
    assert {"hoppaa/solo", "hoppaa/team", "klapper/4", "klapper/6", "paardenkoppen", "roparun",
            "cityhopper"} <= set(pools)
    assert pools["klapper/4"]["games_rated"] == 3 and pools["klapper/4"]["players_rated"] == 4
    assert pools["klapper/4"]["mode"] == "teams" and pools["roparun"]["mode"] == "free-for-all"
    # one name for the number of players, as GET /v1/game-types has it; HopPaa takes 2-4 (4 in teams)
    assert pools["hoppaa/solo"]["player_counts"] == [2, 3, 4] and pools["hoppaa/team"]["player_counts"] == [4]
    assert all("players" not in p for p in pools.values())
    assert body["ordinal"] == "mu - 3 * sigma"
    spec = client.get("/openapi.json").get_json()
    assert "hoppaa/team" in spec["paths"]["/v1/pools"]["get"]["description"]
    assert "/v1/pools/{pool}/leaderboard" in spec["paths"]
    assert "/v1/players/{player_id}/ratings/{pool}.svg" in spec["paths"]
    assert "/v1/predict" in spec["paths"]


@pytest.mark.parametrize("path", ["/v1/pools/klapper/4/leaderboard", "/v1/pools/klapper%2F4/leaderboard"])
def test_leaderboard_with_a_slash_in_the_pool(client: FlaskClient, people: list[str], path: str) -> None:
    body = client.get(path + "?limit=2&offset=1").get_json()
    assert body["pool"] == "klapper/4" and body["total"] == 4
    assert [i["position"] for i in body["items"]] == [2, 3]
    full = client.get(path).get_json()["items"]
    assert [i["ordinal"] for i in full] == sorted((i["ordinal"] for i in full), reverse=True)
    assert full[1:3] == body["items"]
    item = full[0]
    assert item["games_played"] == 3 and item["provisional"] is True
    assert item["ordinal"] == pytest.approx(item["mu"] - 3 * item["sigma"])
    only_settled = client.get(path + "?provisional=false").get_json()
    assert only_settled["total"] == 0


def test_leaderboard_errors_are_problems(client: FlaskClient) -> None:
    assert problem(client.get("/v1/pools/chess/leaderboard"), 404)["errors"] == {
        "pool": ["no pool 'chess'; GET /v1/pools lists them"]
    }
    problem(client.get("/v1/pools/Bad Name!/leaderboard"), 404)
    assert "limit" in problem(client.get("/v1/pools/roparun/leaderboard?limit=0"), 422)["errors"]
    empty = client.get("/v1/pools/roparun/leaderboard").get_json()
    assert empty["total"] == 0 and empty["items"] == []


def test_player_ratings_with_history_per_pool(client: FlaskClient, people: list[str]) -> None:
    body = client.get(f"/v1/players/{people[0]}/ratings").get_json()
    pools = {p["pool"]: p for p in body["pools"]}
    assert set(pools) == {"hoppaa/solo", "hoppaa/team", "klapper/4", "klapper/6", "paardenkoppen", "roparun",
                          "cityhopper"}
    klapper = pools["klapper/4"]
    assert klapper["games_played"] == 3 and [h["game"] for h in klapper["history"]] == [1, 2, 3]
    for earlier, later in zip(klapper["history"], klapper["history"][1:], strict=False):
        assert later["mu_before"] == earlier["mu"] and later["sigma_before"] == earlier["sigma"]
    assert klapper["history"][-1]["mu"] == klapper["mu"]
    lean = client.get(f"/v1/players/{people[0]}/ratings?history=false").get_json()
    assert "history" not in lean["pools"][0]
    assert client.get("/v1/players/nobody/ratings").get_json() == {"player_id": "nobody", "display_name": None, "bot": None, "pools": []}


def test_rating_history_chart(client: FlaskClient, people: list[str]) -> None:
    for path in (f"/v1/players/{people[0]}/ratings/klapper/4.svg", f"/v1/players/{people[0]}/ratings/klapper%2F4.svg"):
        response = client.get(path)
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"
        root = ET.fromstring(response.get_data(as_text=True))
        assert root.tag.endswith("svg")
    assert "3 games" in client.get(f"/v1/players/{people[0]}/ratings/klapper/4.svg").get_data(as_text=True)
    problem(client.get(f"/v1/players/{people[5]}/ratings/roparun.svg"), 404)
    problem(client.get(f"/v1/players/{people[0]}/ratings/nope/x.svg"), 404)


def test_predict_for_matchmaking(client: FlaskClient, people: list[str], bus: Bus) -> None:
    a, b, c, d = people[:4]
    for _ in range(3):
        bus.publish("GameFinished", finished("roparun", [a, b, c], [1, 2, 3]))
    bus.work()
    body = client.post("/v1/predict", json={"pool": "roparun", "players": [c, a, b, "newcomer"]}).get_json()
    win = [t["win_probability"] for t in body["teams"]]
    assert sum(win) == pytest.approx(1.0)
    assert win[1] == max(win) and body["teams"][1]["predicted_rank"] == 1
    assert body["teams"][3]["players"][0]["games_played"] == 0
    teams = client.post("/v1/predict", json={"pool": "klapper/4", "teams": [[a, b], [c, d]]})
    assert teams.status_code == 200 and len(teams.get_json()["teams"]) == 2
    assert 0 <= teams.get_json()["draw_probability"] <= 1


@pytest.mark.parametrize(
    ("payload", "status", "field"),
    [
        ({"pool": "roparun"}, 422, "teams"),
        ({"pool": "roparun", "players": ["a", "b"], "teams": [["a"], ["b"]]}, 422, "teams"),
        ({"pool": "roparun", "players": ["a"]}, 422, "players"),
        ({"pool": "roparun", "players": ["a", "a"]}, 422, "teams"),
        ({"pool": "roparun", "teams": [["a"], []]}, 422, "teams"),
        ({"pool": "roparun", "players": ["a", "b"], "extra": 1}, 422, "extra"),
        ({"pool": "Not a pool", "players": ["a", "b"]}, 422, "pool"),
        ({"pool": "chess", "players": ["a", "b"]}, 404, "pool"),
        ({"players": ["a", "b"]}, 422, "pool"),
    ],
)
def test_predict_rejects_malformed_tables(client: FlaskClient, payload: dict[str, Any], status: int,
                                          field: str) -> None:
    assert field in problem(client.post("/v1/predict", json=payload), status)["errors"]


def test_predict_rejects_a_body_that_is_not_json(client: FlaskClient) -> None:
    problem(client.post("/v1/predict", data="nope", content_type="application/json"), 400)


def test_the_history_and_the_chart_are_dated_by_when_each_game_finished_even_after_a_rebuild(
    client: FlaskClient, bus: Bus
) -> None:
    """Issue 15 item 9: the x axis' dates are the games' own (GameFinished's finished_at, sent by the games
    service), not when the ratings service wrote the row, which a rebuild rewrites to today."""
    ids = [str(uuid.uuid4()) for _ in range(4)]
    for day, team_ranks in ((3, [1, 2]), (14, [2, 1])):
        bus.publish("GameFinished", team_game("klapper", ids, [[0, 2], [1, 3]], team_ranks)
                    | {"finished_at": f"2025-03-{day:02d}T20:15:00+00:00"})
    bus.work()

    def dated() -> tuple[list[str], str]:
        body = client.get(f"/v1/players/{ids[0]}/ratings", query_string={"history": "true"}).get_json()
        history = next(p["history"] for p in body["pools"] if p["pool"] == "klapper/4")
        chart = client.get(f"/v1/players/{ids[0]}/ratings/klapper/4.svg").get_data(as_text=True)
        return [h["finished_at"] for h in history], chart

    finished_at, chart = dated()
    assert finished_at == ["2025-03-03T20:15:00+00:00", "2025-03-14T20:15:00+00:00"]
    assert "game 1: 3 Mar 2025" in chart and "game 2: 14 Mar 2025" in chart and "2 games" in chart
    client.application.extensions["ratings_service"].rebuild()
    assert dated()[0] == finished_at
