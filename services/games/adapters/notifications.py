"""Live-stream notices through Redis pub/sub: the writer publishes a game's new version, every
instance serving a stream of that game wakes up and reads the new events from PostgreSQL."""

from __future__ import annotations

from redis import Redis


def channel(game_id: str) -> str:
    return f"speltafel:game:{game_id}"


class RedisNotifier:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def publish(self, game_id: str, version: int) -> None:
        self.redis.publish(channel(game_id), str(version))

    def subscribe(self, game_id: str) -> Listener:
        return Listener(self.redis, game_id)


class Listener:
    def __init__(self, redis: Redis, game_id: str) -> None:
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(channel(game_id))

    def wait(self, timeout: float) -> bool:
        """True when a notice arrived within ``timeout`` seconds."""
        return self._pubsub.get_message(timeout=timeout) is not None

    def close(self) -> None:
        self._pubsub.close()
