"""Players over HTTP (issue 15, item 2): profiles, renaming, token rotation and revocation, and
display names next to player ids in game views, seats and lists."""

from __future__ import annotations

import psycopg
import pytest
import requests

from tests.e2e.conftest import ADMIN, Client, register
from tests.e2e.test_games_api import new_game, play_to_end

pytestmark = pytest.mark.e2e


def test_a_player_sees_their_profile_and_anyone_sees_it_by_id(games_url: str) -> None:
    anneke = register(games_url, "  Anneke  ")
    me = anneke.get("/v1/players/me")
    assert me.status_code == 200, me.text
    body = me.json()
    assert body["id"] == anneke.player_id and body["display_name"] == "Anneke"  # trimmed
    assert body["created_at"] and body["games_played"] == {} and body["games_played_total"] == 0
    public = requests.get(f"{games_url}/v1/players/{anneke.player_id}", timeout=10)
    assert public.status_code == 200 and public.json() == body


def test_games_played_are_counted_per_game_type_once_finished(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    assert clients[0].get("/v1/players/me").json()["games_played"] == {}  # running games do not count
    play_to_end(game_id, clients)
    for c in clients:
        profile = requests.get(f"{games_url}/v1/players/{c.player_id}", timeout=10).json()
        assert profile["games_played"] == {"diceduel": 1} and profile["games_played_total"] == 1


def test_unknown_player_and_missing_token_are_problems(games_url: str) -> None:
    for path in ("/v1/players/00000000-0000-4000-8000-000000000000", "/v1/players/not-a-uuid"):
        r = requests.get(games_url + path, timeout=10)
        assert r.status_code == 404 and r.headers["Content-Type"].startswith("application/problem+json")
    r = requests.get(games_url + "/v1/players/me", timeout=10)
    assert r.status_code == 401 and r.json()["errors"].get("Authorization")
    admin = Client(games_url, ADMIN)
    r = admin.get("/v1/players/me")
    assert r.status_code == 403 and "Authorization" in r.json()["errors"]


def test_rename_changes_the_name_everywhere_in_the_games_service(games_url: str, database_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    r = clients[0].http.patch(games_url + "/v1/players/me", json={"display_name": " Anneke van Dijk "}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.json()["display_name"] == "Anneke van Dijk"
    view = clients[1].get(f"/v1/games/{game_id}").json()
    assert view["seats"] == [
        {"seat": 0, "player_id": clients[0].player_id, "display_name": "Anneke van Dijk", "bot": None},
        {"seat": 1, "player_id": clients[1].player_id, "display_name": "p1", "bot": None},
    ]
    listed = clients[1].get(f"/v1/games?player={clients[0].player_id}").json()["items"][0]
    assert listed["seats"] == view["seats"]  # the list item has the detail's shape (issue 15.3)
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT queue, message FROM games.outbox WHERE message->'body'->>'player_id' = %s ORDER BY id",
            (clients[0].player_id,),
        ).fetchall()
    kinds = [(q, m["type"], m["body"]["display_name"], m["body"]["name_version"]) for q, m in rows]
    assert sorted(kinds) == sorted([
        ("ratings", "PlayerRegistered", "p0", 1), ("matchmaking", "PlayerRegistered", "p0", 1),
        ("ratings", "PlayerRenamed", "Anneke van Dijk", 2), ("matchmaking", "PlayerRenamed", "Anneke van Dijk", 2),
    ])


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 41, "tab\there", "new\nline", "bell\x07", "right\u202eleft", "lone \ud800 surrogate", 7, None],
)
def test_bad_display_names_are_422_naming_the_field_and_change_nothing(games_url: str, name: object) -> None:
    player = register(games_url, "Bram")
    r = player.http.patch(games_url + "/v1/players/me", json={"display_name": name}, timeout=10)
    assert r.status_code == 422, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert "display_name" in r.json()["errors"]
    assert player.get("/v1/players/me").json()["display_name"] == "Bram"
    r = requests.post(games_url + "/v1/players", json={"display_name": name}, timeout=10)
    assert r.status_code == 422 and "display_name" in r.json()["errors"]


def test_names_of_40_characters_and_emoji_are_fine(games_url: str) -> None:
    assert register(games_url, "y" * 40).get("/v1/players/me").json()["display_name"] == "y" * 40
    family = "Familie \U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert register(games_url, family).get("/v1/players/me").json()["display_name"] == family


def test_a_new_token_works_and_a_revoked_token_is_401_at_once_even_for_moves(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    old = clients[0]
    r = old.post("/v1/players/me/tokens")
    assert r.status_code == 201, r.text
    issued = r.json()
    assert issued["player_id"] == old.player_id and issued["token"] != old.token
    fresh = Client(games_url, issued["token"], old.player_id)
    assert fresh.get("/v1/players/me").json()["id"] == old.player_id
    assert old.get("/v1/players/me").status_code == 200  # rotation: the old one works until revoked
    game = old.get(f"/v1/games/{game_id}").json()
    assert game["your_seat"] == 0  # warms any per-process token cache on the move path

    r = old.http.delete(games_url + "/v1/players/me/tokens/current", timeout=10)
    assert r.status_code == 204, r.text
    move = old.post(f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]})
    assert move.status_code == 401 and "Authorization" in move.json()["errors"]
    for path in ("/v1/players/me", f"/v1/games/{game_id}"):
        assert old.get(path).status_code == 401
    assert old.http.delete(games_url + "/v1/players/me/tokens/current", timeout=10).status_code == 401
    assert clients[0].get(f"/v1/games/{game_id}").status_code == 401
    r = fresh.post(f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]})
    assert r.status_code == 201, r.text  # the player keeps playing with the new token


def test_openapi_documents_the_player_endpoints(games_url: str) -> None:
    paths = requests.get(games_url + "/openapi.json", timeout=10).json()["paths"]
    assert {"get", "patch"} <= set(paths["/v1/players/me"])
    assert "post" in paths["/v1/players/me/tokens"]
    assert "delete" in paths["/v1/players/me/tokens/current"]
    assert "get" in paths["/v1/players/{player_id}"]


def test_a_token_revoked_through_one_process_is_401_at_once_in_another(database_url: str, redis_url: str) -> None:
    """Two games processes (each with its own token lookup): revoking on one stops the token on the other
    at the next request, the move endpoint included."""
    from services.games.bootstrap import create_app
    from services.games.engines.registry import default_registry
    from tests.e2e.conftest import Server, settings_for

    servers = [
        Server(create_app(settings_for(database_url, redis_url), default_registry("tests.support.diceduel:DiceDuel")))
        for _ in range(2)
    ]
    try:
        one, two = (s.url for s in servers)
        game_id, clients = new_game(one, 2)
        on_two = Client(two, clients[0].token, clients[0].player_id)
        game = on_two.get(f"/v1/games/{game_id}").json()
        assert game["your_seat"] == 0
        assert clients[0].http.delete(one + "/v1/players/me/tokens/current", timeout=10).status_code == 204
        move = on_two.post(f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]})
        assert move.status_code == 401, move.text
        assert on_two.get("/v1/players/me").status_code == 401
    finally:
        for s in servers:
            s.stop()
