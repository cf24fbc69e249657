"""The ROPARUN and CityHopper renderers keep the renderer contract in a real Chromium, on every sample
view of the boards harness (services/web/static/dev/boards.html; seat views, spectators and finished
games from seeded self-play, plus views saved from a real stack): every listed move has exactly one
button and its click posts exactly that move, no button makes an unlisted move, a spectator gets no
move controls, every card drawn is one the view shows (ROPARUN: the reader's own hand, the last play,
the dealer draws), the score sheet has a row per seat with the outcome's score once there is a winner,
the road-distance field posts the typed km, pointing at a ROPARUN play marks its pawn, and nothing is
wider than the window; in Dutch and English at 1280 and 390 px. The in-page checks are dev/check.js.
The sample views are the engines' current views (regenerate: ``python -m tests.web.make_board_views``)."""

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

from tests.web.make_board_views import OUT, board_svg, build

STATIC = Path(__file__).resolve().parents[2] / "services" / "web" / "static"


def test_the_sample_views_are_the_engines_current_views() -> None:
    built = json.loads(json.dumps(build()))
    committed = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in OUT.glob("*.json")
                 if p.name != "index.json" and not p.name.startswith("live-")}
    assert sorted(built) == sorted(committed), "regenerate with python -m tests.web.make_board_views"
    changed = [name for name in built if built[name] != committed[name]]
    assert not changed, f"regenerate with python -m tests.web.make_board_views: {changed}"
    index = json.loads((OUT / "index.json").read_text(encoding="utf-8"))
    assert sorted(index) == sorted([*built, *(p.name for p in OUT.glob("live-*.json"))])
    assert (OUT / "cityhopper-map.svg").read_text(encoding="utf-8") == board_svg()
    for game in ("roparun", "cityhopper"):
        cases = [c for name, c in built.items() if name.startswith(game)]
        assert any(c["seat"] is None for c in cases), f"{game}: a spectator's view"
        assert any(c["view"].get("winner") is not None for c in cases), f"{game}: a finished game"
    phases = {c["view"]["phase"] for name, c in built.items() if name.startswith("cityhopper")}
    assert {"START_ROLL", "AWAIT_ROLL", "MOVE", "QUESTION", "PURCHASE", "CHANCE", "GAME_OVER"} <= phases


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def harness() -> Iterator[str]:
    if not (STATIC / "vendor" / "preact.mjs").is_file():
        pytest.fail("services/web/static/vendor is missing: run make web")
    handler = functools.partial(Quiet, directory=str(STATIC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/dev/boards.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.mark.parametrize("lang", ["nl", "en"])
@pytest.mark.parametrize("width", [1280, 390])
def test_every_sample_view_keeps_the_renderer_contract(browser: Any, harness: str, width: int, lang: str) -> None:
    browser.set_window_size(width, 844)
    browser.get(f"{harness}?check=1&lang={lang}")
    deadline = time.monotonic() + 120
    while browser.execute_script("return document.body.dataset.ready") != "1":
        assert time.monotonic() < deadline, browser.execute_script("return document.body.innerText")[:500]
        time.sleep(0.2)
    result = json.loads(browser.find_element("id", "check-result").text)
    index = json.loads((OUT / "index.json").read_text(encoding="utf-8"))
    assert result["views"] == len(index)
    assert result["failed"] == 0, result["results"]
    listed = sum(len({json.dumps(m, sort_keys=True) for m in json.loads((OUT / n).read_text())["moves"]}) for n in index)
    assert result["moves"] == listed
    assert any("typed km posted" in line for line in result["results"]), "a distance question was answered by typing"
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
    assert not errors, errors
