"""Whole games over HTTP on the test game (issue 3): every endpoint, hidden information, conflicts,
idempotency and the audit."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
import requests

from shared.messages import ROUTES
from tests.e2e.conftest import ADMIN, Client, register

pytestmark = pytest.mark.e2e


def play_to_end(game_id: str, clients: list[Client]) -> list[dict]:  # type: ignore[type-arg]
    """Everyone plays their first legal move until the game ends; returns the move answers."""
    answers = []
    for _ in range(500):
        game = clients[0].get(f"/v1/games/{game_id}").json()
        if game["status"] != "running":
            return answers
        seat = game["to_move"][0]
        player = clients[seat]
        legal = player.get(f"/v1/games/{game_id}/legal-moves").json()
        assert legal["moves"], "the player to move has legal moves"
        move = legal["moves"][0]  # always roll
        r = player.post(f"/v1/games/{game_id}/moves", {"move": move, "expected_version": legal["version"]})
        assert r.status_code == 201, r.text
        answers.append(r.json())
    raise AssertionError("game did not end")


def new_game(base: str, n: int = 2) -> tuple[str, list[Client]]:
    clients = [register(base, f"p{k}") for k in range(n)]
    r = clients[0].post(
        "/v1/games",
        {"game_type": "diceduel", "num_players": n, "seats": [clients[0].player_id] + [None] * (n - 1)},
    )
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    for c in clients[1:]:
        r = c.post(f"/v1/games/{game_id}/join", {"client_seed": f"seed-{c.player_id[:8]}"})
        assert r.status_code == 200, r.text
    return game_id, clients


def test_whole_game_through_every_endpoint(games_url: str, database_url: str) -> None:
    types = requests.get(games_url + "/v1/game-types", timeout=10).json()
    assert any(t["id"] == "diceduel" and t["moves"] for t in types)
    game_id, clients = new_game(games_url, 3)
    game = clients[1].get(f"/v1/games/{game_id}").json()
    assert game["status"] == "running" and game["your_seat"] == 1
    assert clients[0].get(f"/v1/games?player={clients[0].player_id}").json()["total"] == 1
    answers = play_to_end(game_id, clients)
    assert answers[-1]["status"] == "finished"
    final = clients[0].get(f"/v1/games/{game_id}").json()
    assert final["outcome"]["ranks"] and final["revealed_seed"]
    assert sorted(final["outcome"]["ranks"])[0] == 1
    mid = clients[0].get(f"/v1/games/{game_id}/state", params={"version": 5}).json()
    assert mid["version"] == 5
    export = clients[0].get(f"/v1/games/{game_id}/export").json()
    assert export["events"][-1]["type"] == "GameFinished" and export["revealed_seed"]
    audit = clients[0].get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"], audit
    assert clients[0].get(f"/v1/games?status=finished&player={clients[0].player_id}").json()["total"] == 1
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT queue, message FROM games.outbox WHERE message->'body'->>'game_id' = %s", (game_id,)
        ).fetchall()
    # GameFinished once to each of its consumers: ratings, leagues, and questions (no question in play any more)
    assert sorted(q for q, _ in rows) == sorted(queue for queue, _ in ROUTES["GameFinished"])
    assert {"matchmaking", "ratings"} <= {q for q, _ in rows}
    body = rows[0][1]["body"]
    assert rows[0][1]["type"] == "GameFinished" and body["outcome"] == final["outcome"]
    assert body["players"] == [c.player_id for c in clients]


def test_no_seat_sees_another_seats_hidden_bonus_until_the_end(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    full = Client(games_url, ADMIN).get(f"/v1/games/{game_id}").json()["view"]["bonus"]
    spectator = register(games_url, "watcher")
    for seat, client in enumerate(clients):
        other = 1 - seat
        view = client.get(f"/v1/games/{game_id}").json()["view"]
        assert view["bonus"][seat] == full[seat] and view["bonus"][other] is None
        log = json.dumps(client.get(f"/v1/games/{game_id}/events").json())
        chance = [
            e
            for e in client.get(f"/v1/games/{game_id}/events").json()["events"]
            if e["type"] == "ChanceResolved"
        ]
        assert chance[0]["payload"]["values"][other] is None
        assert chance[0]["payload"]["values"][seat] == full[seat]
        state = client.get(f"/v1/games/{game_id}/state", params={"version": 4}).json()
        assert state["view"]["bonus"][other] is None
        assert client.get(f"/v1/games/{game_id}/export").status_code == 409
        assert 'revealed_seed": "' not in log
    for seat, client in enumerate(clients):
        with client.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.5}, stream=True) as r:
            lines = [ln for ln in r.raw.read().decode().splitlines() if ln.startswith("data: ")]
        bonus = next(json.loads(ln[6:]) for ln in lines if '"purpose": "bonus"' in ln)
        assert bonus["payload"]["values"][1 - seat] is None and bonus["payload"]["values"][seat] == full[seat]
    spec_view = spectator.get(f"/v1/games/{game_id}").json()
    assert spec_view["view"]["bonus"] == [None, None]
    assert spectator.get(f"/v1/games/{game_id}/legal-moves").json()["moves"] == []
    # a move out of turn is refused without revealing anything
    not_to_move = clients[1 - spec_view["to_move"][0]]
    r = not_to_move.post(
        f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": spec_view["version"]}
    )
    assert r.status_code == 403 and r.headers["Content-Type"] == "application/problem+json"


def test_stream_delivers_redacted_events_and_resumes(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    play_to_end(game_id, clients)
    with clients[0].get(f"/v1/games/{game_id}/events/stream", params={"timeout": 5}, stream=True) as r:
        assert r.headers["Content-Type"].startswith("text/event-stream")
        text = r.raw.read().decode()
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids == list(range(1, len(ids) + 1)) and "event: end" in text
    with clients[0].get(
        f"/v1/games/{game_id}/events/stream",
        headers={"Last-Event-ID": "3"},
        params={"timeout": 5},
        stream=True,
    ) as r:
        resumed = [int(line[4:]) for line in r.raw.read().decode().splitlines() if line.startswith("id: ")]
    assert resumed[0] == 4


def test_live_stream_sees_a_move_made_by_another_client(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    game = clients[0].get(f"/v1/games/{game_id}").json()
    watcher = clients[1 - game["to_move"][0]]
    mover = clients[game["to_move"][0]]
    with watcher.get(
        f"/v1/games/{game_id}/events/stream", params={"timeout": 3, "after": game["version"]}, stream=True
    ) as r:
        mover.post(
            f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]}
        )
        text = r.raw.read().decode()
    assert "event: MoveMade" in text and "event: ChanceResolved" in text


def test_concurrent_conflicting_moves_one_wins_and_retry_is_idempotent(
    games_url: str, database_url: str
) -> None:
    game_id, clients = new_game(games_url, 2)
    game = clients[0].get(f"/v1/games/{game_id}").json()
    mover = clients[game["to_move"][0]]
    body = {"move": {"type": "roll"}, "expected_version": game["version"]}

    def send(k: int) -> int:
        return mover.post(
            f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": f"k{k}"}
        ).status_code

    with ThreadPoolExecutor(6) as ex:
        codes = list(ex.map(send, range(6)))
    assert codes.count(201) == 1 and codes.count(409) == 5
    after = clients[0].get(f"/v1/games/{game_id}").json()["version"]
    winner = codes.index(201)
    again = mover.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": f"k{winner}"})
    assert again.status_code == 201
    assert clients[0].get(f"/v1/games/{game_id}").json()["version"] == after  # nothing written
    with psycopg.connect(database_url) as conn:
        versions = [
            r[0]
            for r in conn.execute(
                "SELECT version FROM games.events WHERE stream_id=%s ORDER BY version", (game_id,)
            )
        ]
    assert versions == list(range(1, after + 1))


def test_audit_fails_naming_the_event_for_tampering(games_url: str, database_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    play_to_end(game_id, clients)
    admin = Client(games_url, ADMIN)
    assert admin.get(f"/v1/games/{game_id}/audit").json()["ok"]
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE games.events SET payload = jsonb_set(payload, '{values}', "
            "jsonb_build_array(7 - (payload->'values'->>0)::int)) "  # another face, whatever was rolled
            "WHERE stream_id=%s AND version = (SELECT min(version) FROM games.events WHERE stream_id=%s AND type='ChanceResolved' AND payload->>'purpose'='roll')",
            (game_id, game_id),
        )
    audit = admin.get(f"/v1/games/{game_id}/audit").json()
    chain = next(c for c in audit["checks"] if c["name"] == "hash_chain")
    assert not audit["ok"] and chain["status"] == "fail" and chain["first_failing_event"] is not None


def test_malformed_requests_get_problem_json(games_url: str) -> None:
    player = register(games_url, "x")
    cases = [
        player.post("/v1/games", {"game_type": "nope", "num_players": 2}),
        player.post("/v1/games", {"game_type": "diceduel"}),
        player.post("/v1/games", {"game_type": "diceduel", "num_players": 2, "options": {"target": "far"}}),
        player.post("/v1/games", {"game_type": "diceduel", "num_players": 2, "seed": "00" * 32}),
        player.post("/v1/games", "not json"),
        player.get("/v1/games/not-a-uuid"),
        player.post(
            "/v1/games/" + "0" * 8 + "-0000-0000-0000-" + "0" * 12 + "/moves",
            {"move": {}, "expected_version": 0},
        ),
        player.get("/v1/games?limit=0"),
        requests.post(games_url + "/v1/players", json={"display_name": ""}, timeout=5),
        requests.get(games_url + "/v1/games/x", headers={"Authorization": "Bearer wrong"}, timeout=5),
        requests.delete(games_url + "/v1/game-types", timeout=5),
    ]
    for r in cases:
        assert 400 <= r.status_code < 500, (r.status_code, r.text)
        assert r.headers["Content-Type"] == "application/problem+json", r.text
        body = r.json()
        assert body["status"] == r.status_code and body["title"]
    assert cases[-1].headers.get("Allow")
    assert cases[2].json()["errors"]["options.target"]


def test_resign_and_abort_end_games_that_still_audit(games_url: str) -> None:
    game_id, clients = new_game(games_url, 3)
    r = clients[1].post(f"/v1/games/{game_id}/resign")
    assert r.status_code == 200, r.text
    game = r.json()
    assert game["status"] == "finished" and game["outcome"]["ranks"] == [1, 2, 1]
    assert clients[0].post(f"/v1/games/{game_id}/resign").status_code == 409
    assert clients[0].get(f"/v1/games/{game_id}/audit").json()["ok"]

    game_id, clients = new_game(games_url, 2)
    assert clients[0].post(f"/v1/games/{game_id}/abort", {"reason": "x"}).status_code == 403
    admin = Client(games_url, ADMIN)
    aborted = admin.post(f"/v1/games/{game_id}/abort", {"reason": "power cut at the club"}).json()
    assert aborted["status"] == "aborted" and aborted["revealed_seed"]
    export = clients[1].get(f"/v1/games/{game_id}/export").json()
    assert export["events"][-1]["type"] == "GameAborted"
    audit = clients[1].get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"] and {c["name"]: c["status"] for c in audit["checks"]}["seed_commitment"] == "pass"
