"""Ticket-change notices through Redis pub/sub: the unit of work publishes the ids of the tickets a
transaction changed once it has committed; every instance serving a stream of such a ticket wakes up
and reads it from PostgreSQL. A lost notice only delays a stream until its fallback check."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from redis import Redis

log = logging.getLogger(__name__)


def channel(ticket_id: str) -> str:
    return f"speltafel:ticket:{ticket_id}"


class RedisTicketNotifier:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def publish(self, ticket_ids: Iterable[str]) -> None:
        """Never raises: the change is committed already, and streams re-check on their own."""
        try:
            with self.redis.pipeline(transaction=False) as pipe:
                for ticket_id in ticket_ids:
                    pipe.publish(channel(ticket_id), "changed")
                pipe.execute()
        except Exception as exc:  # Redis down: the fallback check delivers the change
            log.warning("ticket change notice failed: %s", exc)

    def subscribe(self, ticket_id: str) -> TicketListener:
        return TicketListener(self.redis, ticket_id)


class TicketListener:
    def __init__(self, redis: Redis, ticket_id: str) -> None:
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(channel(ticket_id))

    def wait(self, timeout: float) -> bool:
        """True when a notice arrived within ``timeout`` seconds."""
        return self._pubsub.get_message(timeout=timeout) is not None

    def close(self) -> None:
        self._pubsub.close()
