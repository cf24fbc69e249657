"""Live-stream notices through Redis pub/sub: after each commit the writer publishes the game's new
version **with the new stored events** on the game's channel; every instance serving a stream of that
game wakes up, and the stream gateway makes its viewers' copies from the events in the notice instead
of reading them back from PostgreSQL (it reads PostgreSQL whenever a notice is missing, late or too big).

A notice is ``{"version": v, "events": [[version, type, payload, hash, recorded_at], ...]}`` (JSON), the
rows ``read_payloads`` gives, or only ``"v"`` when the events would make it larger than
``NOTICE_MAX_BYTES`` (older writers sent only the version too). The events are the full stored events,
hidden information included: the channels live on the deployment's own Redis, which no client reaches
(README "Live streams"); what leaves the gateway is each viewer's redacted copy, as from PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson
from redis import Redis

from shared.eventstore.model import PayloadRow

NOTICE_MAX_BYTES = 64 * 1024  # a bigger batch of events is announced by its version alone (read from PostgreSQL)

Row = PayloadRow  # (version, type, payload, hash, recorded_at), as ``read_payloads`` gives it


def channel(game_id: str) -> str:
    return f"speltafel:game:{game_id}"


def _jsonb_key(key: str) -> tuple[int, bytes]:
    encoded = key.encode()
    return len(encoded), encoded


def jsonb_order(value: Any) -> Any:
    """``value`` with every object's keys in the order PostgreSQL's ``jsonb`` gives them back (shorter
    keys first, then by their UTF-8 bytes), so an event from a notice encodes to the same bytes as the
    same event read from the store."""
    if type(value) is dict:
        return {k: jsonb_order(value[k]) for k in sorted(value, key=_jsonb_key)}
    if type(value) is list:
        return [jsonb_order(item) for item in value]
    return value


def encode_notice(version: int, rows: Sequence[Row]) -> bytes:
    """The notice of a commit: its version and its events, or the version alone past ``NOTICE_MAX_BYTES``."""
    body = {"version": version, "events": [list(row) for row in rows]}
    try:
        data: bytes = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # an integer past 64 bits (storable up to 2**64): the standard library takes it
        data = json.dumps(body, separators=(",", ":")).encode()
    return data if len(data) <= NOTICE_MAX_BYTES else str(version).encode()


def decode_notice(data: bytes | str) -> tuple[int, list[Row] | None]:
    """(version, its events as the store gives them back) of a notice; events None when it has none.
    ValueError when it is not a notice."""
    if isinstance(data, str):
        data = data.encode()
    if data.isdigit():
        return int(data), None
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError:
        body = json.loads(data)
    rows = [(int(v), str(t), jsonb_order(p), str(h), r) for v, t, p, h, r in body["events"]]
    return int(body["version"]), rows


class RedisNotifier:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    def publish(self, game_id: str, version: int, rows: Sequence[Row] = ()) -> None:
        self.redis.publish(channel(game_id), encode_notice(version, rows) if rows else str(version))

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
