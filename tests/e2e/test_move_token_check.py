"""Issue 19 item 1: a move does not look its bearer token up before its transaction (one round trip);
the token is checked inside it instead. A token revoked through another instance (another process,
whose memory never saw the revocation) still stops moving at once: 401, nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.bootstrap import create_app as create_games_app
from services.games.engines.registry import default_registry
from tests.e2e.conftest import ADMIN, settings_for
from tests.integration.test_one_round_trip import traced

pytestmark = pytest.mark.e2e
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")


def test_a_token_revoked_elsewhere_cannot_move(database_url: str, redis_url: str, closing: Any) -> None:
    one = closing(create_games_app(settings_for(database_url, redis_url), REGISTRY)).test_client()
    other = closing(create_games_app(settings_for(database_url, redis_url), REGISTRY)).test_client()
    players = [one.post("/v1/players", json={"display_name": f"tk{k}"}).get_json() for k in range(2)]
    admin = {"Authorization": f"Bearer {ADMIN}"}
    game = one.post("/v1/games", json={"game_type": "diceduel", "seats": [p["id"] for p in players]}, headers=admin)
    game_id = game.get_json()["id"]

    def move(client: Any) -> Any:
        now = one.get(f"/v1/games/{game_id}", headers=admin).get_json()
        token = players[now["to_move"][0]]["token"]
        body = {"move": {"type": "roll"}, "expected_version": now["version"]}
        return client.post(f"/v1/games/{game_id}/moves", json=body, headers={"Authorization": f"Bearer {token}"}), token

    for _ in range(4):  # both tokens are now known to the first instance
        answer, _ = move(one)
        assert answer.status_code == 201, answer.get_data(as_text=True)
    now = one.get(f"/v1/games/{game_id}", headers=admin).get_json()
    token = players[now["to_move"][0]]["token"]
    assert other.delete("/v1/players/me/tokens/current", headers={"Authorization": f"Bearer {token}"}).status_code == 204
    refused, _ = move(one)
    assert refused.status_code == 401 and refused.headers["Content-Type"] == "application/problem+json"
    assert "Authorization" in refused.get_json()["errors"]
    assert one.get(f"/v1/games/{game_id}", headers=admin).get_json()["version"] == now["version"]  # nothing written
    with_key = one.post(
        f"/v1/games/{game_id}/moves",
        json={"move": {"type": "roll"}, "expected_version": now["version"] - 1},  # stale, and a dead token
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "dead"},
    )
    assert with_key.status_code == 401


def test_a_move_over_http_with_a_token_seen_before_is_one_round_trip(
        database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch, closing: Any) -> None:
    """The whole request, not only the service's transaction: no token look-up at the door (the
    role-token guard, the identity) before the move's one pipeline."""
    monkeypatch.setenv("DB_POOL_MAX", "1")  # the app's one pool has one connection: every query crosses it
    app = closing(create_games_app(settings_for(database_url, redis_url), REGISTRY))
    client = app.test_client()
    players = [client.post("/v1/players", json={"display_name": f"rt{k}"}).get_json() for k in range(2)]
    admin = {"Authorization": f"Bearer {ADMIN}"}
    game_id = client.post("/v1/games", json={"game_type": "diceduel", "seats": [p["id"] for p in players]},
                          headers=admin).get_json()["id"]
    pool = app.extensions["player_directory"]._pool

    def move(key: str | None = None) -> Any:
        now = client.get(f"/v1/games/{game_id}", headers=admin).get_json()
        token = players[now["to_move"][0]]["token"]
        headers = {"Authorization": f"Bearer {token}"} | ({"Idempotency-Key": key} if key else {})
        with traced(pool) as counts:
            answer = client.post(f"/v1/games/{game_id}/moves", headers=headers,
                                 json={"move": {"type": "roll"}, "expected_version": now["version"]})
            return answer, counts()

    for _ in range(2):  # each seat's token once: now seen live by this process
        answer, _ = move()
        assert answer.status_code == 201, answer.get_data(as_text=True)
    for key in (None, "k-1"):
        answer, counted = move(key)
        assert answer.status_code == 201, answer.get_data(as_text=True)
        assert counted["round_trips"] == 1 and counted["syncs"] == 1, counted
