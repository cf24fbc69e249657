"""Clients of the fault tier: players over HTTP, games played to the end with retries the way a
frontend retries (same Idempotency-Key), and the figures checked in the database afterwards."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import requests
from redis import Redis
from rq.job import Job

from tests.faults.infra import ADMIN, Stack
from tests.support.jobs import failure_of

# the quickest real game to finish over HTTP: one Paardenkoppen round (PK-21), about 50 moves at 3 seats
QUICK_GAME = "paardenkoppen"
QUICK_OPTIONS = {"rounds": 1}
QUICK_SEATS = 3


class Client:
    """One player (or the admin) with its own HTTP session."""

    def __init__(self, base: str, token: str | None = None, player_id: str | None = None) -> None:
        self.base, self.token, self.player_id = base, token, player_id
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def at(self, base: str) -> Client:
        """The same identity talking to another service."""
        return Client(base, self.token, self.player_id)

    def get(self, path: str, timeout: float = 30, **kw: Any) -> requests.Response:
        return self.http.get(self.base + path, timeout=timeout, **kw)

    def post(self, path: str, json: Any = None, timeout: float = 30, **kw: Any) -> requests.Response:
        return self.http.post(self.base + path, json=json, timeout=timeout, **kw)


def admin(stack: Stack, service: str = "games") -> Client:
    return Client(stack.urls[service], ADMIN)


def register(stack: Stack, name: str) -> Client:
    r = requests.post(stack.urls["games"] + "/v1/players", json={"display_name": name}, timeout=30)
    assert r.status_code == 201, r.text
    body = r.json()
    return Client(stack.urls["games"], body["token"], body["id"])


def create_game(stack: Stack, seats: list[Client], game_type: str = QUICK_GAME,
                options: dict[str, Any] | None = None, seed: str | None = None) -> str:
    body: dict[str, Any] = {"game_type": game_type, "seats": [c.player_id for c in seats],
                            "options": QUICK_OPTIONS if options is None and game_type == QUICK_GAME else options or {}}
    if seed is not None:
        body["seed"] = seed
    r = admin(stack).post("/v1/games", body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def private_table_game(stack: Stack, seats: list[Client], timeout: float = 60) -> str:
    """A game formed by matchmaking: a private table, joined by invite code, created through the queues."""
    mm = [c.at(stack.urls["matchmaking"]) for c in seats]
    r = mm[0].post("/v1/private-tables", {"game_type": QUICK_GAME, "options": QUICK_OPTIONS,
                                          "num_players": len(seats)})
    assert r.status_code == 201, r.text
    table = r.json()
    for c in mm[1:]:
        j = c.post("/v1/private-tables/join", {"code": table["invite_code"]})
        assert j.status_code == 200, j.text
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = mm[0].get(f"/v1/private-tables/{table['id']}").json()
        if got.get("game_id"):
            return str(got["game_id"])
        time.sleep(0.2)
    raise AssertionError(f"matchmaking did not create the game of table {table['id']} in {timeout}s")


@dataclass
class Tally:
    """What clients saw, shared by their threads."""

    acked: dict[str, tuple[str, int]] = field(default_factory=dict)  # idempotency key -> (game, version)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    finished: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    unconfirmed: int = 0  # moves whose first try got no answer (or a 5xx) and never got a 201
    lock: threading.Lock = field(default_factory=threading.Lock)

    def status(self, code: int) -> None:
        with self.lock:
            self.statuses[code] += 1

    def error(self, kind: str) -> None:
        with self.lock:
            self.errors[kind] += 1

    @property
    def server_errors(self) -> int:
        return sum(n for code, n in self.statuses.items() if code >= 500 and code != 503)


def _call(tally: Tally, fn: Any, *args: Any, **kw: Any) -> requests.Response | None:
    try:
        r: requests.Response = fn(*args, timeout=10, **kw)
    except requests.RequestException as exc:
        tally.error(type(exc).__name__)
        return None
    tally.status(r.status_code)
    return r


def play_to_end(game_id: str, seats: list[Client], tally: Tally, rng: random.Random,
                deadline: float, max_moves: int = 3000) -> bool:
    """Random legal moves until the game ends; a move whose answer did not arrive (connection error,
    503) is sent again with the same Idempotency-Key, as a client would. Bounded by moves and time."""
    for _ in range(max_moves):
        if time.monotonic() > deadline:
            break
        r = _call(tally, seats[0].get, f"/v1/games/{game_id}")
        if r is None or r.status_code != 200:
            time.sleep(0.5)
            continue
        game = r.json()
        if game["status"] != "running":
            with tally.lock:
                tally.finished.append(game_id)
            return True
        if not game["to_move"]:
            time.sleep(0.2)  # waiting for chance or another service
            continue
        seat = rng.choice(game["to_move"])
        player = seats[seat]
        r = _call(tally, player.get, f"/v1/games/{game_id}/legal-moves")
        if r is None or r.status_code != 200:
            time.sleep(0.5)
            continue
        legal = r.json()
        if not legal["moves"]:
            continue
        move, key = rng.choice(legal["moves"]), str(uuid.uuid4())
        body = {"move": move, "expected_version": legal["version"]}
        failed_once = False
        for _attempt in range(60):
            r = _call(tally, player.post, f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": key})
            if r is not None and r.status_code < 500:
                break
            failed_once = True
            if time.monotonic() > deadline:
                break
            time.sleep(1.0)
        if failed_once and (r is None or r.status_code != 201):
            with tally.lock:
                tally.unconfirmed += 1
        if r is not None and r.status_code == 201:
            answer = r.json()
            made = [e["version"] for e in answer["events"] if e["type"] == "MoveMade"]
            with tally.lock:
                tally.acked[key] = (game_id, made[0] if made else answer["version"])
    with tally.lock:
        tally.unfinished.append(game_id)
    return False


def moves_stored(stack: Stack, tally: Tally) -> tuple[int, int]:
    """(acknowledged moves found exactly once at their version, MoveMade rows of those games)."""
    games = sorted({g for g, _ in tally.acked.values()})
    with stack.db() as conn:
        rows = conn.execute(
            "SELECT stream_id, version FROM games.events WHERE type = 'MoveMade' AND stream_id = ANY(%s)",
            (games,),
        ).fetchall()
    stored = Counter((str(s), int(v)) for s, v in rows)
    found = sum(1 for g, v in tally.acked.values() if stored[(g, v)] == 1)
    return found, len(rows)


@dataclass
class Effects:
    rated: int  # games rated once: one 'rated' row and one adjustment per seat
    rated_twice: int
    recorded: int  # matchmaking marked the table finished and consumed the GameFinished once
    detail: dict[str, Any]


def effects(stack: Stack, game_ids: list[str], seats: int, matchmade: bool = True) -> Effects:
    with stack.db() as conn:
        rated = dict(conn.execute(
            "SELECT game_id, status FROM ratings.games WHERE game_id = ANY(%s)", (game_ids,)).fetchall())
        history = Counter(str(g) for (g,) in conn.execute(
            "SELECT game_id FROM ratings.history WHERE game_id = ANY(%s)", (game_ids,)).fetchall())
        received = Counter(str(g) for (g,) in conn.execute(
            "SELECT payload->'body'->>'game_id' FROM ratings.events WHERE type = 'GameFinishedReceived'"
            " AND payload->'body'->>'game_id' = ANY(%s)", (game_ids,)).fetchall())
        messages = dict(conn.execute(
            "SELECT message->'body'->>'game_id', message->>'message_id' FROM games.outbox"
            " WHERE queue = 'matchmaking' AND message->>'type' = 'GameFinished'"
            " AND message->'body'->>'game_id' = ANY(%s)", (game_ids,)).fetchall())
        consumed = {str(m) for (m,) in conn.execute(
            "SELECT message_id FROM matchmaking.processed_messages WHERE consumer = 'matchmaking'"
            " AND message_id = ANY(%s)", (list(messages.values()),)).fetchall()}
        tables = dict(conn.execute(
            "SELECT game_id::text, status FROM matchmaking.tables WHERE game_id::text = ANY(%s)",
            (game_ids,)).fetchall())
    once = [g for g in game_ids if rated.get(g) == "rated" and history[g] == seats and received[g] == 1]
    twice = [g for g in game_ids if history[g] > seats or received[g] > 1]
    recorded = [g for g in game_ids if messages.get(g) in consumed
                and (not matchmade or tables.get(g) == "finished")]
    missing = [g for g in game_ids if g not in once or g not in recorded]
    return Effects(len(once), len(twice), len(recorded),
                   {"not_rated": [g for g in game_ids if g not in once][:5],
                    "not_recorded": [g for g in game_ids if g not in recorded][:5],
                    "where": where_are(stack, missing[:5]) if missing else {}})


def where_are(stack: Stack, game_ids: list[str]) -> dict[str, list[str]]:
    """For a post-mortem: each GameFinished outbox row of these games and its RQ job's state."""
    out: dict[str, list[str]] = {}
    redis = Redis.from_url(stack.redis.url)
    try:
        with stack.db() as conn:
            rows = conn.execute(
                "SELECT message->'body'->>'game_id', id, queue, dispatched_at, confirmed_at, attempts, resent,"
                " last_error FROM games.outbox WHERE message->>'type' = 'GameFinished'"
                " AND message->'body'->>'game_id' = ANY(%s) ORDER BY id", (game_ids,)).fetchall()
        for game, row_id, queue, dispatched, confirmed, attempts, resent, error in rows:
            job = Job.fetch_many([f"games-outbox-{row_id}"], connection=redis)[0]
            state = "missing" if job is None else (
                f"{job.get_status()} retries_left={job.retries_left} exc={failure_of(job).strip()[-160:]!r}")
            out.setdefault(str(game), []).append(
                f"{queue}: row {row_id} dispatched={dispatched} confirmed={confirmed} attempts={attempts}"
                f" resent={resent} error={error!r}; job {state}")
    except Exception as exc:  # a post-mortem never hides the assertion it explains
        out["error"] = [repr(exc)]
    finally:
        redis.close()
    return out


def wait_for_effects(stack: Stack, game_ids: list[str], seats: int, timeout: float,
                     matchmade: bool = True) -> Effects:
    """Poll (bounded) until every game is rated once and recorded once, or the time is up."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = effects(stack, game_ids, seats, matchmade)
        except Exception:  # the database may still be coming back
            got = Effects(0, 0, 0, {})
        if (got.rated == got.recorded == len(game_ids)) or time.monotonic() > deadline:
            return got
        time.sleep(1.0)


def audits(stack: Stack, game_ids: list[str]) -> tuple[int, list[str]]:
    """(games whose audit is ok, the others)."""
    boss, bad = admin(stack), []
    deadline = time.monotonic() + 60  # right after an outage a process may still be reconnecting:
    for g in game_ids:                # like any client, follow a 503's Retry-After (for a minute at most)
        r = boss.get(f"/v1/games/{g}/audit", timeout=60)
        while r.status_code == 503 and time.monotonic() < deadline:
            time.sleep(min(5.0, float(r.headers.get("Retry-After") or 1)))
            r = boss.get(f"/v1/games/{g}/audit", timeout=60)
        if r.status_code != 200:
            bad.append(f"{g}: HTTP {r.status_code} {r.text[:200]}")
        elif not r.json().get("ok"):
            failing = [(c["name"], c.get("detail", "")[:200]) for c in r.json()["checks"] if c["status"] != "pass"]
            bad.append(f"{g}: {failing}")
    return len(game_ids) - len(bad), bad
