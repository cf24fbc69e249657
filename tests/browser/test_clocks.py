"""Issue 17 (clocks) in the web client: the lobby's create form sets a table's clock from GET
/v1/game-types `clock`; the table page shows each seat's time left as the server gives it, counting
down the seat whose clock runs; and when `make run`'s games ticker records a TimeExpired, the page
follows it live to the end (a forfeit ranks the seat out of time last)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
from selenium.webdriver.support.ui import Select

from tests.browser.pages import Browser
from tests.e2e.conftest import ADMIN
from tests.support.platform import Platform

GAMES = "/games/v1"


def call(base: str, method: str, path: str, token: str = ADMIN, body: Any = None) -> Any:
    r = requests.request(method, f"{base}{GAMES}{path}", json=body, timeout=30,
                         headers={"Authorization": f"Bearer {token}"} if token else {})
    assert r.status_code in {200, 201}, (path, r.status_code, r.text[:300])
    return r.json()


def clocks(page: Browser) -> dict[int, dict[str, str]]:
    found = page.driver.execute_script(
        "return [...document.querySelectorAll('#table [data-testid=clock]')]"
        ".map(e => [e.dataset.seat, e.dataset.running, e.dataset.remaining, e.textContent.trim()]);")
    return {int(s): {"running": r, "remaining": rem, "text": text} for s, r, rem, text in found}


def test_a_clock_set_in_the_lobby_is_shown_per_seat_and_counts_down(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    page = browsers("clock-creator")
    page.register("Klok")
    page.open("/")
    Select(page.one("[data-testid=create-game-type]")).select_by_value("klapper")
    Select(page.one("[data-testid=create-num-players]")).select_by_value("2")
    Select(page.one("[data-testid=create-clock-kind]")).select_by_value("fischer")
    base = page.one("[data-testid=create-clock-base_seconds]")
    base.clear()
    base.send_keys("120")
    Select(page.one("[data-testid=create-clock-policy]")).select_by_value("auto_move")
    page.one("[data-testid=create-submit]").click()
    game_id = str(page.one("#table[data-game-id]").get_attribute("data-game-id"))
    game = call(platform.base, "GET", f"/games/{game_id}")
    assert game["clock"]["kind"] == "fischer" and game["clock"]["base_seconds"] == 120
    assert game["clock"]["timeout_policy"] == "auto_move"

    page.take_seat_at_table(0)
    other = call(platform.base, "POST", "/players", token="", body={"display_name": "Tegenstander"})
    call(platform.base, "POST", f"/games/{game_id}/join", token=other["token"], body={"seat": 1})
    running = call(platform.base, "GET", f"/games/{game_id}")
    assert running["status"] == "running"
    mover = running["to_move"][0]
    page.wait(lambda: clocks(page).get(mover, {}).get("running") == "1", 20, "the mover's clock runs on the page")
    shown = clocks(page)
    assert set(shown) == {0, 1}
    assert shown[1 - mover]["running"] == "0" and shown[1 - mover]["text"] == "2:00", shown
    first = shown[mover]["text"]
    page.wait(lambda: clocks(page)[mover]["text"] != first, 5, "the running clock counts down")
    assert clocks(page)[1 - mover]["text"] == "2:00", "the waiting seat's clock stands still"

    # the lobby's list shows when the mover's time runs out, the deadline GET /v1/games gives
    page.open("/")
    row = f"[data-testid=game-row][data-game-id='{game_id}'] [data-testid=row-deadline]"
    page.wait(lambda: bool(page.driver.find_elements("css selector", row)), 20, "the lobby row shows the deadline")
    listed = next(g for g in call(platform.base, "GET", "/games?status=running&limit=100")["items"] if g["id"] == game_id)
    assert page.one(row).get_attribute("data-deadline") == listed["deadline"] == call(
        platform.base, "GET", f"/games/{game_id}")["clock"]["deadline"]


def test_the_ticker_ends_a_game_whose_seat_ran_out_and_the_page_follows(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    page = browsers("clock-watcher")
    me = page.register("Traag")
    others = [call(platform.base, "POST", "/players", token="", body={"display_name": n})["id"]
              for n in ("Snel", "Vlot")]
    game = call(platform.base, "POST", "/games", body={
        "game_type": "paardenkoppen", "seats": [me, *others],
        "clock": {"kind": "per_move", "seconds": 3}, "timeout_policy": "forfeit"})
    game_id = game["id"]
    page.open(f"/games/{game_id}")
    started = call(platform.base, "GET", f"/games/{game_id}")
    assert started["status"] == "running" and started["clock"]["kind"] == "per_move"
    late = started["to_move"][0]
    began = time.monotonic()
    ended = page.wait(lambda: (page.read(everything=False) or {}).get("status") == "finished" and page.read(), 60,
                      "the page shows the game ended by the ticker")
    assert time.monotonic() - began >= 2, "not before the seat's 3 s were up"
    final = call(platform.base, "GET", f"/games/{game_id}")
    assert final["outcome"]["ranks"][late] == max(final["outcome"]["ranks"]), "the seat out of time ranks last"
    events = call(platform.base, "GET", f"/games/{game_id}/events?after=0&limit=1000")["events"]
    expired = [e for e in events if e["type"] == "TimeExpired"]
    assert len(expired) == 1 and expired[0]["payload"]["seat"] == late
    assert expired[0]["payload"]["policy"] == "forfeit"
    assert "tijd op" in ended["text"] or "ran out of time" in ended["text"], "the event log says who ran out of time"
    assert call(platform.base, "GET", f"/games/{game_id}/audit")["ok"]
