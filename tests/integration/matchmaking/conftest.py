"""Matchmaking's integration tests use their own Redis database (11): other test sessions running
at the same time flush db 13 and work its "games"/"matchmaking" queues, which would steal our jobs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis import Redis

from tests.support.infra import redis_test_url


@pytest.fixture
def redis_url(backends) -> Iterator[str]:  # type: ignore[no-untyped-def]
    url = redis_test_url(backends.redis_url, db=11)
    client = Redis.from_url(url)
    client.flushdb()
    yield url
    client.flushdb()
    client.close()
