"""Issue 17 (league operations) in the web client: an organiser opens the league page, gives their
token (kept in the tab), records a forfeit for a table whose game is running, voids another table and
withdraws a player; in a league with a clock, re-seats an aborted table without the clock. The page shows the tables forfeited and void, the games service aborts both games
through the queues (GameAbortRequested), and the league records each command with the organiser's reason."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
from selenium.webdriver.support.ui import Select

from tests.browser.pages import Browser
from tests.e2e.conftest import ADMIN
from tests.support.platform import Platform


def call(base: str, method: str, path: str, body: Any = None, token: str | None = ADMIN) -> Any:
    r = requests.request(method, f"{base}{path}", json=body, timeout=30,
                         headers={"Authorization": f"Bearer {token}"} if token else {})
    assert r.status_code in {200, 201}, (path, r.status_code, r.text[:300])
    return r.json()


def eventually(what: Callable[[], Any], timeout: float, why: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, why
        time.sleep(0.2)


def test_an_organiser_forfeits_a_table_and_withdraws_a_player_from_the_league_page(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    base = platform.base
    players = [call(base, "POST", "/games/v1/players", {"display_name": f"Lid {k}"}, token=None)["id"]
               for k in range(4)]
    league = call(base, "POST", "/matchmaking/v1/leagues", {
        "name": "Wintercompetitie", "game_type": "klapper", "participants": players, "rounds": 2,
        "table_sizes": [2], "format": "swiss", "rules": {"forfeit": "win", "withdrawal": "not_paired"}})
    league_id = league["id"]

    def round_one() -> list[dict[str, Any]]:
        tables = call(base, "GET", f"/matchmaking/v1/leagues/{league_id}")["schedule"][0]["tables"]
        return tables if all(t["game_id"] for t in tables) else []

    tables = eventually(round_one, 60, "round 1's games are created through the queue")
    first, second = tables[0], tables[1]

    page = browsers("organiser")
    page.open(f"/leagues/{league_id}")
    page.one("[data-testid=organiser-token]").send_keys(ADMIN)
    page.one("[data-testid=organiser-reason]").send_keys("kwam niet opdagen")
    row = page.one('[data-testid=league-table][data-round="1"][data-table="1"]')
    Select(row.find_element("css selector", "[data-testid=forfeit-absent]")).select_by_value(first["seats"][0])
    row.find_element("css selector", "[data-testid=record-forfeit]").click()
    page.one("[data-testid=organiser-done]")
    page.wait(lambda: page.one('[data-testid=league-table][data-round="1"][data-table="1"]')
              .get_attribute("data-status") == "forfeited", 20, "the table shows forfeited")

    # the forfeited table's running game is aborted by the games service, through the queues
    def aborted() -> Any:
        game = call(base, "GET", f"/games/v1/games/{first['game_id']}")
        return game if game["status"] == "aborted" else None

    eventually(aborted, 60, "the forfeited table's game is aborted")
    events = call(base, "GET", f"/games/v1/games/{first['game_id']}/events?after=0&limit=1000")["events"]
    assert "forfeit recorded (kwam niet opdagen)" in events[-1]["payload"]["reason"]

    # the second table cannot be played: the organiser voids it (TableVoided, scored by void_table)
    page.one('[data-testid=league-table][data-round="1"][data-table="2"] [data-testid=void-table]').click()
    page.wait(lambda: page.one('[data-testid=league-table][data-round="1"][data-table="2"]')
              .get_attribute("data-status") == "void", 20, "the table shows void")

    def second_aborted() -> Any:
        game = call(base, "GET", f"/games/v1/games/{second['game_id']}")
        return game if game["status"] == "aborted" else None

    eventually(second_aborted, 60, "the voided table's running game is aborted")

    leaving = second["seats"][1]
    page.one(f'[data-testid=withdraw][data-player-id="{leaving}"]').click()
    page.wait(lambda: not page.css(f'[data-testid=withdraw][data-player-id="{leaving}"]'), 20,
              "the withdrawn player has no withdraw button any more")
    recorded = call(base, "GET", f"/matchmaking/v1/leagues/{league_id}")
    assert [w["player_id"] for w in recorded["withdrawals"]] == [leaving]
    assert recorded["withdrawals"][0]["reason"] == "kwam niet opdagen"
    forfeit, voided = recorded["schedule"][0]["tables"][:2]
    assert forfeit["status"] == "forfeited" and forfeit["absent"] == [first["seats"][0]]
    assert voided["status"] == "void" and voided["void_reason"] == "kwam niet opdagen"
    assert page.one("[data-testid=round-results-json]").get_attribute("href").endswith(
        f"/v1/leagues/{league_id}/rounds/1/results?format=json")


def test_an_organiser_reseats_an_aborted_clocked_table_without_its_clock(
        platform: Platform, browsers: Callable[[str], Browser]) -> None:
    """A league with a clock; its one table's game is aborted (the admin, through the games service; the
    league hears it through the queue). The organiser's page offers a re-seat without the clock; the new
    game is created without one, where the first had the league's, and the table then offers no such
    button any more (it has no clock to take away)."""
    base = platform.base
    players = [call(base, "POST", "/games/v1/players", {"display_name": f"Speler {k}"}, token=None)["id"]
               for k in range(2)]
    clock = {"kind": "per_move", "seconds": 600}
    league = call(base, "POST", "/matchmaking/v1/leagues", {
        "name": "Klokcompetitie", "game_type": "klapper", "participants": players, "rounds": 1,
        "table_sizes": [2], "format": "swiss", "clock": clock})
    league_id = league["id"]

    def table() -> dict[str, Any]:
        tables = call(base, "GET", f"/matchmaking/v1/leagues/{league_id}")["schedule"][0]["tables"]
        return next(t for t in tables if t["status"] != "replaced")

    first = eventually(lambda: (t := table())["game_id"] and t, 60, "the table's game is created")
    assert call(base, "GET", f"/games/v1/games/{first['game_id']}")["clock"]["seconds"] == 600
    call(base, "POST", f"/games/v1/games/{first['game_id']}/abort", {"reason": "de server viel uit"})
    eventually(lambda: table()["status"] == "aborted", 60, "the league hears of the abort through the queue")

    page = browsers("organiser")
    page.open(f"/leagues/{league_id}")
    page.one("[data-testid=organiser-token]").send_keys(ADMIN)
    page.one("[data-testid=organiser-reason]").send_keys("slechte verbinding")
    row = '[data-testid=league-table][data-round="1"][data-table="1"]'
    page.one(f'{row}[data-status="aborted"] [data-testid=reseat-no-clock]').click()
    page.one("[data-testid=organiser-done]")

    second = eventually(lambda: (t := table())["game_id"] and t["game_id"] != first["game_id"] and t, 60,
                        "the re-seated table's game is created through the queue")
    assert second["no_clock"] is True and second["clock"] is None and "slechte verbinding" in second["reason"]
    assert call(base, "GET", f"/games/v1/games/{second['game_id']}")["clock"] is None
    call(base, "POST", f"/games/v1/games/{second['game_id']}/abort", {"reason": "nog eens"})
    eventually(lambda: table()["status"] == "aborted", 60, "the second game's abort reaches the league")
    page.open(f"/leagues/{league_id}")
    page.one(f'{row}[data-status="aborted"] [data-testid=reseat]')
    assert not page.css(f"{row} [data-testid=reseat-no-clock]")  # no clock left to take away
