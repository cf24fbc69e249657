"""Issue 15 item 1, every server a browser page reaches: each of the four services, the gateway of `make run`
(its own answers: the combined document, its refusals, the web client; and what it forwards) and the stream
gateway answer a real preflight and a real cross-origin request for an allowed origin, with the headers a
client reads exposed to the page's script, and give another origin no Access-Control-Allow-Origin."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from services.games.bootstrap import create_streams
from services.gateway.app import create_gateway_app
from tests.conftest import redis_db
from tests.e2e.conftest import ADMIN, Server, service_app, settings_for
from tests.support.infra import redis_test_url
from tests.support.streams import StreamServer

pytestmark = pytest.mark.e2e
ALLOWED = "https://play.speltafel.example"
OTHERS = ("https://evil.example", "http://localhost:5173", "https://play.speltafel.example.evil")
SERVICES = ("games", "matchmaking", "questions", "ratings")
# what a page's script reads from our answers (README "CORS")
CLIENT_READS = {"etag", "location", "retry-after", "x-request-id", "idempotency-key", "idempotent-replayed",
                "www-authenticate", "content-disposition"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def servers(test_database: Any, backends: Any) -> Iterator[dict[str, str]]:
    test_database.truncate()
    database_url, redis_url = test_database.url, redis_test_url(backends.redis_url, redis_db())
    settings = dataclasses.replace(settings_for(database_url, redis_url), cors_origins=(ALLOWED,))
    started: list[Any] = [Server(service_app(name, settings)) for name in SERVICES]
    urls = {name: server.url for name, server in zip(SERVICES, started, strict=True)}
    streams = StreamServer(create_streams(settings, None))
    started.append(streams)
    gateway = Server(create_gateway_app(urls, streams=streams.url, cors_origins=(ALLOWED,)))
    started.append(gateway)
    yield urls | {"streams": streams.url, "gateway": gateway.url}
    for server in reversed(started):
        server.stop()


# (server, method a page would use, path): a service's own resources, the gateway's own answers and what it
# forwards, the stream gateway's stream (a 404 problem: an unknown game) and its health check
CASES = [
    ("games", "POST", "/v1/players"),
    ("games", "GET", "/v1/game-types"),
    ("matchmaking", "POST", "/v1/tickets"),
    ("matchmaking", "GET", "/v1/leagues"),
    ("questions", "GET", "/v1/cities"),
    ("ratings", "GET", "/v1/pools"),
    ("ratings", "POST", "/v1/predict"),
    ("gateway", "GET", "/openapi.json"),
    ("gateway", "GET", "/healthz"),
    ("gateway", "GET", "/nosuch/v1/x"),
    ("gateway", "GET", "/"),
    ("gateway", "POST", "/games/v1/players"),
    ("gateway", "GET", "/games/v1/games/no-such-game/events/stream"),
    ("streams", "GET", "/v1/games/no-such-game/events/stream"),
    ("streams", "GET", "/healthz"),
]


def exposed(response: requests.Response) -> set[str]:
    return {h.strip().lower() for h in response.headers.get("Access-Control-Expose-Headers", "").split(",")}


@pytest.mark.parametrize(("server", "method", "path"), CASES)
def test_an_allowed_origin_gets_a_preflight_and_a_readable_answer(
    servers: dict[str, str], server: str, method: str, path: str
) -> None:
    url = servers[server] + path
    preflight = requests.options(url, timeout=30, headers={
        "Origin": ALLOWED, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key, last-event-id"})
    assert preflight.status_code in (200, 204), preflight.text
    assert preflight.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert method in {m.strip() for m in preflight.headers["Access-Control-Allow-Methods"].split(",")}
    allowed = {h.strip().lower() for h in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "last-event-id"} <= allowed
    assert "Origin" in preflight.headers.get("Vary", "")

    body = {"json": {}} if method == "POST" else {}
    answer = requests.request(method, url, timeout=30, headers={"Origin": ALLOWED, "Accept": "*/*"}, **body)
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED, (answer.status_code, answer.text[:200])
    assert exposed(answer) >= CLIENT_READS, f"not readable by the page: {CLIENT_READS - exposed(answer)}"
    assert "Origin" in answer.headers.get("Vary", "")


@pytest.mark.parametrize(("server", "method", "path"), CASES)
def test_another_origin_gets_no_allow_origin(servers: dict[str, str], server: str, method: str, path: str) -> None:
    url = servers[server] + path
    for origin in OTHERS:
        preflight = requests.options(url, timeout=30, headers={"Origin": origin, "Access-Control-Request-Method": method})
        assert "Access-Control-Allow-Origin" not in preflight.headers, (origin, preflight.headers)
        answer = requests.request(method, url, timeout=30, headers={"Origin": origin, "Accept": "*/*"},
                                  **({"json": {}} if method == "POST" else {}))
        assert "Access-Control-Allow-Origin" not in answer.headers, (origin, answer.status_code)


def test_the_gateways_own_refusals_are_readable_cross_origin(servers: dict[str, str]) -> None:
    """A service that does not answer (502) and an unknown prefix (404) are the gateway's own problem+json
    answers: a page must be able to read them (and Retry-After) like any service's."""
    gateway = Server(create_gateway_app({"games": f"http://127.0.0.1:{closed_port()}"}, cors_origins=(ALLOWED,)))
    try:
        down = requests.get(gateway.url + "/games/v1/games", headers={"Origin": ALLOWED}, timeout=30)
        assert down.status_code == 502 and down.headers["Content-Type"] == "application/problem+json"
        assert down.headers["Access-Control-Allow-Origin"] == ALLOWED and "retry-after" in exposed(down)
        combined = requests.get(gateway.url + "/openapi.json", headers={"Origin": ALLOWED}, timeout=30)
        assert combined.status_code == 503 and combined.headers["Access-Control-Allow-Origin"] == ALLOWED
    finally:
        gateway.stop()


def test_a_replayed_move_says_so_in_a_header_the_page_can_read(servers: dict[str, str]) -> None:
    """``Idempotent-Replayed: true`` marks a retried move's first answer: a client that retries must see it."""
    base = servers["gateway"] + "/games"
    session = requests.Session()
    session.headers["Origin"] = ALLOWED
    players = [session.post(base + "/v1/players", json={"display_name": f"cors{n}"}, timeout=30).json()
               for n in range(2)]
    game = session.post(base + "/v1/games", json={"game_type": "diceduel", "seats": [p["id"] for p in players]},
                        headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30)
    assert game.status_code == 201, game.text
    game_id = game.json()["id"]
    for player in players:
        auth = {"Authorization": f"Bearer {player['token']}"}
        legal = session.get(f"{base}/v1/games/{game_id}/legal-moves", headers=auth, timeout=30).json()
        if legal["moves"]:
            break
    headers = auth | {"Idempotency-Key": "cors-replay-1"}
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    first = session.post(f"{base}/v1/games/{game_id}/moves", json=body, headers=headers, timeout=30)
    again = session.post(f"{base}/v1/games/{game_id}/moves", json=body, headers=headers, timeout=30)
    assert first.status_code == again.status_code and first.status_code < 300, first.text
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Access-Control-Allow-Origin"] == ALLOWED and "idempotent-replayed" in exposed(again)
