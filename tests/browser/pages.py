"""One Chromium per player (its own profile, storage and SSE connections) and what the tests read from
the client's pages, through the DOM hooks the client documents (services/web/README.md)."""

from __future__ import annotations

import contextlib
import functools
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
from selenium import webdriver
from selenium.common.exceptions import JavascriptException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

T = TypeVar("T")
# the client's own files, served by the gateway at `/`: not API calls
STATIC_PREFIXES = ("/js/", "/css/", "/vendor/", "/img/", "/dev/")
STATIC_EXACT = ("/", "/index.html", "/favicon.ico")
HTTP_METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}

# everything a check needs from the table page, in one round trip
READ_TABLE = """
const t = document.querySelector('#table');
if (!t) return null;
const d = t.dataset;
const cards = [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card);
const moves = [...t.querySelectorAll('button[data-move]')].filter(b => !b.disabled).map(b => b.dataset.move);
const log = [...document.querySelectorAll('[data-testid=event-log] li[data-version]')].map(e => +e.dataset.version);
const outcome = [...document.querySelectorAll('[data-testid=outcome] [data-seat]')].map(e => ({
  seat: +e.dataset.seat, score: e.dataset.score, rank: +e.dataset.rank}));
const problem = document.querySelector('[data-testid=problem]');
const live = document.querySelector('[data-testid=live]');
return {game_id: d.gameId, game_type: d.gameType, version: +d.version, status: d.status, seat: d.seat,
  to_move: d.toMove, busy: d.busy, cards, moves, log, outcome,
  problem: problem ? {rule: problem.dataset.rule, status: problem.dataset.status, text: problem.textContent} : null,
  live: live ? live.dataset.state : null, text: arguments[0] ? document.body.innerText : '',
  attrs: arguments[0] ? [...document.querySelectorAll('body *')].flatMap(e => [...e.attributes].map(a => a.value))
    .filter(v => v.length < 200).join('\\n') : ''};
"""


READ_VERSION = """
const t = document.querySelector('#table');
return t ? [+t.dataset.version, t.dataset.busy] : null;
"""


class Browser:
    """A headless Chromium of Debian's, driven through Debian's chromedriver (paths given: nothing fetched)."""

    def __init__(self, name: str, base: str, chromium: str, chromedriver: str, screenshots: Path) -> None:
        self.name, self.base, self.screenshots = name, base, screenshots
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--window-size=1280,800", "--no-first-run", "--disable-extensions",
                    "--disable-background-networking", "--disable-component-update"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
        # the viewport itself 1280 x 800 (readable-at size of issue 16 item 7; the screenshots' size)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        self.requests: set[tuple[str, str]] = set()
        self.console: list[str] = []
        self.player_id: str | None = None
        self.token: str | None = None

    # --- what the page asked the network for --------------------------------------------------
    def drain(self) -> None:
        try:
            entries = self.driver.get_log("performance")
        except WebDriverException:
            return
        for entry in entries:
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                req = message["params"]["request"]
                self.requests.add((req["method"], req["url"]))

    def requested_urls(self) -> set[str]:
        self.drain()
        return {f"{m} {u}" for m, u in self.requests}

    # --- navigation ---------------------------------------------------------------------------
    def open(self, route: str = "/") -> None:
        self.driver.get(f"{self.base}/#{route}")

    def wait(self, what: Callable[[], T | None], timeout: float = 20, why: str = "") -> T:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                found = what()
                if found:
                    return found
            except (StaleElementReferenceException, JavascriptException) as exc:
                last = exc
            time.sleep(0.05)
        raise AssertionError(f"[{self.name}] waited {timeout:.0f} s for {why or what}: {last}; "
                             f"page: {self.driver.current_url}\n{self.text()[:1500]}\nconsole: {self.logs()[-10:]}")

    def css(self, selector: str) -> list[Any]:
        return list(self.driver.find_elements(By.CSS_SELECTOR, selector))

    def one(self, selector: str, timeout: float = 20) -> Any:
        return self.wait(lambda: (self.css(selector) or [None])[0], timeout, f"an element {selector}")

    def text(self) -> str:
        try:
            return str(self.driver.execute_script("return document.body ? document.body.innerText : ''"))
        except WebDriverException:
            return ""

    def logs(self) -> list[str]:
        with contextlib.suppress(WebDriverException):
            self.console += [e["message"] for e in self.driver.get_log("browser")]
        return self.console

    def storage(self, key: str) -> Any:
        raw = self.driver.execute_script("return localStorage.getItem(arguments[0])", key)
        return json.loads(raw) if raw and raw[:1] in "{[\"" else raw

    # --- the lobby ----------------------------------------------------------------------------
    def register(self, display_name: str) -> str:
        self.open("/")
        field = self.one("[data-testid=register-name]")
        field.clear()
        field.send_keys(display_name)
        self.one("[data-testid=register-submit]").click()
        me = self.one("[data-testid=me][data-player-id]")
        self.player_id = str(me.get_attribute("data-player-id"))
        self.token = self.wait(lambda: self.storage("speltafel.token"), 10, "the token in localStorage")
        if isinstance(self.token, dict):  # stored with its player
            self.token = self.token.get("token")
        return self.player_id

    def create_game(self, game_type: str, num_players: int, options: dict[str, Any]) -> str:
        """The lobby's create form (generated from the options schema); it navigates to the table."""
        self.open("/")
        Select(self.one("[data-testid=create-game-type]")).select_by_value(game_type)
        players = self.one("[data-testid=create-num-players]")
        if players.tag_name == "select":
            Select(players).select_by_value(str(num_players))
        else:
            players.clear()
            players.send_keys(str(num_players))
        for key, value in options.items():
            field = self.one(f'[name="option.{key}"]')
            if field.tag_name == "select":
                Select(field).select_by_value(str(value))
            elif field.get_attribute("type") == "checkbox":
                if field.is_selected() != bool(value):
                    field.click()
            else:
                field.clear()
                field.send_keys(str(value))
        self.one("[data-testid=create-submit]").click()
        table = self.one("#table[data-game-id]")
        return str(table.get_attribute("data-game-id"))

    def idle(self, timeout: float = 20) -> None:
        """The table page has loaded and posts nothing: its buttons are enabled (disabled while busy)."""
        self.wait(lambda: (self.driver.execute_script(READ_VERSION) or [0, "1"])[1] == "0", timeout,
                  "#table[data-busy=0]")

    def take_seat_at_table(self, seat: int) -> None:
        self.idle()
        self.one(f'#table [data-testid=join][data-seat="{seat}"], [data-testid=join][data-seat="{seat}"]').click()
        self.wait(lambda: (self.read() or {}).get("seat") == str(seat), 20, f"#table[data-seat={seat}]")

    def join_from_lobby(self, game_id: str, seat: int, client_seed: str | None = None) -> None:
        self.open("/")
        row = self.one(f'[data-testid=game-row][data-game-id="{game_id}"]', 30)
        if client_seed is not None:
            seeds = row.find_elements(By.CSS_SELECTOR, "[data-testid=client-seed]") or self.css(
                "[data-testid=client-seed]")
            seeds[0].clear()
            seeds[0].send_keys(client_seed)
        row.find_element(By.CSS_SELECTOR, f'[data-testid=join][data-seat="{seat}"]').click()
        self.one(f'#table[data-game-id="{game_id}"]')

    # --- the table ----------------------------------------------------------------------------
    def read(self, everything: bool = True) -> dict[str, Any] | None:
        """The table's hooks; with ``everything`` also the page's text and every attribute value."""
        found = self.driver.execute_script(READ_TABLE, everything)
        return dict(found) if found else None

    def at_version(self, version: int, timeout: float = 30, everything: bool = True) -> dict[str, Any]:
        """The table once it shows ``version`` and is not busy posting a move."""
        def ready() -> bool:
            seen = self.driver.execute_script(READ_VERSION)
            return bool(seen and seen[0] >= version and seen[1] == "0")
        for _ in range(3):
            self.wait(ready, timeout, f"#table[data-version>={version}][data-busy=0]")
            found = self.read(everything)
            if found and found["version"] >= version and found["busy"] == "0":
                return found
        raise AssertionError(f"[{self.name}] the table kept changing at version {version}")

    def click_move(self, key: str) -> None:
        for button in self.css("#table button[data-move]"):
            if button.get_attribute("data-move") == key:
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
                button.click()
                return
        raise AssertionError(f"[{self.name}] no button[data-move] {key}")

    def shot(self, name: str) -> Path:
        path = self.screenshots / f"{name}.png"
        self.driver.execute_script("(document.querySelector('#table, #replay') || document.body)"
                                   ".scrollIntoView({block: 'start'}); window.scrollBy(0, -8)")
        self.driver.save_screenshot(str(path))
        return path

    def offline(self, value: bool) -> None:
        """Cut (or restore) this browser's network: its live stream drops and must resume afterwards."""
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": value, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def quit(self) -> None:
        with contextlib.suppress(WebDriverException):
            self.driver.quit()


# --- "the client uses only documented public endpoints" -----------------------------------------
@functools.cache
def _templates(base: str) -> list[tuple[re.Pattern[str], frozenset[str], str]]:
    document = requests.get(base + "/openapi.json", timeout=30).json()
    found = []
    for path, item in document["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "/?$"
        found.append((re.compile(pattern), frozenset(m.upper() for m in item if m in HTTP_METHODS), path))
    return found


def classify(request: str, base: str) -> tuple[str, str | None]:
    """("static", None) | ("api", the path template) | ("undocumented", None) | ("other", None)."""
    method, url = request.split(" ", 1)
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"}:
        return "other", None  # data:, blob:, about:, chrome-extension: — nothing left the browser
    if f"{parts.scheme}://{parts.netloc}" != base:
        return "undocumented", None  # a call to another origin (a CDN...) is never allowed
    if parts.path in STATIC_EXACT or parts.path.rstrip("/") in STATIC_EXACT or parts.path.startswith(STATIC_PREFIXES):
        return "static", None
    for pattern, methods, template in _templates(base):
        if pattern.match(parts.path) and (method in methods or method == "OPTIONS"):
            return "api", template
    return "undocumented", None


def undocumented(requests_seen: set[str], base: str) -> set[str]:
    return {r for r in requests_seen if classify(r, base)[0] == "undocumented"}
