"""E2E: the services run on real HTTP ports against the test PostgreSQL and Redis."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from werkzeug.serving import make_server

from services.games.bootstrap import create_app as create_games_app
from services.games.engines.registry import default_registry
from shared.config import Settings

ADMIN = "test-admin-token"


class Server:
    def __init__(self, app: Any) -> None:
        self.httpd = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()


def settings_for(database_url: str, redis_url: str) -> Settings:
    base = Settings.from_env()
    return Settings(database_url, redis_url, ADMIN, "127.0.0.1", 0, base.ports, "WARNING")


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
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.base + path, timeout=30, **kw)

    def post(self, path: str, json: Any = None, **kw: Any) -> requests.Response:
        return self.http.post(self.base + path, json=json, timeout=30, **kw)


def register(base: str, name: str) -> Client:
    r = requests.post(base + "/v1/players", json={"display_name": name}, timeout=10)
    assert r.status_code == 201, r.text
    body = r.json()
    return Client(base, body["token"], body["id"])
