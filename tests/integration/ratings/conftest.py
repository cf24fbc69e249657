"""Fixtures of the ratings integration tests: messages go through the games outbox, the relay and the
real RQ queue "ratings", worked by a SimpleWorker in burst mode."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue

from services.ratings.adapters.postgres import PostgresUnitOfWork
from services.ratings.service_layer.handlers import RatingsService
from shared.eventstore.model import NewEvent
from shared.eventstore.postgres import PostgresEventStore
from shared.messages import outbox_for
from shared.outbox import relay_once
from tests.support.jobs import work_off
from tests.unit.ratings.factories import envelope


class Bus:
    """Publishes messages as the games service does (event + outbox rows in one transaction)."""

    def __init__(self, pool: ConnectionPool, redis: Redis) -> None:
        self.pool, self.redis = pool, redis
        self.games = PostgresEventStore(pool, "games")
        self.queue = Queue("ratings", connection=redis)

    def publish(self, kind: str, body: dict[str, Any], message_id: str | None = None) -> None:
        env = envelope(kind, body, message_id)
        stream = f"test-publisher-{uuid.uuid4()}"
        self.games.append(stream, 0, [NewEvent(kind, body)], outbox_for(kind, env["message_id"], body))
        while relay_once(self.pool, "games", self.redis):
            pass

    def enqueue(self, kind: str, body: dict[str, Any], message_id: str | None = None) -> None:
        """A redelivery straight onto the queue (what at-least-once delivery may do)."""
        self.queue.enqueue("services.ratings.entrypoints.jobs.handle_message", envelope(kind, body, message_id))

    def work(self) -> None:
        work_off(self.queue)

    def send(self, kind: str, body: dict[str, Any], message_id: str | None = None) -> None:
        self.publish(kind, body, message_id)
        self.work()


@pytest.fixture
def pool(database_url: str) -> Iterator[ConnectionPool]:
    p = ConnectionPool(database_url, min_size=1, max_size=4, open=True)
    yield p
    p.close()


@pytest.fixture
def bus(database_url: str, redis_url: str, redis_client: Redis, pool: ConnectionPool,
        monkeypatch: pytest.MonkeyPatch) -> Bus:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    return Bus(pool, redis_client)


@pytest.fixture
def service(pool: ConnectionPool) -> RatingsService:
    return RatingsService(PostgresUnitOfWork(pool))


def query(database_url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute(sql, args).fetchall()
