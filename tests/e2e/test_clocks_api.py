"""Clocks over HTTP on real PostgreSQL and Redis: a clocked table is created (and a wrong clock refused
with 422 naming the field), GET /v1/game-types documents the clocks and policies, views, state at a
version and the live stream show each seat's time, a waiting player's claim is a 409 problem+json until
the clock has run out and records the timeout after, and ``speltafel games tick --once`` (the ticker
``make run`` starts) records a timeout that is due. The service's clock is injected: no sleeping."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
from jsonschema import Draft202012Validator

from services.games.bootstrap import create_app as create_games_app
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
# an injected time long past: deadlines derived from it are due for a ticker on the real clock too
T0 = datetime(2026, 1, 5, 9, 0, 0, tzinfo=UTC)
PROBLEM = "application/problem+json"


class FakeClock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def clocked(database_url: str, redis_url: str) -> Iterator[tuple[str, FakeClock]]:
    app = create_games_app(settings_for(database_url, redis_url))
    clock = FakeClock()
    app.extensions["games_service"].now = clock
    server = Server(app)
    yield server.url, clock
    server.stop()


def table(base: str, players: list[Client], clock: dict[str, Any], policy: str = "forfeit") -> dict[str, Any]:
    admin = Client(base, ADMIN)
    r = admin.post("/v1/games", json={"game_type": "klapper", "seats": [p.player_id for p in players],
                                      "clock": clock, "timeout_policy": policy})
    assert r.status_code == 201, r.text
    return r.json()


def test_game_types_document_the_clocks_and_policies(clocked: tuple[str, FakeClock]) -> None:
    base, _ = clocked
    types = {t["id"]: t for t in requests.get(base + "/v1/game-types", timeout=30).json()}
    assert types["klapper"]["clock"]["timeout_policies"] == ["forfeit", "auto_move"]
    assert types["roparun"]["clock"]["timeout_policies"] == ["forfeit"]
    assert types["cityhopper"]["clock"]["kinds"] == ["fischer", "per_move", "correspondence"]
    spec = requests.get(base + "/openapi.json", timeout=30).json()
    create = spec["components"]["schemas"]["GameCreate"]["properties"]
    assert create["clock"]["example"]["kind"] == "fischer" and "auto_move" in create["timeout_policy"]["enum"]
    assert "remaining_seconds" in spec["components"]["schemas"]["ClockSeat"]["properties"]

    # the clock's JSON Schema, per game type: what POST /v1/games takes, for other services' doors
    schema = types["roparun"]["clock"]["schema"]
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["timeout_policy"]["enum"] == ["forfeit"]  # ROPARUN: forfeit only
    assert types["klapper"]["clock"]["schema"]["properties"]["timeout_policy"] == {
        **types["klapper"]["clock"]["schema"]["properties"]["timeout_policy"], "enum": ["forfeit", "auto_move"],
        "default": "forfeit"}
    kinds = {branch["if"]["properties"]["kind"]["const"]: branch["then"]
             for branch in schema["properties"]["clock"]["allOf"]}
    assert set(kinds) == {"fischer", "per_move", "correspondence"}
    assert kinds["fischer"]["required"] == ["base_seconds"]
    increment = kinds["fischer"]["properties"]["increment_seconds"]
    assert (increment["default"], increment["minimum"], increment["maximum"], increment["x-unit"]) == (
        0, 0, 3600, "seconds")
    assert kinds["correspondence"]["properties"]["days_per_move"]["x-unit"] == "days"
    valid = Draft202012Validator(schema)
    assert valid.is_valid({"clock": {"kind": "fischer", "base_seconds": 300}, "timeout_policy": "forfeit"})
    assert not valid.is_valid({"clock": {"kind": "per_move", "seconds": 30}, "timeout_policy": "auto_move"})
    assert not valid.is_valid({"clock": {"kind": "per_move", "seconds": 30, "base_seconds": 5}})
    assert not valid.is_valid({"timeout_policy": "forfeit"})  # a policy needs a clock


def test_a_table_check_answers_what_post_games_would_make_of_a_table(clocked: tuple[str, FakeClock]) -> None:
    """POST /v1/game-types/table-checks: the same validation as POST /v1/games, for every table size at
    once, writing nothing; the one check a door cannot make from the schemas (HP-47: team needs 4)."""
    base, _ = clocked
    anyone = Client(base)
    before = Client(base, ADMIN).get("/v1/games").json()["total"]
    body = {"game_type": "hoppaa", "player_counts": [4], "options": {"mode": "team"},
            "clock": {"kind": "fischer", "base_seconds": 300}}
    r = anyone.post("/v1/game-types/table-checks", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["clock"] == {"kind": "fischer", "base_seconds": 300, "increment_seconds": 0}
    assert r.json()["timeout_policy"] == "forfeit"
    (table,) = r.json()["tables"]
    assert table["num_players"] == 4 and table["options"]["mode"] == "team" and table["options"]["max_rounds"] == 300
    wrong = anyone.post("/v1/game-types/table-checks", json={**body, "player_counts": [4, 3]})
    assert wrong.status_code == 422 and wrong.headers["Content-Type"].startswith(PROBLEM), wrong.text
    assert list(wrong.json()["errors"]) == ["options.mode"] and wrong.json()["rule"] == "HP-47"
    assert "table of 3" in wrong.json()["detail"]
    for bad, field in [({"clock": {"kind": "per_move", "seconds": 0}}, "clock.seconds"),
                       ({"game_type": "roparun", "player_counts": [2], "options": {}, "timeout_policy": "auto_move",
                         "clock": {"kind": "per_move", "seconds": 30}}, "timeout_policy"),
                       ({"player_counts": [5]}, "player_counts"), ({"game_type": "schaken"}, "game_type")]:
        r = anyone.post("/v1/game-types/table-checks", json={**body, **bad})
        assert r.status_code == 422 and field in r.json()["errors"], (bad, r.text)
    assert Client(base, ADMIN).get("/v1/games").json()["total"] == before  # nothing was created


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"clock": {"kind": "hourglass"}}, "clock.kind"),
        ({"clock": {"kind": "per_move"}}, "clock.seconds"),
        ({"clock": {"kind": "fischer", "base_seconds": 0}}, "clock.base_seconds"),
        ({"clock": {"kind": "per_move", "seconds": 30}, "timeout_policy": "nap"}, "timeout_policy"),
        ({"game_type": "roparun", "clock": {"kind": "per_move", "seconds": 30}, "timeout_policy": "auto_move"},
         "timeout_policy"),
    ],
)
def test_a_wrong_clock_is_refused_naming_the_field(clocked: tuple[str, FakeClock], body: dict[str, Any], field: str) -> None:
    base, _ = clocked
    r = Client(base, ADMIN).post("/v1/games", json={"game_type": "klapper", "num_players": 4} | body)
    assert r.status_code == 422 and r.headers["Content-Type"].startswith(PROBLEM), r.text
    assert field in r.json()["errors"], r.json()


def test_views_and_stream_show_the_time_and_a_claim_waits_for_the_deadline(clocked: tuple[str, FakeClock]) -> None:
    base, clock = clocked
    players = [register(base, f"c{k}") for k in range(4)]
    game = table(base, players, {"kind": "fischer", "base_seconds": 60, "increment_seconds": 3})
    game_id, first = game["id"], game["to_move"][0]
    mover = players[first]
    clock.at = T0 + timedelta(seconds=20)
    move = mover.get(f"/v1/games/{game_id}/legal-moves").json()["moves"][0]
    r = mover.post(f"/v1/games/{game_id}/moves", json={"move": move, "expected_version": game["version"]})
    assert r.status_code == 201, r.text
    made = next(e for e in r.json()["events"] if e["type"] == "MoveMade")
    assert made["payload"]["accepted_at"] == clock.at.isoformat(timespec="microseconds")
    view = mover.get(f"/v1/games/{game_id}").json()
    second = view["to_move"][0]
    assert view["clock"]["seats"][first]["remaining_seconds"] == 43.0  # 60 - 20 + 3
    assert view["clock"]["seats"][second]["running"] is True
    due = T0 + timedelta(seconds=20 + (43 if second == first else 60))  # Klapper may ask the bidder again
    assert view["clock"]["deadline"] == view["deadline"] == due.isoformat(timespec="microseconds")
    # a lobby sees the same deadline in the list, without opening each game
    listed = next(g for g in mover.get("/v1/games", params={"player": mover.player_id}).json()["items"]
                  if g["id"] == game_id)
    assert listed["deadline"] == view["deadline"] and set(listed) <= set(view)
    then = mover.get(f"/v1/games/{game_id}/state", params={"version": game["version"]}).json()
    assert then["clock"]["seats"][first]["remaining_seconds"] == 60.0 and then["clock"]["as_of"] == T0.isoformat(
        timespec="microseconds")

    clock.at = due - timedelta(microseconds=1)
    r = mover.post(f"/v1/games/{game_id}/timeout-claims")
    assert r.status_code == 409 and r.headers["Content-Type"].startswith(PROBLEM), r.text
    assert r.json()["code"] == "clock_running"
    clock.at = due
    r = mover.post(f"/v1/games/{game_id}/timeout-claims")
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "finished"
    outcome = r.json()["outcome"]
    losers = next(team for team in outcome["teams"] if second in team)  # the partnership loses together
    assert len(losers) == 2 and outcome["ranks"] == [2 if s in losers else 1 for s in range(4)]

    with mover.get(f"/v1/games/{game_id}/events/stream", params={"after": 0, "timeout": 30},
                   headers={"Accept": "text/event-stream"}, stream=True) as stream:
        text = stream.text
    assert "event: TimeExpired" in text and "event: clock" in text and "event: end" in text
    # the clock event carries each seat's time left (as of the timeout): the seat out of time has 0 s,
    # the first mover 60 - 20 + 3, the others their whole 60 s; no clock runs once the game has ended
    blocks = [b for b in text.split("\n\n") if "event: clock" in b.split("\n")]
    data = json.loads(next(line[len("data:"):] for line in blocks[-1].split("\n") if line.startswith("data:")))
    assert [(c["seat"], c["remaining_seconds"], c["running"]) for c in data["seats"]] == [
        (s, 0.0 if s == second else 43.0 if s == first else 60.0, False) for s in range(4)]
    assert data["kind"] == "fischer" and data["base_seconds"] == 60 and data["increment_seconds"] == 3
    assert data["version"] == mover.get(f"/v1/games/{game_id}").json()["version"] and data["deadline"] is None
    unclocked = Client(base, ADMIN).post("/v1/games", json={"game_type": "klapper", "num_players": 4}).json()
    assert unclocked["clock"] is None and unclocked["deadline"] is None
    assert mover.get(f"/v1/games/{game_id}").json()["deadline"] is None  # the game ended: no clock runs
    r = Client(base, ADMIN).post(f"/v1/games/{unclocked['id']}/timeout-claims")
    assert r.status_code == 422 and "clock" in r.json()["errors"]


def test_the_ticker_command_records_a_due_timeout(clocked: tuple[str, FakeClock], database_url: str, redis_url: str) -> None:
    base, _ = clocked
    players = [register(base, f"t{k}") for k in range(4)]
    game = table(base, players, {"kind": "per_move", "seconds": 30}, "auto_move")  # due since T0 + 30 s
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, LOG_LEVEL="WARNING")
    done = subprocess.run([sys.executable, "-m", "services.cli", "games", "tick", "--once"], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    log = Client(base, ADMIN).get(f"/v1/games/{game['id']}/events").json()["events"]
    expired = [e for e in log if e["type"] == "TimeExpired"]
    assert expired and expired[0]["payload"]["seat"] == game["to_move"][0]
    assert expired[0]["payload"]["policy"] == "auto_move"
    view = Client(base, ADMIN).get(f"/v1/games/{game['id']}").json()
    assert view["status"] == "running"  # played for, and the game goes on
    assert requests.get(base + f"/v1/games/{game['id']}/audit", timeout=30).json()["ok"]


def test_a_late_move_is_a_409_and_the_timeout_is_recorded(clocked: tuple[str, FakeClock]) -> None:
    base, clock = clocked
    players = [register(base, f"l{k}") for k in range(4)]
    game = table(base, players, {"kind": "per_move", "seconds": 30})
    mover = players[game["to_move"][0]]
    move = mover.get(f"/v1/games/{game['id']}/legal-moves").json()["moves"][0]
    clock.at = T0 + timedelta(seconds=30)
    r = mover.post(f"/v1/games/{game['id']}/moves", json={"move": move, "expected_version": game["version"]},
                   headers={"Idempotency-Key": "late-1"})
    assert r.status_code == 409 and r.headers["Content-Type"].startswith(PROBLEM), r.text
    assert r.json()["code"] == "time_expired"
    after = mover.get(f"/v1/games/{game['id']}").json()
    assert after["status"] == "finished" and after["outcome"]["ranks"][game["to_move"][0]] == 2
    types = [e["type"] for e in mover.get(f"/v1/games/{game['id']}/events").json()["events"]]
    assert types[-2:] == ["TimeExpired", "GameFinished"] and "MoveMade" not in types
