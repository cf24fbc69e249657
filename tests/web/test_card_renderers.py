"""The card games' renderers (HopPaa, Klapper, Paardenkoppen) keep the renderer contract in a real
Chromium: on every example table of the dev harness (services/web/static/dev/views, seat views, spectator
views and finished games from seeded self-play) every legal move has a button, every button makes a
listed move and its click posts exactly that object, every card drawn is in the reader's view (so no
hidden card can be drawn), there is a score sheet, and a spectator gets no move buttons; in Dutch and
English. The committed example tables are the engines' current views (regenerate with
``.venv/bin/python -m tests.web.make_views``)."""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.make_views import build

STATIC = Path(__file__).resolve().parents[2] / "services" / "web" / "static"
VIEWS = STATIC / "dev" / "views"
CARD_GAMES = ("hoppaa", "klapper", "paardenkoppen")


def test_the_example_tables_are_the_engines_current_views() -> None:
    built = json.loads(json.dumps(build()))
    committed = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in VIEWS.glob("*.json") if p.stem != "index"}
    assert sorted(built) == sorted(committed) == json.loads((VIEWS / "index.json").read_text(encoding="utf-8"))
    changed = [name for name in built if built[name] != committed[name]]
    assert not changed, f"regenerate with python -m tests.web.make_views: {changed}"
    for game in CARD_GAMES:
        cases = [c for c in built.values() if c["game_type"] == game]
        assert any(c["seat"] is None for c in cases), f"{game}: a spectator's table"
        assert any(c["moves"] for c in cases), f"{game}: a table with moves"
        assert any(c["view"].get("phase") in {"game_over", "finished"} for c in cases), f"{game}: a finished game"


@pytest.fixture(scope="module")
def harness() -> Iterator[str]:
    if not (STATIC / "vendor" / "preact.mjs").is_file():
        pytest.fail("static/vendor is missing: run make web")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(STATIC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *args: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/dev/renderers.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=webdriver.ChromeService(chromedriver), options=options)
    try:
        yield browser
    finally:
        browser.quit()


def drawn(driver: Any, url: str) -> None:
    driver.get(url)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if driver.execute_script("return document.body.dataset.ready") == "1":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the harness did not finish drawing: {driver.execute_script('return document.body.innerText')[:500]}")


def checked(driver: Any, url: str) -> dict[str, Any]:
    drawn(driver, url)
    result: dict[str, Any] = json.loads(driver.execute_script("return document.body.dataset.check"))
    return result


@pytest.mark.parametrize("lang", ["nl", "en"])
@pytest.mark.parametrize("width", [1280, 390])
def test_every_example_table_keeps_the_renderer_contract(driver: Any, harness: str, lang: str, width: int) -> None:
    driver.set_window_size(width, 844)
    result = checked(driver, f"{harness}?check=1&lang={lang}")
    names = json.loads((VIEWS / "index.json").read_text(encoding="utf-8"))
    assert sorted(result) == sorted(names)
    problems = {name: r["problems"] for name, r in result.items() if r["problems"]}
    assert not problems, problems
    for name in names:
        case = json.loads((VIEWS / f"{name}.json").read_text(encoding="utf-8"))
        assert result[name]["moves"] == len({json.dumps(m, sort_keys=True) for m in case["moves"]})
        assert result[name]["buttons"] >= result[name]["moves"], name
        hand = case["view"].get("hand") or []
        assert result[name]["cards"] >= len(hand), f"{name}: the reader's whole hand is drawn"
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
    assert not errors, errors
    overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
    assert not overflow, f"the tables are wider than a {width} px window"


def test_a_click_on_a_card_posts_its_move(driver: Any, harness: str) -> None:
    driver.set_window_size(1280, 800)
    for name in ("hoppaa-mid-trick", "klapper-mid-trick", "paardenkoppen-mid-round"):
        case = json.loads((VIEWS / f"{name}.json").read_text(encoding="utf-8"))
        drawn(driver, f"{harness}?view={name}")
        move = next(m for m in case["moves"] if m["type"] == "play_card")
        button = driver.find_element("css selector", f'[data-testid=hand] button[data-card="{move["card"]}"][data-move]')
        button.click()
        deadline = time.monotonic() + 5
        while (acted := driver.find_element("css selector", "[data-testid=acted]").text).startswith("act: "):
            assert time.monotonic() < deadline, f"{name}: the click acted nothing"
            time.sleep(0.05)
        assert json.loads(acted.removeprefix("act(").removesuffix(")")) == move, name
