"""What every service's bootstrap needs: pools, Redis, readiness checks and queue gauges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg_pool import ConnectionPool
from redis import Redis

from shared.config import Settings
from shared.db import make_pool
from shared.messages import QUEUES
from shared.outbox import job_counts, outbox_stats
from shared.web.app import ReadyCheck


@dataclass
class Infrastructure:
    settings: Settings
    pool: ConnectionPool
    redis: Redis

    @classmethod
    def connect(cls, settings: Settings, max_size: int = 10) -> Infrastructure:
        return cls(
            settings,
            make_pool(settings.database_url, max_size=max_size),
            Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=2),
        )

    def close(self) -> None:
        """Close the pool (its connections and its worker threads) and the Redis connections."""
        self.pool.close()
        self.redis.close()

    def ready_checks(self) -> dict[str, ReadyCheck]:
        def postgres() -> None:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")

        def redis() -> None:
            self.redis.ping()

        return {"postgres": postgres, "redis": redis}

    def gauges(self, schema: str) -> dict[str, float]:
        """Outbox lag of ``schema`` (pending, failing, unconfirmed) and every queue's depth, failed and
        scheduled (retrying) job counts."""
        return outbox_stats(self.pool, schema) | job_counts(self.redis, QUEUES)

    def config(self) -> dict[str, Any]:
        return {"ADMIN_TOKEN": self.settings.admin_token, "SPELTAFEL_SETTINGS": self.settings}
