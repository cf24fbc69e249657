"""The stream gateway (issue 19, item 4): live streams on one asyncio loop with one Redis subscription,
reading each new batch once for all its viewer classes (spectators, each seat, admins) and fanning it out, with
the hidden-information rules, CORS and problem+json of the threaded endpoint.

(tests/e2e/test_live_streams.py runs every stream behaviour against both servers; these are what only
the gateway has: many viewers sharing reads and one subscription, and the ``speltafel streams`` process.)"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from redis import Redis

from services.games.adapters.notifications import channel
from services.games.bootstrap import create_app as create_games_app
from services.games.bootstrap import create_streams
from services.games.engines.registry import default_registry
from services.games.entrypoints.streams import DIRECTORY, HUB, LISTEN_BACKLOG
from services.gateway.app import create_gateway_app
from shared.errors import problem_for_status
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for
from tests.e2e.test_http_server import free_port, raw_exchange, served_games  # noqa: F401 - the fixture
from tests.e2e.test_live_streams import NDJSON, Reader
from tests.support.processes import stop_group, wait_until_healthy
from tests.support.streams import StreamServer

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
WAIT = 30.0  # seconds to wait for what must happen (never a timing assertion)


class Stack:
    def __init__(self, database_url: str, redis_url: str) -> None:
        registry = default_registry("tests.support.diceduel:DiceDuel")
        settings = settings_for(database_url, redis_url)
        self.games_app = create_games_app(settings, registry)
        self.games = Server(self.games_app)
        self.streams = StreamServer(create_streams(settings, registry))
        self.gateway = Server(create_gateway_app({"games": self.games.url}, streams=self.streams.url))
        self.url = self.gateway.url + "/games"

    def reads(self, counter: str = "speltafel_stream_reads_total") -> float:
        text = requests.get(self.streams.url + "/metrics", timeout=10).text
        return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(counter))

    def stop(self) -> None:
        for server in (self.gateway, self.streams, self.games):
            server.stop()


@pytest.fixture
def stack(database_url: str, redis_url: str) -> Iterator[Stack]:
    s = Stack(database_url, redis_url)
    yield s
    s.stop()


def items_of(reader: Reader) -> list[dict[str, Any]]:
    return [json.loads(line) for line in reader.lines if line]


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_viewers_of_every_class_get_their_own_copies_from_one_read_per_batch_and_one_subscription(
    stack: Stack, redis_url: str
) -> None:
    """DiceDuel's bonus card (DD rules, tests/support/diceduel.py) stays with its seat; a spectator who
    takes a seat while watching gets its seat's copy of the deal from then on (seats fill, never empty)."""
    seat0, later = register(stack.url, "p0"), register(stack.url, "p1")
    created = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                       "seats": [seat0.player_id, None]})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    watchers = [register(stack.url, f"w{k}") for k in range(6)]
    viewers = [seat0, seat0, later, *watchers, *(Client(stack.url) for _ in range(6)), Client(stack.url, ADMIN)]
    readers = [Reader(v, game_id, NDJSON, {"timeout": 120}) for v in viewers]
    for r in readers:
        r.start()
    for r in readers:
        assert r.opened.wait(WAIT)
    redis = Redis.from_url(redis_url)
    try:
        wait_for(lambda: dict(redis.pubsub_numsub(channel(game_id)))[channel(game_id).encode()] == 1,
                 "one subscription for every viewer of the process")
    finally:
        redis.close()
    wait_for(lambda: all(items_of(r) for r in readers), "everyone has GameCreated")

    assert later.post(f"/v1/games/{game_id}/join", {"client_seed": "s1"}).status_code == 200  # starts, deals
    version = seat0.get(f"/v1/games/{game_id}").json()["version"]
    wait_for(lambda: all(items_of(r)[-1]["version"] == version for r in readers), "the deal reaches everyone")

    before = stack.reads()
    game = seat0.get(f"/v1/games/{game_id}").json()
    mover = [seat0, later][game["to_move"][0]]
    legal = mover.get(f"/v1/games/{game_id}/legal-moves").json()
    answer = mover.post(f"/v1/games/{game_id}/moves", {"move": legal["moves"][0], "expected_version": legal["version"]})
    assert answer.status_code == 201, answer.text
    version = answer.json()["version"]
    wait_for(lambda: all(items_of(r)[-1]["version"] == version for r in readers), "the move reaches everyone")
    # one read per batch for every class (spectators, each seat, the admin): not one per viewer or class
    assert stack.reads() - before <= 4 < len(readers)

    for viewer, reader in zip(viewers, readers, strict=True):
        log = viewer.get(f"/v1/games/{game_id}/events").json()["events"]
        assert items_of(reader) == log  # exactly the viewer's own copies, every event once, in order
    bonus = lambda items: next(  # noqa: E731
        i for i in items if i["type"] == "ChanceResolved" and i["payload"].get("purpose") == "bonus")
    full = Client(stack.url, ADMIN).get(f"/v1/games/{game_id}").json()["view"]["bonus"]
    assert bonus(items_of(readers[2]))["payload"]["values"] == [None, full[1]]  # the late seat's own card
    assert bonus(items_of(readers[0]))["payload"]["values"] == [full[0], None]
    assert all(bonus(items_of(r))["payload"]["values"] == [None, None] for r in readers[3:-1])
    assert bonus(items_of(readers[-1]))["payload"]["values"] == full


def spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: list[str]) -> None:
    """``owner.name`` still does its work (the real PostgreSQL read or look-up); each call is noted."""
    real = getattr(owner, name)

    def noted(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, noted)


def test_a_viewer_joining_a_game_the_gateway_streams_costs_no_read_and_an_anonymous_one_no_token_lookup(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of browsers reconnect at once when a gateway restarts: a join to a game this process
    already has a feed for needs no read of PostgreSQL (the feed's game exists under exactly that id),
    and a viewer without a bearer token no trip to the player directory. A game it does not stream yet
    is still read first (404 for one that does not exist), and each joiner still gets its own copies."""
    hub = stack.streams.runner.app[HUB]
    calls: list[str] = []
    for name in ("events", "live_batch"):
        spy(monkeypatch, hub.service, name, calls)
    seat0, seat1 = register(stack.url, "p0"), register(stack.url, "p1")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                       "seats": [seat0.player_id, None]}).json()["id"]
    assert seat1.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    first = Reader(Client(stack.url), game_id, NDJSON, {"timeout": 120})
    first.start()
    assert first.opened.wait(WAIT)
    log = Client(stack.url).get(f"/v1/games/{game_id}/events").json()["events"]
    wait_for(lambda: items_of(first) == log, "the first viewer has the game so far")
    assert "events" in calls  # the first viewer of a game: its existence read

    calls.clear()
    lookups: list[str] = []
    spy(monkeypatch, stack.streams.runner.app[DIRECTORY], "identity_for_token", lookups)
    anonymous = [Reader(Client(stack.url), game_id, NDJSON, {"timeout": 120}) for _ in range(4)]
    for r in anonymous:
        r.start()
    for r in anonymous:
        assert r.opened.wait(WAIT)
    version = move(game_id, [seat0, seat1])
    log = Client(stack.url).get(f"/v1/games/{game_id}/events").json()["events"]
    wait_for(lambda: all(items_of(r) and items_of(r)[-1]["version"] == version for r in [first, *anonymous]),
             "the move reaches every viewer")
    assert "events" not in calls and lookups == []
    assert all(items_of(r) == log for r in anonymous)

    seated = Reader(seat0, game_id, NDJSON, {"timeout": 120})  # a token: looked up, its seat's copies
    seated.start()
    assert seated.opened.wait(WAIT)
    wait_for(lambda: items_of(seated) == seat0.get(f"/v1/games/{game_id}/events").json()["events"],
             "the seat has its own copies")
    assert lookups == ["identity_for_token"] and "events" not in calls
    upper = Reader(Client(stack.url), game_id.upper(), NDJSON, {"timeout": 120})  # another spelling: read
    upper.start()
    assert upper.opened.wait(WAIT)
    wait_for(lambda: items_of(upper) == log, "the other spelling streams the same game")
    assert calls.count("events") == 1
    missing = Client(stack.url).get(f"/v1/games/{uuid.uuid4()}/events/stream", headers=NDJSON)
    assert missing.status_code == 404 and calls.count("events") == 2


class Faulty:
    """The games service's notices with faults for the gateway to cope with, once armed: ``lose`` (the
    1-based numbers of the notices to lose) and ``bare`` (to send as the version alone, as an older
    writer or a commit too big for a notice sends it)."""

    def __init__(self, publish: Any, lose: set[int], bare: set[int]) -> None:
        self.publish, self.lose, self.bare, self.armed, self.count = publish, lose, bare, False, 0

    def __call__(self, game_id: str, version: int, rows: list[Any]) -> None:
        if self.armed:
            self.count += 1
            if self.count in self.lose:
                return
            if self.count in self.bare:
                rows = []
        self.publish(game_id, version, rows)


def move(game_id: str, seats: list[Client]) -> int:
    game = seats[0].get(f"/v1/games/{game_id}").json()
    player = seats[game["to_move"][0]]
    legal = player.get(f"/v1/games/{game_id}/legal-moves").json()
    r = player.post(f"/v1/games/{game_id}/moves", {"move": legal["moves"][0], "expected_version": legal["version"]})
    assert r.status_code == 201, r.text
    return int(r.json()["version"])


def faulty_game(stack: Stack, faulty: Faulty) -> tuple[str, list[Client], list[Client], list[Reader]]:
    """A running DiceDuel game with a reader of every class (both seats, a registered and an anonymous
    spectator, an admin) that has every event so far; then the faults are armed."""
    service = stack.games_app.extensions["games_service"]
    faulty.publish, service.publish = service.publish, faulty
    seats = [register(stack.url, f"p{k}") for k in range(2)]
    game_id = seats[0].post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                          "seats": [seats[0].player_id, None]}).json()["id"]
    assert seats[1].post(f"/v1/games/{game_id}/join", {}).status_code == 200
    viewers = [seats[0], seats[1], register(stack.url, "w"), Client(stack.url), Client(stack.url, ADMIN)]
    readers = [Reader(v, game_id, NDJSON, {"timeout": 120}) for v in viewers]
    for r in readers:
        r.start()
    for r in readers:
        assert r.opened.wait(WAIT)
    version = seats[0].get(f"/v1/games/{game_id}").json()["version"]
    wait_for(lambda: all(items_of(r) and items_of(r)[-1]["version"] == version for r in readers),
             "everyone has the start")
    faulty.armed = True
    return game_id, seats, viewers, readers


def test_a_gap_in_the_notices_or_a_notice_without_its_events_is_read_from_postgresql(
    database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The events in the notices are only a shortcut: a lost notice (the next one shows the gap) and a
    notice without its events send the gateway to PostgreSQL at once (the keep-alive read, 120 s here,
    does not come into it); each viewer still gets exactly its own copies of every event, once, in order,
    and the moves after come from their notices again."""
    monkeypatch.setenv("STREAM_KEEPALIVE_SECONDS", "120")
    stack = Stack(database_url, redis_url)
    try:
        faulty = Faulty(None, lose={1}, bare={3})
        game_id, seats, viewers, readers = faulty_game(stack, faulty)
        for k in range(4):  # lost, its gap, bare, as it should be (a race to 20 lasts longer than 2 rolls each)
            version = move(game_id, seats)
            if k == 2:
                noticed = stack.reads("speltafel_stream_notice_batches_total")
            if k != 0:
                wait_for(lambda v=version: all(items_of(r)[-1]["version"] == v for r in readers),  # type: ignore[misc]
                         "the moves reach everyone")
        assert stack.reads("speltafel_stream_notice_batches_total") > noticed  # the fourth from its notice
        for viewer, reader in zip(viewers, readers, strict=True):
            assert items_of(reader) == viewer.get(f"/v1/games/{game_id}/events").json()["events"]
    finally:
        stack.stop()


def test_a_lost_last_notice_is_found_by_the_read_every_keepalive_period(
    database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STREAM_KEEPALIVE_SECONDS", "1")
    stack = Stack(database_url, redis_url)
    try:
        faulty = Faulty(None, lose={1}, bare=set())
        game_id, seats, viewers, readers = faulty_game(stack, faulty)
        version = move(game_id, seats)  # no notice follows it
        wait_for(lambda: all(items_of(r)[-1]["version"] == version for r in readers), "the move reaches everyone")
        for viewer, reader in zip(viewers, readers, strict=True):
            assert items_of(reader) == viewer.get(f"/v1/games/{game_id}/events").json()["events"]
    finally:
        stack.stop()


def test_sse_resumes_after_last_event_id_through_the_gateway(stack: Stack) -> None:
    seat0, other = register(stack.url, "p0"), register(stack.url, "p1")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2}).json()["id"]
    assert other.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    version = seat0.get(f"/v1/games/{game_id}").json()["version"]
    with other.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.5}, stream=True,
                   headers={"Accept": "text/event-stream", "Last-Event-ID": "2"}) as r:
        text = r.raw.read().decode()
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert text.startswith("retry: 2000\n\n") and ids == list(range(3, version + 1))


def test_a_clocked_tables_sse_stream_through_the_gateway_carries_the_clock(stack: Stack) -> None:
    """Issue 17 (clocks): after each batch of events the SSE stream sends a ``clock`` event with each
    seat's time left, as the threaded endpoint does."""
    seat0, other = register(stack.url, "p0"), register(stack.url, "p1")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                       "clock": {"kind": "per_move", "seconds": 600}}).json()["id"]
    assert other.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    with other.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.5}, stream=True,
                   headers={"Accept": "text/event-stream"}) as r:
        text = r.raw.read().decode()
    clocks = [json.loads(block.split("data: ", 1)[1]) for block in text.split("\n\n") if block.startswith("event: clock")]
    assert clocks, text[-500:]
    assert clocks[-1]["kind"] == "per_move" and {s["seat"] for s in clocks[-1]["seats"]} == {0, 1}
    assert all(not block.startswith("event: clock") or "\nid: " not in block for block in text.split("\n\n"))


def test_a_stream_whose_timeout_passes_during_its_catch_up_read_still_gets_the_events_so_far(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the threaded endpoint, which reads before it looks at the clock: a short ``timeout`` (a client
    polling "what is new, then close") gets every event since ``after`` and the clock, even when the read
    takes longer than the timeout (a loaded database; here each read of the store is held 0.6 s)."""
    hub = stack.streams.runner.app[HUB]
    read = hub.service.live_batch

    def slow_read(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.6)
        return read(*args, **kwargs)

    monkeypatch.setattr(hub.service, "live_batch", slow_read)
    seat0, other = register(stack.url, "p0"), register(stack.url, "p1")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                       "clock": {"kind": "per_move", "seconds": 600}}).json()["id"]
    assert other.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    log = other.get(f"/v1/games/{game_id}/events").json()["events"]
    for media in ("text/event-stream", "application/x-ndjson"):
        with other.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.1}, stream=True,
                       headers={"Accept": media}) as r:
            text = r.raw.read().decode()
        if media == "text/event-stream":
            blocks = [b for b in text.split("\n\n") if b.startswith("id: ")]
            items = [json.loads(b.split("data: ", 1)[1]) for b in blocks]
            assert "event: clock" in text, text[-300:]
        else:
            lines = [json.loads(line) for line in text.splitlines() if line]
            items = [line for line in lines if line.get("type") != "clock"]
            assert lines[-1]["type"] == "clock", lines
        assert items == log


def test_the_gateway_forwards_at_most_its_stream_limit_and_keeps_answering_everything_else(stack: Stack) -> None:
    """Each stream the WSGI gateway forwards holds one of its threads: past ``max_streams`` a stream is a
    503 with Retry-After naming the stream gateway, other requests are still answered, and a stream that
    ends frees its place."""
    gateway = Server(create_gateway_app({"games": stack.games.url}, streams=stack.streams.url, max_streams=1))
    try:
        url = gateway.url + "/games"
        seat0 = register(url, "p0")
        game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2}).json()["id"]
        path = f"{url}/v1/games/{game_id}/events/stream"
        sse = {"Accept": "text/event-stream"}
        with requests.get(path, params={"timeout": 10}, headers=sse, stream=True, timeout=WAIT) as first:
            assert first.status_code == 200
            refused = requests.get(path, params={"timeout": 10}, headers=sse, timeout=WAIT)
            assert refused.status_code == 503 and refused.headers["Retry-After"]
            assert stack.streams.url in refused.json()["detail"]
            assert seat0.get(f"/v1/games/{game_id}").status_code == 200
            first.raw.read()  # to its end (its timeout)
        wait_for(lambda: requests.get(path, params={"timeout": 0.2}, headers=sse, timeout=WAIT).status_code == 200,
                 "the place of a stream that ended is free again")
    finally:
        gateway.stop()


def test_cors_and_problems_as_the_services_answer_them(stack: Stack) -> None:
    origin = {"Origin": "http://localhost:5173"}
    url = f"{stack.streams.url}/v1/games/00000000-0000-0000-0000-000000000000/events/stream"
    missing = requests.get(url, headers=origin, timeout=10)
    assert missing.status_code == 404 and missing.headers["Content-Type"] == "application/problem+json"
    assert missing.headers["Access-Control-Allow-Origin"] == "http://localhost:5173"
    assert missing.json()["type"].endswith("/not-found")
    preflight = requests.options(url, headers=origin | {"Access-Control-Request-Method": "GET",
                                                        "Access-Control-Request-Headers": "last-event-id"}, timeout=10)
    assert preflight.status_code == 200 and "Last-Event-ID" in preflight.headers["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Origin" not in requests.get(url, headers={"Origin": "https://evil.example"},
                                                             timeout=10).headers
    bad_token = requests.get(url, headers={"Authorization": "Bearer nope"}, timeout=10)
    assert bad_token.status_code == 401 and bad_token.json()["errors"] == {"Authorization": ["the bearer token is not valid"]}
    bad_timeout = requests.get(url, params={"timeout": "0"}, timeout=10)
    assert bad_timeout.status_code == 422 and "timeout" in bad_timeout.json()["errors"]["query"]


def test_a_stream_with_redis_down_is_a_503_with_retry_after(stack: Stack, database_url: str) -> None:
    seat0 = register(stack.url, "p0")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2}).json()["id"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nowhere = f"redis://127.0.0.1:{s.getsockname()[1]}/0"
    registry = default_registry("tests.support.diceduel:DiceDuel")
    streams = StreamServer(create_streams(settings_for(database_url, nowhere), registry))
    try:
        for accept in ("text/event-stream", "application/x-ndjson"):
            r = requests.get(f"{streams.url}/v1/games/{game_id}/events/stream", timeout=30,
                             headers={"Accept": accept, "Authorization": f"Bearer {seat0.token}"})
            assert r.status_code == 503 and r.headers["Content-Type"] == "application/problem+json", r.text
            assert int(r.headers["Retry-After"]) >= 1 and r.json()["backend"] == "Redis"
    finally:
        streams.stop()


@pytest.fixture
def diceduel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the served processes (they take their environment from this one)."""
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    monkeypatch.setenv("STREAM_KEEPALIVE_SECONDS", "0.2")


@pytest.fixture
def served_streams(database_url: str, redis_url: str, tmp_path: Path, served_games: str) -> Iterator[str]:  # noqa: F811
    """`speltafel streams` as its own process, as `make run` starts it (beside `speltafel serve games`)."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, ADMIN_TOKEN=ADMIN, STREAMS_PORT=str(port),
               SPELTAFEL_HOST="127.0.0.1", LOG_LEVEL="WARNING", STREAM_KEEPALIVE_SECONDS="0.2",
               SPELTAFEL_EXTRA_ENGINES="tests.support.diceduel:DiceDuel")
    log = (tmp_path / "streams.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "services.cli", "streams"], env=env, cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url + "/healthz", proc, 60, lambda: (tmp_path / "streams.log").read_text()[-3000:])
        yield url
    finally:
        stop_group(proc)
        log.close()


def test_the_streams_process_serves_lines_live_and_frees_a_leaving_clients_subscription(
    diceduel_env: None, served_games: str, served_streams: str, redis_url: str  # noqa: F811
) -> None:
    clients = [register(served_games, f"w{k}") for k in range(2)]
    game_id = clients[0].post("/v1/games", {"game_type": "diceduel", "num_players": 2}).json()["id"]
    redis = Redis.from_url(redis_url)
    subscribers = lambda: dict(redis.pubsub_numsub(channel(game_id)))[channel(game_id).encode()]  # noqa: E731
    try:
        with requests.get(f"{served_streams}/v1/games/{game_id}/events/stream", stream=True, timeout=30,
                          headers=NDJSON | {"Authorization": f"Bearer {clients[0].token}"}) as r:
            assert (r.status_code, r.headers.get("content-type")) == (200, "application/x-ndjson"), r.text[:500]
            r.encoding = "utf-8"
            lines = r.iter_lines(decode_unicode=True)
            assert json.loads(next(line for line in lines if line))["version"] == 1
            assert clients[1].post(f"/v1/games/{game_id}/join", {}).status_code == 200
            assert json.loads(next(line for line in lines if line))["version"] == 2  # the join, live
            assert subscribers() == 1
        wait_for(lambda: subscribers() == 0, "the stream's subscription outlived its client")
    finally:
        redis.close()


def test_the_streams_process_queues_a_reconnect_storm_instead_of_dropping_its_connections(
    diceduel_env: None, served_streams: str
) -> None:
    """When a gateway restarts, its thousands of viewers reconnect within seconds. A connection the
    listen queue has no room for is dropped by the kernel and its client retries only after 1, 3, 7 s
    (SYN retransmits): with aiohttp's default queue of 128, 2,000 viewers took 12-14 s to open in the
    benchmark (``TcpExtListenOverflows`` counted the drops). The process listens with room for
    ``LISTEN_BACKLOG`` (the kernel caps it at ``net.core.somaxconn``); ``ss`` shows a listener's room."""
    ss = shutil.which("ss")
    if ss is None:
        pytest.skip("ss (iproute2) is not installed; .ci/run installs it")
    port = served_streams.rsplit(":", 1)[1]
    line = subprocess.run([ss, "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    room = int(line.split()[2])  # State Recv-Q Send-Q ...: a listener's Send-Q is its queue's size
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())
    assert room == min(LISTEN_BACKLOG, somaxconn) > 128, line


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (b"NOT A REQUEST LINE\r\n\r\n", 400),
        (b"GET /v1/games/x/events/stream?q=" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        (b"GET /v1/games/x/events/stream HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n", 431),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400),
    ],
    ids=["bad-request-line", "url-too-long", "header-too-large", "two-content-lengths"],
)
def test_the_stream_gateways_own_refusals_are_problem_json_and_log_no_traceback(
    diceduel_env: None, served_streams: str, tmp_path: Path, payload: bytes, status: int,
) -> None:
    """aiohttp's parser refusals (not the app's): problem+json with the matching status, one log line
    each and no traceback; the limits are nginx's (16 KiB), so a request the proxy passes on passes here."""
    got, headers, body = raw_exchange(served_streams, payload)
    assert (got, headers.get("content-type")) == (status, "application/problem+json"), body[:300]
    problem = json.loads(body)
    assert (problem["status"], problem["type"].rsplit("/", 1)[1]) == (status, problem_for_status(status)), problem
    # a URL and a header just under the limits are served (the stream's own 404 / the health check)
    under, _, _ = raw_exchange(served_streams, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 16_000
                               + b"\r\nConnection: close\r\n\r\n")
    assert under == 200
    log = (tmp_path / "streams.log").read_text()
    assert "Traceback" not in log and "Error handling request" not in log, log[-2000:]
