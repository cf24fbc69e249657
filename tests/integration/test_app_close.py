"""A service's app lets go of its connections when it is closed (``shared.web.closing.close_app``: at the
server's shutdown, ``shared.web.server.serve``, and at a test's teardown), rather than whenever the garbage
collector reaches its pool: a psycopg pool collected on one of its own worker threads cannot stop that
thread ("cannot join current thread"), and its PostgreSQL connections stay open until then."""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path

import psycopg
import pytest
import requests
from psycopg.conninfo import make_conninfo
from redis import Redis

from services.games.bootstrap import create_app, create_streams
from services.games.engines.registry import default_registry
from shared.config import Settings
from shared.web.closing import close_app
from tests.support.servers import PrivateRedis
from tests.support.streams import StreamServer

pytestmark = pytest.mark.integration


def _backends(database_url: str, application_name: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                           (application_name,)).fetchone()
    return int(row[0]) if row else 0


def _settings(database_url: str, application_name: str, redis_url: str) -> Settings:
    """The test database under a name of its own in ``pg_stat_activity``, and a Redis of the test's own."""
    return dataclasses.replace(Settings.from_env(), redis_url=redis_url, admin_token="test-admin-token",
                               database_url=make_conninfo(database_url, application_name=application_name))


def _eventually(check: object, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_closing_the_games_app_ends_its_postgresql_and_redis_connections(database_url: str,
                                                                        tmp_path: Path) -> None:
    redis_server = PrivateRedis(tmp_path, persistent=False).start()
    probe = Redis.from_url(redis_server.url)
    try:
        name = f"close-test-{uuid.uuid4().hex[:8]}"
        settings = _settings(database_url, name, redis_server.url)
        app = create_app(settings, default_registry("tests.support.diceduel:DiceDuel"))
        client = app.test_client()
        assert client.post("/v1/players", json={"display_name": "Anneke"}).status_code == 201
        assert client.get("/readyz").status_code == 200  # PostgreSQL and Redis both used
        assert _backends(database_url, name) >= 1
        assert int(probe.info("clients")["connected_clients"]) >= 2  # the probe and the app's

        close_app(app)

        assert _eventually(lambda: _backends(database_url, name) == 0), "PostgreSQL connections left open"
        assert _eventually(lambda: int(probe.info("clients")["connected_clients"]) == 1), probe.client_list()
        close_app(app)  # a second close has nothing left to do
    finally:
        probe.close()
        redis_server.stop()


def test_stopping_the_stream_gateway_ends_its_postgresql_connections(database_url: str, redis_url: str) -> None:
    name = f"close-test-{uuid.uuid4().hex[:8]}"
    server = StreamServer(create_streams(_settings(database_url, name, redis_url),
                                         default_registry("tests.support.diceduel:DiceDuel")))
    unknown = requests.get(f"{server.url}/v1/games/{uuid.uuid4()}/events/stream",
                           headers={"Authorization": "Bearer test-admin-token"}, timeout=10)
    assert unknown.status_code == 404  # looked up in PostgreSQL
    assert _backends(database_url, name) >= 1

    server.stop()

    assert _eventually(lambda: _backends(database_url, name) == 0), "PostgreSQL connections left open"
