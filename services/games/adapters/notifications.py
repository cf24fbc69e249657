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

import atexit
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

import orjson
from redis import Redis

from shared.eventstore.model import PayloadRow

log = logging.getLogger(__name__)
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


class NoticeSender:
    """``RedisNotifier.publish`` from a thread of its own with its own Redis connection: a move's
    request queues its notice and answers without waiting on Redis (issue 19: the publish was about a
    tenth of a move's CPU in the request). The thread sends the notices in the order they were queued,
    several at once in one pipeline when they pile up. Notices are best effort, as before: one that
    cannot be sent (Redis down) is logged and dropped, and so are new ones while ``max_pending`` wait;
    a stream that misses a notice reads PostgreSQL (``stream_fanout``)."""

    BATCH = 64  # notices per pipeline at most

    def __init__(self, redis: Redis, max_pending: int = 10_000) -> None:
        pool = redis.connection_pool
        # a connection of its own, configured as the given client's (timeouts included)
        self._redis = Redis(
            connection_pool=type(pool)(
                connection_class=pool.connection_class, max_connections=2, **pool.connection_kwargs
            )
        )
        self._max_pending = max_pending
        self._queue: queue.Queue[tuple[str, int, tuple[Row, ...]]] = queue.Queue()
        self._lock = threading.Lock()
        self._pid = 0
        self._dropped = 0
        atexit.register(self.flush, 1.0)

    def publish(self, game_id: str, version: int, rows: Sequence[Row] = ()) -> None:
        self._ensure_thread()
        if self._queue.unfinished_tasks >= self._max_pending:
            self._dropped += 1
            if self._dropped == 1 or self._dropped % 1000 == 0:
                log.warning("live-stream notices dropped: %d waiting (%d dropped so far)", self._max_pending,
                            self._dropped)
            return
        self._queue.put((game_id, version, tuple(rows)))

    def flush(self, timeout: float = 5.0) -> bool:
        """Waits until every queued notice has been sent (or dropped); False after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._queue.all_tasks_done.wait(left)
        return True

    def _ensure_thread(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:  # first use in this process (a forked worker starts its own thread)
            if self._pid != os.getpid():
                self._queue = queue.Queue()
                threading.Thread(target=self._run, name="stream-notices", daemon=True).start()
                self._pid = os.getpid()

    def _run(self) -> None:
        notices = self._queue
        while True:
            batch = [notices.get()]
            while len(batch) < self.BATCH:
                try:
                    batch.append(notices.get_nowait())
                except queue.Empty:
                    break
            try:
                if len(batch) == 1:
                    game_id, version, rows = batch[0]
                    self._redis.publish(channel(game_id), encode_notice(version, rows) if rows else str(version))
                else:
                    pipe = self._redis.pipeline(transaction=False)
                    for game_id, version, rows in batch:
                        pipe.publish(channel(game_id), encode_notice(version, rows) if rows else str(version))
                    pipe.execute()
            except Exception as exc:  # Redis down or slow: the streams read PostgreSQL meanwhile
                log.warning("live-stream notices not published (%d): %s", len(batch), exc)
            finally:
                for _ in batch:
                    notices.task_done()


class Listener:
    def __init__(self, redis: Redis, game_id: str) -> None:
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(channel(game_id))

    def wait(self, timeout: float) -> bool:
        """True when a notice arrived within ``timeout`` seconds."""
        return self._pubsub.get_message(timeout=timeout) is not None

    def close(self) -> None:
        self._pubsub.close()
