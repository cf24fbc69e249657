"""Issue 19 item 1: a move does not look its bearer token up before its transaction (one round trip);
the token is checked inside it instead. A token revoked through another instance (another process,
whose memory never saw the revocation) still stops moving at once: 401, nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.bootstrap import create_app as create_games_app
from services.games.engines.registry import default_registry
from tests.e2e.conftest import ADMIN, settings_for

pytestmark = pytest.mark.e2e
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")


def test_a_token_revoked_elsewhere_cannot_move(database_url: str, redis_url: str) -> None:
    one = create_games_app(settings_for(database_url, redis_url), REGISTRY).test_client()
    other = create_games_app(settings_for(database_url, redis_url), REGISTRY).test_client()
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
