"""E2E: the services run on real HTTP ports against the test PostgreSQL and Redis."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from werkzeug.serving import make_server

from services.games.bootstrap import create_app as create_games_app
from services.games.engines.registry import default_registry
from shared.config import Settings
from shared.web.closing import close_app

ADMIN = "test-admin-token"
# every e2e client calls as a browser page on the web client's development origin would (CORS_ORIGINS'
# default allows http://localhost:*), so every answer the tier receives is checked to be readable there
ORIGIN = "http://localhost:5173"
# answer headers a client reads: each one present must be exposed to the page's script
CLIENT_READS = ("ETag", "Location", "Retry-After", "X-Request-ID", "Idempotent-Replayed", "WWW-Authenticate",
                "Content-Disposition")


def check_cors(response: requests.Response, *args: Any, **kwargs: Any) -> None:
    """A ``requests`` response hook: the answer (errors included) allows ``ORIGIN`` and exposes every
    header a client reads that it carries."""
    sent = response.request.headers.get("Origin")
    if sent is None:
        return
    where = f"{response.request.method} {response.url} -> {response.status_code}"
    assert response.headers.get("Access-Control-Allow-Origin") == sent, f"no CORS for {sent}: {where}"
    exposed = {h.strip().lower() for h in response.headers.get("Access-Control-Expose-Headers", "").split(",")}
    missing = [h for h in CLIENT_READS if h in response.headers and h.lower() not in exposed]
    assert not missing, f"{where} carries {missing} but does not expose them"


def browser_session() -> requests.Session:
    """A session that sends ``Origin: ORIGIN`` and checks the CORS headers of every answer."""
    session = requests.Session()
    session.headers["Origin"] = ORIGIN
    session.hooks["response"].append(check_cors)
    return session


class Server:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.httpd = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop serving and close the app (its pools and Redis connections), as ``speltafel serve`` does."""
        self.httpd.shutdown()
        close_app(self.app)


def settings_for(database_url: str, redis_url: str) -> Settings:
    base = Settings.from_env()
    return Settings(database_url, redis_url, ADMIN, "127.0.0.1", 0, base.ports, "WARNING")


def service_app(service: str, settings: Settings) -> Any:
    """A service's app as ``speltafel serve`` builds it; the games service knows DiceDuel beside the five
    games. Whoever builds one closes it (``Server.stop``, the ``closing`` fixture)."""
    if service == "games":
        return create_games_app(settings, default_registry("tests.support.diceduel:DiceDuel"))
    return importlib.import_module(f"services.{service}.bootstrap").create_app(settings)


@pytest.fixture
def games_url(database_url: str, redis_url: str) -> Iterator[str]:
    registry = default_registry("tests.support.diceduel:DiceDuel")
    server = Server(create_games_app(settings_for(database_url, redis_url), registry))
    yield server.url
    server.stop()


class Client:
    """A player (or admin) talking to the games API."""

    def __init__(self, base: str, token: str | None = None, player_id: str | None = None) -> None:
        self.base, self.token, self.player_id = base, token, player_id
        self.http = browser_session()
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.base + path, timeout=30, **kw)

    def post(self, path: str, json: Any = None, **kw: Any) -> requests.Response:
        return self.http.post(self.base + path, json=json, timeout=30, **kw)


def register(base: str, name: str) -> Client:
    r = browser_session().post(base + "/v1/players", json={"display_name": name}, timeout=10)
    assert r.status_code == 201, r.text
    body = r.json()
    return Client(base, body["token"], body["id"])
