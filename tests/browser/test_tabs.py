"""Issue 16 "Done when": a person plays against other browser tabs. The tabs of one browser share its
localStorage, so a tab can play as another player of its own ("Another player in this tab": the identity
goes to that tab's sessionStorage) while the other tabs stay who they were; logging out there revokes
only that tab's token."""

from __future__ import annotations

from collections.abc import Callable

import requests

from tests.browser.pages import Browser
from tests.support.platform import Platform


def me(base: str, token: str) -> requests.Response:
    return requests.get(f"{base}/games/v1/players/me", timeout=10, headers={"Authorization": f"Bearer {token}"})


def register_here(page: Browser, name: str) -> str:
    field = page.one("[data-testid=register-name]")
    field.clear()
    field.send_keys(name)
    page.one("[data-testid=register-submit]").click()
    return str(page.one("[data-testid=me][data-player-id]").get_attribute("data-player-id"))


def shown_player(page: Browser) -> str:
    return str(page.one("[data-testid=me][data-player-id]").get_attribute("data-player-id"))


def test_two_tabs_of_one_browser_play_as_two_players(platform: Platform, browsers: Callable[[str], Browser]) -> None:
    page = browsers("two-tabs")
    anna = page.register("Anna")
    first = page.driver.current_window_handle
    page.driver.switch_to.new_window("tab")
    page.open("/")
    assert shown_player(page) == anna, "a new tab starts as the browser's player"
    page.one("[data-testid=another-player]").click()
    bram = register_here(page, "Bram")
    assert bram != anna
    bram_token = page.driver.execute_script("return sessionStorage.getItem('speltafel.token')")
    assert bram_token and page.storage("speltafel.token") != bram_token, "Bram is kept in this tab only"
    assert me(platform.base, bram_token).json()["display_name"] == "Bram"

    page.driver.switch_to.window(first)
    page.driver.refresh()
    assert shown_player(page) == anna, "the first tab is still Anna"
    anna_token = page.storage("speltafel.token")
    assert me(platform.base, anna_token).json()["id"] == anna

    second = next(h for h in page.driver.window_handles if h != first)
    page.driver.switch_to.window(second)
    page.driver.refresh()
    assert shown_player(page) == bram, "the second tab stays Bram after a reload"
    page.one("[data-testid=logout]").click()
    page.wait(lambda: shown_player(page) == anna, 10, "the tab back to the browser's player")
    assert me(platform.base, bram_token).status_code == 401, "Bram's token is revoked"
    assert me(platform.base, anna_token).status_code == 200, "Anna's token is not"
