"""Issue 18 "Done when", in the web client: a person creates a Klapper table in the lobby, puts three
`strong` bots in the other seats from the table page, and plays the whole game against them by clicking
the legal moves their page offers. The bots run in `make run`'s bots worker, learn their turns through
the queues and play through the public API; every bot move is an ordinary MoveMade by a bot account."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import requests
from selenium.webdriver.support.ui import Select

from tests.browser.pages import Browser
from tests.browser.play import move_key
from tests.e2e.conftest import ADMIN
from tests.support.platform import Platform

GAMES = "/games/v1"


def api(base: str, path: str, token: str = ADMIN) -> Any:
    r = requests.get(f"{base}{GAMES}{path}", timeout=30, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return r.json()


def my_turn_or_end(base: str, game_id: str, after: int, timeout: float = 120) -> dict[str, Any]:
    """The game once the person (seat 0) is to move past ``after``, or it has ended: the bots move
    meanwhile (each `strong` move thinks up to BOTS_MAX_SECONDS)."""
    deadline = time.monotonic() + timeout
    while True:
        game = api(base, f"/games/{game_id}")
        if game["status"] != "running" or (game["version"] > after and 0 in game["to_move"]):
            return dict(game)
        assert time.monotonic() < deadline, (
            f"no turn for the person after version {after}: at {game['version']}, to move {game['to_move']}")
        time.sleep(0.1)


def test_a_person_plays_klapper_against_three_strong_bots_in_the_web_client(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    page = browsers("bots-person")
    person = page.register("Mieke")
    game_id = page.create_game("klapper", 4, {"target": 1})  # KL-39: one deal decides
    page.take_seat_at_table(0)
    for seat in (1, 2, 3):
        page.idle()
        Select(page.one(f'[data-testid=bot-level][data-seat="{seat}"]')).select_by_value("strong")
        page.one(f'[data-testid=add-bot][data-seat="{seat}"]').click()
        page.one(f'li[data-seat="{seat}"] [data-testid=bot-badge][data-level=strong]')
    seats = api(platform.base, f"/games/{game_id}")["seats"]
    assert seats[0]["player_id"] == person and seats[0]["bot"] is None
    assert [s["bot"] for s in seats[1:]] == [{"level": "strong"}] * 3

    rng = random.Random(18)
    clicks, game = 0, my_turn_or_end(platform.base, game_id, 0)
    while game["status"] == "running" and clicks < 200:
        shown = page.at_version(game["version"], everything=False)
        legal = api(platform.base, f"/games/{game_id}/legal-moves", str(page.token))["moves"]
        assert set(shown["moves"]) == {move_key(m) for m in legal}, "the page offers exactly the legal moves"
        page.click_move(rng.choice(sorted(shown["moves"])))
        clicks += 1
        game = my_turn_or_end(platform.base, game_id, game["version"])
    assert game["status"] == "finished", f"after {clicks} clicks: {game['status']}"
    assert clicks >= 6, "KL-6: 24 cards dealt to four seats, six each: at least six of the person's moves"

    # the page shows the API's outcome, and the bots' moves are ordinary MoveMade events by bot accounts
    ended = page.at_version(game["version"], everything=False)
    assert ended["status"] == "finished"
    page.one("[data-testid=outcome]")
    events = api(platform.base, f"/games/{game_id}/events?after=0&limit=1000")["events"]
    movers = {e["payload"]["player_id"] for e in events if e["type"] == "MoveMade"}
    assert movers == {s["player_id"] for s in seats}, "all four seats moved, each as its own player"
    assert api(platform.base, f"/games/{game_id}/audit")["ok"]
