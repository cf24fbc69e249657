"""Playing a game by clicking: the seat to move picks one of its page's `button[data-move]` with a seeded
RNG and clicks it; after every move every page (each seat and the spectator) must show the new version
and no card the admin's full view holds that its reader may not see."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests

from services.games.domain.play import apply_move
from services.games.domain.table import Table
from services.games.engines.registry import default_registry
from tests.browser.pages import Browser
from tests.e2e.conftest import ADMIN

GAMES = "/games/v1"
SEED = "5a" * 32  # an admin-fixed server seed: the same deal every run
WORD = re.compile(r"[\w-]+")


def _as_js(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JavaScript writes 1.0 as 1
    if isinstance(value, dict):
        return {k: _as_js(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_js(v) for v in value]
    return value


def move_key(move: Any) -> str:
    """The client's moveKey: canonical JSON with sorted keys, as JSON.stringify writes it."""
    return json.dumps(_as_js(move), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def strings(node: Any) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set().union(*(strings(v) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(strings(v) for v in node)) if node else set()
    return set()


@dataclass
class Seat:
    index: int
    browser: Browser

    @property
    def token(self) -> str:
        assert self.browser.token
        return self.browser.token


@dataclass
class Match:
    """A running game, its seats' browsers and a spectator's, checked at every step."""

    base: str
    game_id: str
    seats: list[Seat]
    spectator: Browser
    rng: random.Random
    clicks: int = 0
    api_moves: int = 0
    leak_checks: int = 0
    leaks: list[str] = field(default_factory=list)
    reader_events: dict[str, tuple[int, set[str]]] = field(default_factory=dict)
    pool: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(6))  # one thread per browser
    # picks the move from the admin's game, the seat and its legal moves (else: the seeded RNG)
    policy: Callable[[dict[str, Any], int, list[dict[str, Any]]], dict[str, Any]] | None = None

    # --- the API, as admin or as a seat ---------------------------------------------------------
    def get(self, path: str, token: str = ADMIN, **params: Any) -> Any:
        r = requests.get(f"{self.base}{GAMES}/games/{self.game_id}{path}", params=params, timeout=30,
                         headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        return r.json()

    def detail(self, token: str = ADMIN) -> dict[str, Any]:
        return dict(self.get("", token))

    def settled(self, after: int = -1, timeout: float = 30) -> dict[str, Any]:
        """The admin's game once it is past ``after`` and waits for a seat (or has ended): chance and
        questions resolved by the workers."""
        deadline = time.monotonic() + timeout
        while True:
            d = self.detail()
            if d["version"] > after and (d["to_move"] or d["status"] != "running"):
                return d
            assert time.monotonic() < deadline, f"the game did not settle after version {after}: {d['status']}"
            time.sleep(0.05)

    def events(self, token: str = ADMIN) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        while True:
            page = self.get("/events", token, after=found[-1]["version"] if found else 0, limit=1000)
            items = page["events"]
            found += items
            if len(items) < 1000:
                return found

    @property
    def browsers(self) -> list[Browser]:
        return [s.browser for s in self.seats] + [self.spectator]

    def open_all(self) -> None:
        for b in self.browsers:
            b.open(f"/games/{self.game_id}")

    # --- checks at every step -----------------------------------------------------------------
    def check_pages(self, game: dict[str, Any]) -> None:
        """Every page shows ``game``'s version, and none shows a card hidden from its reader."""
        full = strings(game["view"])

        def check(reader: Browser) -> list[str]:
            page = reader.at_version(game["version"], everything=game["game_type"] != "cityhopper")
            assert page["game_id"] == self.game_id
            own = self.detail(reader.token or ADMIN)
            assert own["version"] == game["version"], "no one moves while the pages are checked"
            # what the reader may see: its view now and every event as the server redacts it for it
            hidden = full - strings(own["view"]) - self.seen_in_events(reader)
            seen = [c for c in page["cards"] if c in hidden]
            if game["game_type"] != "cityhopper":  # its map names every city: only cards are compared
                seen += sorted(hidden & set(WORD.findall(page["text"] + "\n" + page["attrs"])))
            return sorted(set(seen))

        for reader, seen in zip(self.browsers, self.pool.map(check, self.browsers), strict=True):
            self.leak_checks += 1
            if seen:
                self.leaks.append(f"v{game['version']} {reader.name}: {seen}")
        assert not self.leaks, self.leaks

    def seen_in_events(self, reader: Browser) -> set[str]:
        last, seen = self.reader_events.get(reader.name, (0, set()))
        while True:
            items = self.get("/events", reader.token or ADMIN, after=last, limit=1000)["events"]
            for item in items:
                seen |= strings(item["payload"])
                last = item["version"]
            if len(items) < 1000:
                break
        self.reader_events[reader.name] = (last, seen)
        return seen

    # --- moves --------------------------------------------------------------------------------
    def click(self, game: dict[str, Any], planned: tuple[int, Any] | None = None) -> dict[str, Any]:
        """The seat to move clicks a button of its page; returns the settled game after it."""
        seat = planned[0] if planned else self.rng.choice(sorted(game["to_move"]))
        b = self.seats[seat].browser
        page = b.at_version(game["version"], everything=False)
        legal = self.get("/legal-moves", self.seats[seat].token)
        offered, listed = set(page["moves"]), {move_key(m) for m in legal["moves"]}
        assert offered == listed, f"the page offers exactly the legal moves: extra {sorted(offered - listed)[:5]}, " \
            f"missing {sorted(listed - offered)[:5]}"
        if planned:
            key = move_key(planned[1])
        elif self.policy:
            key = move_key(self.policy(game["view"], seat, legal["moves"]))
        else:
            key = self.rng.choice(sorted(offered))
        assert key in offered, (key, sorted(offered)[:10])
        b.click_move(key)
        self.clicks += 1
        after = self.settled(game["version"])
        mine = b.at_version(after["version"], everything=False)
        assert mine["problem"] is None or not mine["problem"]["rule"], mine["problem"]
        return after

    def play_by_clicks(self, limit: int, shots: str | None = None, reconnect_at: int | None = None
                       ) -> dict[str, Any]:
        game = self.settled()
        self.check_pages(game)
        for step in range(limit):
            if game["status"] != "running":
                break
            game = self.click(game)
            if shots and step == 5:
                self.seats[0].browser.shot(f"{shots}-mid")
            if reconnect_at is not None and step == reconnect_at:
                game = self.reconnect()
            self.check_pages(game)
        return game

    def post(self, seat: int, move: Any, version: int) -> dict[str, Any]:
        r = requests.post(f"{self.base}{GAMES}/games/{self.game_id}/moves", timeout=30,
                          json={"move": move, "expected_version": version},
                          headers={"Authorization": f"Bearer {self.seats[seat].token}"})
        assert r.status_code in {200, 201}, r.text[:500]
        self.api_moves += 1
        return dict(r.json())

    # --- a position close to the end, reached through the public API -------------------------
    def plan(self, seed: str = SEED, tries: int = 8, enough: int = 400, limit: int = 3000) -> list[tuple[int, Any]]:
        """The rest of the game as the seeded self-play policy plays it, found in process: the admin's
        whole log folded into a table, chance drawn from the admin-fixed seed exactly as the server does.
        Of ``tries`` policies the shortest game is taken (the first below ``enough`` moves)."""
        registry = default_registry()
        engine = registry.get(self.detail()["game_type"])
        events = self.events()
        best: list[tuple[int, Any]] | None = None
        for _ in range(tries):
            table = Table(self.game_id)
            for event in events:
                table.apply(engine, event["type"], event["payload"])
            assert table.progress is not None
            seeds = table.seeds(bytes.fromhex(seed))
            progress, rng = table.progress, random.Random(self.rng.random())
            moves: list[tuple[int, Any]] = []
            while engine.outcome(progress.state) is None and len(moves) < min(limit, len(best or [0] * limit)):
                seat = rng.choice(sorted(engine.to_move(progress.state)))
                move = rng.choice(sorted(engine.selfplay_moves(progress.state, seat), key=move_key))
                apply_move(engine, progress, seat, move, seeds)
                moves.append((seat, move))
            if engine.outcome(progress.state) is not None and (best is None or len(moves) < len(best)):
                best = moves
            if best is not None and len(best) < enough:
                break
        assert best is not None, "a planned game ends"
        return best

    def fast_forward_then_click(self, clicks: int, shots: str | None = None) -> dict[str, Any]:
        """Play the planned game through the API (each seat with its own token) until ``clicks`` moves are
        left, then click those in the pages."""
        planned = self.plan()
        game = self.settled()
        version = game["version"]
        for seat, move in planned[:-clicks]:
            version = self.post(seat, move, version)["version"]  # no chance waits on a worker here
        game = self.settled(version - 1)
        assert game["version"] == version and planned[-clicks][0] in game["to_move"], "the server played as planned"
        self.check_pages(game)
        for step, (seat, move) in enumerate(planned[-clicks:]):
            game = self.click(game, (seat, move))
            if shots and step == min(3, clicks // 2):
                self.seats[0].browser.shot(f"{shots}-mid")
            self.check_pages(game)
        return game

    def policy_through_api(self, near_end: Callable[[dict[str, Any]], bool], limit: int = 400) -> dict[str, Any]:
        """Play by the policy through the API (each seat with its own token) until ``near_end(game)``."""
        assert self.policy is not None
        game = self.settled()
        while game["status"] == "running" and not near_end(game) and self.api_moves < limit:
            seat = self.rng.choice(sorted(game["to_move"]))
            legal = self.get("/legal-moves", self.seats[seat].token)["moves"]
            self.post(seat, self.policy(game["view"], seat, legal), game["version"])
            game = self.settled(game["version"])
        return game

    # --- reconnecting -------------------------------------------------------------------------
    def reconnect(self) -> dict[str, Any]:
        """Seat 0 reloads its page; the spectator leaves the table for the lobby (its live stream closes)
        while two moves are made through the API, then comes back: the table must go on from there."""
        self.seats[0].browser.driver.refresh()
        self.spectator.open("/")
        self.spectator.one("[data-testid=game-row], [data-testid=create-game-type]")
        game = self.settled()
        for _ in range(2):
            if game["status"] != "running":
                break
            seat = self.rng.choice(sorted(game["to_move"]))
            legal = self.get("/legal-moves", self.seats[seat].token)
            self.post(seat, self.rng.choice(legal["moves"]), game["version"])
            game = self.settled(game["version"])
        self.spectator.open(f"/games/{self.game_id}")
        self.spectator.at_version(game["version"], 60)
        self.seats[0].browser.at_version(game["version"], 60)
        return game

    def event_log_ok(self, final_version: int) -> dict[str, int]:
        """Every page's event log: versions unique and contiguous, up to the last event."""
        found = {"missing": 0, "duplicated": 0}
        for b in self.browsers:
            log = b.at_version(final_version)["log"]
            assert log, f"{b.name}: an event log is shown"
            ordered = sorted(log)
            found["duplicated"] += len(log) - len(set(log))
            found["missing"] += len(set(range(ordered[0], ordered[-1] + 1)) - set(log))
            assert ordered[-1] == final_version, (b.name, ordered[-3:], final_version)
        return found

    def outcome_matches(self) -> dict[str, Any]:
        d = self.detail()
        assert d["status"] == "finished" and d["outcome"], d["status"]
        for b in self.browsers:
            page = b.at_version(d["version"])
            shown = sorted(page["outcome"], key=lambda o: o["seat"])
            assert [o["seat"] for o in shown] == list(range(len(self.seats))), (b.name, shown)
            assert [o["rank"] for o in shown] == list(d["outcome"]["ranks"]), (b.name, shown, d["outcome"])
            assert [float(o["score"]) for o in shown] == [float(x) for x in d["outcome"]["scores"]], (b.name, shown)
        return dict(d)


def hands_of(view: dict[str, Any]) -> set[str]:
    hand = view.get("hand")
    return set(hand) if isinstance(hand, list) and all(isinstance(c, str) for c in hand) else set()


def check_replay(match: Match, reader: Browser, versions: list[int]) -> int:
    """The replay page at version N shows what GET .../state?version=N shows the same reader."""
    reader.open(f"/games/{match.game_id}/replay")
    slider = reader.one("input[type=range][data-testid=replay-slider]")
    checked = 0
    for n in versions:
        reader.driver.execute_script(
            "const s = arguments[0]; s.value = arguments[1];"
            "s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true}));",
            slider, str(n))
        reader.wait(lambda n=n: reader.css(f'#replay[data-version="{n}"]'), 20, f"#replay[data-version={n}]")
        state = match.get("/state", reader.token or ADMIN, version=n)
        shown = set(reader.driver.execute_script(
            "return [...document.querySelectorAll('#replay-table [data-card]')].map(e => e.dataset.card)"))
        allowed = strings(state.get("view"))
        assert shown <= allowed, f"v{n}: the replay shows cards the state at v{n} has not: {sorted(shown - allowed)}"
        assert hands_of(state.get("view") or {}) <= shown, f"v{n}: the replay shows the reader's hand at v{n}"
        checked += 1
    audit = reader.one("[data-testid=audit][data-ok]")
    assert audit.get_attribute("data-ok") in {"true", "1"}, audit.get_attribute("data-ok")
    commitment = reader.one("[data-testid=seed-commitment]").text
    reveal = reader.one("[data-testid=seed-reveal]").text
    d = match.detail()
    assert d["commitment"] in commitment and d["revealed_seed"] in reveal
    reader.one("[data-testid=export]")  # downloads GET .../export with the reader's token (checked: documented)
    return checked


def create_by_admin(base: str, game_type: str, seats: list[str], options: dict[str, Any],
                    seed: str = SEED) -> str:
    r = requests.post(f"{base}{GAMES}/games", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30,
                      json={"game_type": game_type, "seats": seats, "seed": seed, "options": options})
    assert r.status_code == 201, r.text[:500]
    return str(r.json()["id"])
