"""Live event streams any client can read (issue 15, items 5 and 6): NDJSON besides SSE on
``/v1/games/{id}/events/stream``, both resumable, both closing right after the game's final event;
``recorded_at`` on every viewer's event items; the hidden-information rules on NDJSON too.

Every test runs against both servers of the stream (issue 19, item 4): the games service's own threaded
endpoint, and the stream gateway (``speltafel streams``: one asyncio loop, one Redis subscription) behind
the ``make run`` gateway, which routes ``/games/v1/games/<id>/events/stream`` there and the rest to games."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
import requests
from openapi_schema_validator import OAS30Validator
from redis import Redis
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from services.games.adapters.notifications import channel
from services.games.bootstrap import create_app as create_games_app
from services.games.bootstrap import create_streams
from services.games.engines.registry import default_registry
from services.gateway.app import create_gateway_app
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for
from tests.e2e.test_games_api import new_game, play_to_end
from tests.e2e.test_http_server import served_games  # noqa: F401 - the fixture
from tests.support.streams import StreamServer

pytestmark = pytest.mark.e2e

NDJSON = {"Accept": "application/x-ndjson"}
PROMPT = 5.0  # seconds: generous for a loaded machine, far below the 15 s keep-alive wait of before


SERVERS = ["threads", "stream-gateway"]


def stack(kind: str, database_url: str, redis_url: str) -> tuple[str, list[Any]]:
    """The games API's base URL with its stream served by ``kind``, and what to stop afterwards."""
    registry = default_registry("tests.support.diceduel:DiceDuel")
    settings = settings_for(database_url, redis_url)
    games = Server(create_games_app(settings, registry))
    if kind == "threads":
        return games.url, [games]
    streams = StreamServer(create_streams(settings, registry))
    gateway = Server(create_gateway_app({"games": games.url}, streams=streams.url))
    return gateway.url + "/games", [gateway, streams, games]


@pytest.fixture(params=SERVERS)
def games_url(request: pytest.FixtureRequest, database_url: str, redis_url: str) -> Iterator[str]:
    url, servers = stack(request.param, database_url, redis_url)
    yield url
    for server in servers:
        server.stop()


def ndjson_items(response: requests.Response) -> list[dict[str, Any]]:
    """Every non-empty line is one JSON object (empty lines are keep-alives)."""
    assert response.headers["Content-Type"].startswith("application/x-ndjson"), response.headers
    response.encoding = "utf-8"  # NDJSON is UTF-8
    return [json.loads(line) for line in response.iter_lines(decode_unicode=True) if line]


class Reader(threading.Thread):
    """Reads a stream in the background, noting when it closed."""

    def __init__(self, client: Client, game_id: str, headers: dict[str, str], params: dict[str, Any]) -> None:
        super().__init__(daemon=True)
        self.client, self.game_id, self.headers, self.params = client, game_id, headers, params
        self.lines: list[str] = []
        self.content_type = ""
        self.closed_at: float | None = None
        self.opened = threading.Event()

    def run(self) -> None:
        with self.client.get(
            f"/v1/games/{self.game_id}/events/stream", headers=self.headers, params=self.params, stream=True
        ) as r:
            self.content_type = r.headers.get("Content-Type", "")
            r.encoding = "utf-8"
            self.opened.set()
            for line in r.iter_lines(decode_unicode=True):
                self.lines.append(line)
        self.closed_at = time.monotonic()


def test_ndjson_stream_reads_a_whole_game_line_by_line_and_closes_after_the_final_event(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    reader = Reader(clients[0], game_id, NDJSON, {"timeout": 120})
    reader.start()
    assert reader.opened.wait(10)
    play_to_end(game_id, clients)
    last_move = time.monotonic()
    reader.join(60)
    assert not reader.is_alive() and reader.closed_at is not None
    assert reader.closed_at - last_move < PROMPT, "the stream closes right after GameFinished"
    assert reader.content_type.startswith("application/x-ndjson")
    items = [json.loads(line) for line in reader.lines if line]
    final = clients[0].get(f"/v1/games/{game_id}").json()["version"]
    assert [i["version"] for i in items] == list(range(1, final + 1))  # every event once, in order
    assert all(set(i) == {"version", "type", "payload", "recorded_at"} for i in items)
    assert items[-1]["type"] == "GameFinished" and all(i["recorded_at"] for i in items)


def test_ndjson_resume_with_after_has_no_gaps_or_duplicates_and_matches_the_log(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    play_to_end(game_id, clients)
    final = clients[0].get(f"/v1/games/{game_id}").json()["version"]
    for after in (0, 3, final - 1, final):
        started = time.monotonic()
        with clients[1].get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"after": after, "timeout": 60}, stream=True
        ) as r:
            items = ndjson_items(r)
        assert time.monotonic() - started < PROMPT, f"a finished game's stream ends at once (after={after})"
        assert [i["version"] for i in items] == list(range(after + 1, final + 1))
        log = clients[1].get(f"/v1/games/{game_id}/events", params={"after": after}).json()["events"]
        assert items == log  # the same items as GET .../events


def test_a_short_poll_of_a_running_game_gets_what_is_new_and_closes_at_its_timeout(games_url: str) -> None:
    """``timeout`` bounds a stream: a client polling "what is new since my version, then close" gets the
    events after ``after`` (none when it is up to date) and the stream closes at its timeout, not later."""
    game_id, clients = new_game(games_url, 2)
    version = clients[0].get(f"/v1/games/{game_id}").json()["version"]
    watcher = Reader(clients[0], game_id, NDJSON, {"timeout": 60})  # the polls join its open stream's feed
    watcher.start()
    assert watcher.opened.wait(10)
    deadline = time.monotonic() + 30
    while not any(line and json.loads(line).get("version") == version for line in list(watcher.lines)):
        assert time.monotonic() < deadline, "the watcher gets the game so far"
        time.sleep(0.05)
    for after in (0, version - 1, version):
        started = time.monotonic()
        with clients[1].get(f"/v1/games/{game_id}/events/stream", headers=NDJSON,
                            params={"after": after, "timeout": 0.2}, stream=True) as r:
            items = [i for i in ndjson_items(r) if i.get("type") != "clock"]
        assert time.monotonic() - started < PROMPT, f"after={after}: the stream closes at its timeout"
        assert [i["version"] for i in items] == list(range(after + 1, version + 1))
    play_to_end(game_id, clients)  # the watcher's stream ends with the game
    watcher.join(60)
    assert not watcher.is_alive()


def test_sse_end_event_arrives_promptly_after_game_finished(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    reader = Reader(clients[1], game_id, {"Accept": "text/event-stream"}, {"timeout": 120})
    reader.start()
    assert reader.opened.wait(10)
    play_to_end(game_id, clients)
    last_move = time.monotonic()
    reader.join(60)
    assert reader.closed_at is not None and reader.closed_at - last_move < PROMPT
    assert reader.content_type.startswith("text/event-stream")
    assert "event: GameFinished" in reader.lines
    assert reader.lines[-3:] == ["event: end", 'data: {"status": "finished"}', ""]
    # a finished game read from the start (default Accept */*): SSE, all events, then end at once
    started = time.monotonic()
    with clients[0].get(f"/v1/games/{game_id}/events/stream", params={"timeout": 60}, stream=True) as r:
        assert r.headers["Content-Type"].startswith("text/event-stream")
        text = r.raw.read().decode()
    assert time.monotonic() - started < PROMPT and "event: end" in text
    data = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert set(data[0]) == {"version", "type", "payload", "recorded_at"}  # `data` is the whole item


def test_seat_and_spectator_items_carry_the_admin_logs_recorded_at(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    game = clients[0].get(f"/v1/games/{game_id}").json()
    mover = clients[game["to_move"][0]]
    answer = mover.post(
        f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]}
    ).json()
    admin_log = Client(games_url, ADMIN).get(f"/v1/games/{game_id}/events").json()["events"]
    recorded = {e["version"]: e["recorded_at"] for e in admin_log}
    assert all(recorded.values())
    viewers = [*clients, register(games_url, "watcher"), Client(games_url)]
    for viewer in viewers:
        items = viewer.get(f"/v1/games/{game_id}/events").json()["events"]
        assert {i["version"]: i["recorded_at"] for i in items} == recorded
        with viewer.get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"timeout": 0.5}, stream=True
        ) as r:
            assert {i["version"]: i["recorded_at"] for i in ndjson_items(r)} == recorded
    assert [e["recorded_at"] for e in answer["events"]] == [recorded[e["version"]] for e in answer["events"]]


def test_ndjson_stream_never_shows_another_seats_bonus_while_the_game_runs(games_url: str) -> None:
    """The hidden bonus card of DiceDuel (DD rules, tests/support/diceduel.py) on NDJSON as on SSE."""
    game_id, clients = new_game(games_url, 2)
    full = Client(games_url, ADMIN).get(f"/v1/games/{game_id}").json()["view"]["bonus"]
    for seat, client in enumerate(clients):
        with client.get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"timeout": 0.5}, stream=True
        ) as r:
            items = ndjson_items(r)
        bonus = next(i for i in items if i["type"] == "ChanceResolved" and i["payload"].get("purpose") == "bonus")
        assert bonus["payload"]["values"][seat] == full[seat] and bonus["payload"]["values"][1 - seat] is None
        assert "revealed_seed" not in json.dumps(items)
    for watcher in (register(games_url, "watcher"), Client(games_url)):
        with watcher.get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"timeout": 0.5}, stream=True
        ) as r:
            items = ndjson_items(r)
        bonus = next(i for i in items if i["type"] == "ChanceResolved" and i["payload"].get("purpose") == "bonus")
        assert bonus["payload"]["values"] == [None, None]


def test_a_clocked_tables_ndjson_stream_has_a_clock_line_after_each_batch(games_url: str) -> None:
    """As the SSE stream's ``clock`` event: ``{"type": "clock", "clock": {...}}`` with each seat's time
    left after each batch of events, and no ``version`` of its own (not an event: resuming goes by the
    events' versions). Unclocked tables have none (the whole-game test above: every line is an event)."""
    seat0, other = register(games_url, "p0"), register(games_url, "p1")
    game_id = seat0.post("/v1/games", {"game_type": "diceduel", "num_players": 2,
                                       "clock": {"kind": "per_move", "seconds": 600}}).json()["id"]
    assert other.post(f"/v1/games/{game_id}/join", {}).status_code == 200
    version = seat0.get(f"/v1/games/{game_id}").json()["version"]
    with other.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.5}, stream=True, headers=NDJSON) as r:
        lines = ndjson_items(r)
    clocks = [line for line in lines if line.get("type") == "clock"]
    assert clocks and lines[-1] == clocks[-1], lines  # after the batch
    assert all(set(c) == {"type", "clock"} for c in clocks)
    assert clocks[-1]["clock"]["kind"] == "per_move" and {s["seat"] for s in clocks[-1]["clock"]["seats"]} == {0, 1}
    assert clocks[-1]["clock"]["version"] == version
    assert [line["version"] for line in lines if line not in clocks] == list(range(1, version + 1))
    # every line is exactly one of the documented lines (oneOf): an event or a clock line
    spec = requests.get(games_url + "/openapi.json", timeout=10).json()
    registry = Registry().with_resource("urn:spec", Resource.from_contents(spec, default_specification=DRAFT4))
    pointer = "/paths/~1v1~1games~1{game_id}~1events~1stream/get/responses/200/content/application~1x-ndjson/schema"
    validator = OAS30Validator({"$ref": f"urn:spec#{quote(pointer)}"}, registry=registry)
    errors = [[f"{list(e.absolute_path)}: {e.message}" for err in validator.iter_errors(line) for e in (err.context or [err])]
              for line in lines]
    assert errors == [[] for _ in lines]


def test_a_stream_accepts_only_the_media_types_it_serves(games_url: str) -> None:
    game_id, clients = new_game(games_url, 2)
    r = clients[0].get(f"/v1/games/{game_id}/events/stream", headers={"Accept": "application/xml"})
    assert r.status_code == 406 and r.headers["Content-Type"] == "application/problem+json"
    assert "application/x-ndjson" in r.json()["detail"]
    assert clients[0].get("/v1/games/00000000-0000-0000-0000-000000000000/events/stream",
                          headers=NDJSON).status_code == 404


def test_openapi_documents_both_stream_media_types(games_url: str) -> None:
    spec = requests.get(games_url + "/openapi.json", timeout=10).json()
    answer = spec["paths"]["/v1/games/{game_id}/events/stream"]["get"]["responses"]["200"]
    content = answer["content"]
    assert set(content) >= {"text/event-stream", "application/x-ndjson"}
    lines = [spec["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
             for ref in content["application/x-ndjson"]["schema"]["oneOf"]]  # an event line or a clock line
    event, clock = lines
    assert set(event["properties"]) == set(event["required"]) == {"version", "type", "payload", "recorded_at"}
    assert set(clock["properties"]) == set(clock["required"]) == {"type", "clock"}
    assert clock["properties"]["type"]["enum"] == ["clock"] and "example" in event and "example" in clock
    assert "`data`" in answer["description"] and "recorded_at" in answer["description"]


@pytest.fixture(params=SERVERS)
def quick_keepalive_url(
    request: pytest.FixtureRequest, database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    monkeypatch.setenv("STREAM_KEEPALIVE_SECONDS", "0.2")
    url, servers = stack(request.param, database_url, redis_url)
    yield url
    for server in servers:
        server.stop()


def test_ndjson_keepalives_are_empty_lines_and_a_client_leaving_ends_the_stream(
    quick_keepalive_url: str, redis_url: str
) -> None:
    game_id, clients = new_game(quick_keepalive_url, 2)
    redis = Redis.from_url(redis_url)
    try:
        with clients[0].get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"timeout": 60}, stream=True
        ) as r:
            r.encoding = "utf-8"
            lines = r.iter_lines(decode_unicode=True)
            seen: list[str] = []
            for line in lines:
                seen.append(line)
                if seen.count("") >= 2:  # two keep-alives after the events so far
                    break
                assert len(seen) < 100, seen
            assert all(json.loads(line)["version"] for line in seen if line)
            assert dict(redis.pubsub_numsub(channel(game_id)))[channel(game_id).encode()] == 1
        deadline = time.monotonic() + PROMPT
        while dict(redis.pubsub_numsub(channel(game_id)))[channel(game_id).encode()] != 0:
            assert time.monotonic() < deadline, "the stream's subscription outlived its client"
            time.sleep(0.1)
    finally:
        redis.close()


@pytest.fixture
def fast_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the served process (it takes its environment from this one)."""
    monkeypatch.setenv("STREAM_KEEPALIVE_SECONDS", "0.2")
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")


def test_ndjson_flows_through_waitress_and_a_client_leaving_frees_the_stream(
    fast_keepalive: None, served_games: str, redis_url: str  # noqa: F811 - the imported fixture
) -> None:
    """Under `speltafel serve` (waitress, one thread per open stream): lines arrive while the stream is
    open, and a client that hangs up is noticed at a keep-alive (its subscription ends)."""
    clients = [register(served_games, f"w{k}") for k in range(2)]
    created = clients[0].post("/v1/games", {"game_type": "diceduel", "num_players": 2})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    redis = Redis.from_url(redis_url)
    subscribers = lambda: dict(redis.pubsub_numsub(channel(game_id)))[channel(game_id).encode()]  # noqa: E731
    try:
        with clients[0].get(
            f"/v1/games/{game_id}/events/stream", headers=NDJSON, params={"timeout": 60}, stream=True
        ) as r:
            r.encoding = "utf-8"
            lines = r.iter_lines(decode_unicode=True)
            assert json.loads(next(line for line in lines if line))["version"] == 1
            assert clients[1].post(f"/v1/games/{game_id}/join", {}).status_code == 200
            assert json.loads(next(line for line in lines if line))["version"] == 2  # the join, live
            assert subscribers() == 1
        deadline = time.monotonic() + PROMPT
        while subscribers() != 0:
            assert time.monotonic() < deadline, "the stream's subscription outlived its client"
            time.sleep(0.1)
    finally:
        redis.close()


def test_a_stream_with_redis_down_is_a_503_with_retry_after_not_a_broken_stream(
    games_url: str, database_url: str, closing: Any
) -> None:
    game_id, clients = new_game(games_url, 2)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nowhere = f"redis://127.0.0.1:{s.getsockname()[1]}/0"
    app = closing(create_games_app(settings_for(database_url, nowhere),
                                   default_registry("tests.support.diceduel:DiceDuel")))
    for accept in ("text/event-stream", "application/x-ndjson"):
        r = app.test_client().get(f"/v1/games/{game_id}/events/stream",
                                  headers={"Accept": accept, "Authorization": f"Bearer {clients[0].token}"})
        assert r.status_code == 503 and r.mimetype == "application/problem+json", r.get_data(as_text=True)
        assert int(r.headers["Retry-After"]) >= 1
