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

import collections
import json
import logging
import os
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
    """``RedisNotifier.publish`` without waiting on Redis, from the request's own thread: a connection of
    its own in ``CLIENT REPLY OFF`` mode, so Redis answers nothing and a notice costs one non-blocking
    socket send of a few µs, or a share of one. (Issue 19: a thread fed by a queue, publishing with the
    client, cost about 0.15 ms of the games process's CPU per move, 7 % of a one-client move rate; a
    publish through the client alone is 47-63 µs, the hand-off to the thread ~25 µs.)

    A notice joins a queue, and the thread that holds the lock sends every notice waiting, in one send, so
    commands never interleave and no thread waits for another; a game's notices leave in the order their
    moves published them. Notices are best effort, as before: when the socket cannot take the waiting
    notices at once (Redis has stopped reading) or the connection is broken, they are dropped and logged, the
    connection closed (Redis discards a half-sent command with it), and a thread connects again, at most
    once every ``retry_seconds``, while later notices are dropped; a stream that misses a notice reads
    PostgreSQL (``stream_fanout``)."""

    def __init__(self, redis: Redis, retry_seconds: float = 1.0) -> None:
        pool = redis.connection_pool
        # configured as the given client's connections (address, credentials, timeouts)
        self._connection_class, self._kwargs = pool.connection_class, dict(pool.connection_kwargs)
        self._retry_seconds = retry_seconds
        self._lock = threading.Lock()
        self._conn: Any = None  # a connected redis-py connection, replies off, its socket non-blocking
        self._connecting = False
        self._next_try = 0.0
        self._dropped = 0
        self._waiting: collections.deque[tuple[str, bytes]] = collections.deque()  # (channel, notice)
        self._connect()  # at once, so the first moves' notices go out; later in a thread of its own

    def publish(self, game_id: str, version: int, rows: Sequence[Row] = ()) -> None:
        self._waiting.append((channel(game_id), encode_notice(version, rows) if rows else str(version).encode()))
        self._send_all_waiting()

    def close(self) -> None:
        """Close the connection (at the app's close, ``shared.web.closing``: no request publishes then)."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.disconnect()

    def _send_all_waiting(self) -> None:
        # whoever holds the lock sends what waits; a thread that finds it held leaves its notice to the
        # holder, which looks again after letting go (so many threads' notices leave in one send)
        while self._waiting and self._lock.acquire(blocking=False):
            try:
                self._send_waiting()
            finally:
                self._lock.release()

    def _send_waiting(self) -> None:
        """With the lock held: every waiting notice, in the order published, in one send."""
        batch = []
        while self._waiting:
            batch.append(self._waiting.popleft())
        conn = self._conn
        if conn is not None and conn.pid != os.getpid():  # a forked child never sends on its parent's socket
            conn = None
        if conn is None:
            self._drop(len(batch), "not connected")
            return
        command = b"".join(conn.pack_commands([("PUBLISH", name, data) for name, data in batch]))
        try:
            sent = conn._sock.send(command)
        except OSError as exc:  # broken (BlockingIOError too: the buffer is full)
            sent, reason = 0, f"{type(exc).__name__}: {exc}"
        else:
            reason = f"Redis took {sent} of {len(command)} bytes"
        if sent == len(command):
            return
        self._conn = None
        conn.disconnect()
        self._drop(len(batch), reason)

    def _drop(self, count: int, reason: str) -> None:
        """With the lock held: count and log notices not sent, and connect again if it is time."""
        before, self._dropped = self._dropped, self._dropped + count
        if before == 0 or before // 1000 != self._dropped // 1000:
            log.warning("live-stream notice not published, dropped (%d so far): %s", self._dropped, reason)
        if not self._connecting and time.monotonic() >= self._next_try:
            self._connecting = True
            threading.Thread(target=self._connect, name="stream-notices-connect", daemon=True).start()

    def _connect(self) -> None:
        try:
            conn = self._connection_class(**self._kwargs)
            conn.connect()  # the client's handshake (credentials, database), its replies read
            conn.send_command("CLIENT", "REPLY", "OFF")  # no reply, from this command on
            conn._sock.setblocking(False)
        except Exception as exc:  # Redis down: notices are dropped until a later try succeeds
            log.warning("live-stream notices: cannot connect to Redis: %s: %s", type(exc).__name__, exc)
            conn = None
        with self._lock:
            if conn is not None:
                self._conn = conn
            self._next_try = time.monotonic() + self._retry_seconds
            self._connecting = False
        self._send_all_waiting()  # what was left to this thread while it held the lock


class Listener:
    def __init__(self, redis: Redis, game_id: str) -> None:
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(channel(game_id))

    def wait(self, timeout: float) -> bool:
        """True when a notice arrived within ``timeout`` seconds."""
        return self._pubsub.get_message(timeout=timeout) is not None

    def close(self) -> None:
        self._pubsub.close()
