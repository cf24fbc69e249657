from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from redis import Redis

from shared.web.closing import close_app
from tests.support.infra import TestDatabase, redis_test_url, resolve_for_tests

App = TypeVar("App")

# Rate limits are off in every test that does not switch them on itself (tests/e2e/test_front_door.py).
os.environ.setdefault("RATE_LIMITS", "off")
# Connections a test's burst opened above a pool's minimum close after 30 s idle (psycopg-pool's default is
# 10 min): the tiers share the machine's PostgreSQL and its max_connections (README, DB_POOL_MAX_IDLE).
os.environ.setdefault("DB_POOL_MAX_IDLE", "30")
# Property tests assert what holds of every example, never how fast one ran: no per-example deadline
# (hypothesis' default 200 ms) and no health check on how long drawing the examples took. On a 2-core
# machine that runs the browser and fault tiers beside the main one, a single draw took 1.4 s once and
# failed a run of `make test` (tests/unit/test_canonical.py, 2026-12-05).
settings.register_profile("speltafel", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("speltafel")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, the most CPU first (``pytest.mark.slow(cpu_seconds=...)``), the
    rest in their order: pytest-xdist (``--dist loadfile --no-loadscope-reorder``, as ``make test`` runs
    it; without the flag it sorts the files by their number of tests) hands out the files in this order, and the
    bots' strength files (minutes of CPU each) at the end of the run left one worker busy and the other
    idle for their whole length (the longest first is the shorter run). Order only; what runs is the same."""

    def cpu_seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("slow")
        return -float(mark.kwargs.get("cpu_seconds", 1)) if mark is not None else 0.0

    items.sort(key=cpu_seconds)  # stable: the same order in every worker, as xdist requires


@pytest.fixture(scope="session")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    found = resolve_for_tests(tmp_path_factory.mktemp("backends"))
    # an app a test makes without naming its Redis reaches this process's own redis-server, not the machine's
    os.environ["REDIS_URL"] = redis_test_url(found.redis_url, redis_db())
    yield found
    found.stop()


@pytest.fixture(scope="session")
def test_database(backends) -> Iterator[TestDatabase]:  # type: ignore[no-untyped-def]
    db = TestDatabase(backends)
    yield db
    db.drop()


@pytest.fixture
def database_url(test_database: TestDatabase) -> Iterator[str]:
    test_database.truncate()
    yield test_database.url


def redis_db() -> int:
    """The Redis database index a pytest-xdist worker uses on its own redis-server (each worker process
    starts one, so the index only keeps the habit of one database per worker)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return 1 + (int(worker[2:]) + 1 if worker.startswith("gw") else 0)


@pytest.fixture
def redis_url(backends) -> Iterator[str]:  # type: ignore[no-untyped-def]
    url = redis_test_url(backends.redis_url, redis_db())
    client = Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def closing() -> Iterator[Callable[[App], App]]:
    """Closes the apps a test builds after it (``client = closing(create_app(...)).test_client()``): their
    pools and Redis connections end with the test, not whenever the garbage collector reaches them, which
    may be on one of a pool's own worker threads ("cannot join current thread", shared/web/closing.py)."""
    built: list[Any] = []

    def keep(app: App) -> App:
        built.append(app)
        return app

    yield keep
    for app in reversed(built):
        close_app(app)
