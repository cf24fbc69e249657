"""Issue 16, "Done when": the client uses only documented public endpoints. Every request a page makes is
captured from Chromium's performance log (CDP Network events); each must be a static file of the client
(`/`, `/js/`, `/css/`, `/vendor/`, `/img/`, `/dev/`) or match a path template and method of the gateway's
combined /openapi.json. The `browsers` fixture checks this after every browser test; here the lobby
flows are walked and the URLs listed."""

from __future__ import annotations

from collections.abc import Callable

import requests

from tests.browser.pages import STATIC_PREFIXES, Browser, classify
from tests.e2e.conftest import ADMIN
from tests.support.platform import Platform


def test_the_check_tells_documented_calls_from_others(platform: Platform) -> None:
    base = platform.base
    assert classify(f"GET {base}/games/v1/games/1b2c/legal-moves", base) == (
        "api", "/games/v1/games/{game_id}/legal-moves")
    assert classify(f"POST {base}/games/v1/games/1b2c/moves", base)[0] == "api"
    assert classify(f"DELETE {base}/games/v1/games/1b2c/moves", base)[0] == "undocumented"  # wrong method
    assert classify(f"GET {base}/games/v1/secret-admin-thing", base)[0] == "undocumented"
    assert classify(f"GET {base}/games/internal/v1/x", base)[0] == "undocumented"
    assert classify("GET https://cdn.example.org/preact.mjs", base)[0] == "undocumented"  # no CDN
    assert classify(f"GET {base}/js/app.js", base) == ("static", None)
    assert classify("GET data:image/png;base64,AAAA", base)[0] == "other"
    assert all(p.startswith("/") and p.endswith("/") for p in STATIC_PREFIXES)


def test_lobby_register_create_join_and_logout_call_only_documented_endpoints(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    host, guest = browsers("host"), browsers("guest")
    host_id = host.register("gastheer")
    guest_id = guest.register("gast")
    assert host_id != guest_id
    assert host.storage("speltafel.player"), "the player is kept in localStorage"
    me = requests.get(f"{platform.base}/games/v1/players/me", timeout=10,
                      headers={"Authorization": f"Bearer {host.token}"})
    assert me.status_code == 200 and me.json()["id"] == host_id, me.text
    # a table through the create form (generated from GET /v1/game-types), joined from the guest's lobby
    game_id = host.create_game("klapper", 2, {"target": 1})
    host.take_seat_at_table(0)
    game = requests.get(f"{platform.base}/games/v1/games/{game_id}", timeout=10,
                        headers={"Authorization": f"Bearer {ADMIN}"}).json()
    assert game["game_type"] == "klapper" and game["options"]["target"] == 1
    assert game["num_players"] == 2 and game["seats"][0]["player_id"] == host_id
    free = 1
    guest.join_from_lobby(game_id, free, client_seed="gast-zaadje")
    game = requests.get(f"{platform.base}/games/v1/games/{game_id}", timeout=10,
                        headers={"Authorization": f"Bearer {ADMIN}"}).json()
    assert game["seats"][free]["player_id"] == guest_id
    for route in ("/status", f"/players/{host_id}", f"/games/{game_id}"):
        host.open(route)
        host.one("main, #app, body")
    host.one("[data-testid=logout]").click()
    host.wait(lambda: not host.storage("speltafel.token"), 10, "the token gone from localStorage")
    gone = requests.get(f"{platform.base}/games/v1/players/me", timeout=10,
                        headers={"Authorization": f"Bearer {host.token}"})
    assert gone.status_code == 401, "logging out revokes the token"
    seen = host.requested_urls() | guest.requested_urls()
    kinds = {r: classify(r, platform.base) for r in seen}
    api = sorted({t for k, t in kinds.values() if k == "api" and t})
    static = sorted({r.split(" ", 1)[1].replace(platform.base, "") for r, (k, _) in kinds.items() if k == "static"})
    print(f"\nbrowser: {len(seen)} requests, {len(api)} API templates: {api}\nstatic: {static}")
    assert any(t == "/games/v1/players" for t in api) and any(t.startswith("/games/v1/game-types") for t in api)
