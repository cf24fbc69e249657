"""Live-stream notices sent without waiting on Redis (issue 19): a move's request sends its notice on a
connection whose replies are off and does not wait for Redis; subscribers still get every notice, in
commit order, with the same bytes as a direct publish; with Redis unreachable, or stopped so that it no
longer reads, the request still does not wait: the notices are dropped (logged), never piled up, and the
sender connects again once Redis is back."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from redis import Redis
from redis.client import PubSub

from services.games.adapters.notifications import NoticeSender, channel, decode_notice, encode_notice
from tests.support.servers import PrivateRedis

pytestmark = pytest.mark.integration


def _rows(version: int) -> list[tuple[int, str, dict[str, object], str, str]]:
    return [(version, "MoveMade", {"seat": version % 2, "move": {"type": "roll"}}, f"h{version}", "2026-05-01T20:15:00+00:00")]


def test_every_notice_arrives_in_order_with_the_same_bytes(redis_url: str) -> None:
    redis = Redis.from_url(redis_url, socket_timeout=5)
    games = ["g-one", "g-two", "g-three"]
    listener = redis.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(*(channel(g) for g in games))
    while listener.get_message(timeout=0.2) is not None:
        pass
    sender = NoticeSender(redis)
    sent: list[tuple[str, bytes]] = []
    for version in range(1, 301):  # faster than one publish per round trip: batches form
        game = games[version % 3]
        sender.publish(game, version, _rows(version))
        sent.append((channel(game), encode_notice(version, _rows(version))))
    got: list[tuple[str, bytes]] = []
    deadline = time.monotonic() + 10
    while len(got) < len(sent) and time.monotonic() < deadline:
        message = listener.get_message(timeout=1)
        if message is not None:
            got.append((message["channel"].decode(), message["data"]))
    assert got == sent  # all of them, in the order queued, byte for byte
    version, rows = decode_notice(got[-1][1])
    assert version == 300 and rows is not None and rows[0][3] == "h300"
    listener.close()


def test_an_unreachable_redis_does_not_hold_the_request(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sender = NoticeSender(Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1))
    with caplog.at_level(logging.WARNING, logger="services.games.adapters.notifications"):
        started = time.perf_counter()
        for version in range(1, 51):
            sender.publish("g", version, _rows(version))
        assert time.perf_counter() - started < 0.5  # 50 notices dropped without waiting on Redis
    assert any("not published" in r.getMessage() for r in caplog.records)
    assert any("dropped" in r.getMessage() for r in caplog.records)


def _listen(url: str, game: str) -> tuple[Redis, PubSub]:
    client = Redis.from_url(url, socket_timeout=5)
    listener = client.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(channel(game))
    while listener.get_message(timeout=0.2) is not None:
        pass
    return client, listener


def test_a_redis_that_stops_reading_does_not_hold_the_request(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """Our own redis-server, stopped (SIGSTOP) while the sender is connected: the notices fill the socket's
    buffers and are then dropped at once, where a blocking send would wait its 5 s timeout per notice; once
    Redis runs again, the sender connects again and the next notices arrive."""
    redis = PrivateRedis(tmp_path, persistent=False).start()
    try:
        client, listener = _listen(redis.url, "g-stopped")
        sender = NoticeSender(Redis.from_url(redis.url, socket_timeout=5, socket_connect_timeout=2),
                              retry_seconds=0.2)
        sender.publish("g-stopped", 1, _rows(1))
        assert listener.get_message(timeout=5) is not None  # connected and delivering
        big = [(2, "MoveMade", {"pad": "x" * 60_000}, "h", "2026-05-01T20:15:00+00:00")]
        assert redis.proc is not None
        os.kill(redis.proc.pid, signal.SIGSTOP)
        try:
            with caplog.at_level(logging.WARNING, logger="services.games.adapters.notifications"):
                started = time.perf_counter()
                for version in range(2, 1002):  # 60 MB: far more than the kernel buffers between us and Redis
                    sender.publish("g-stopped", version, big)
                took = time.perf_counter() - started
            assert took < 5  # not one notice waited for the 5 s socket timeout
            assert any("not published" in r.getMessage() for r in caplog.records)
        finally:
            os.kill(redis.proc.pid, signal.SIGCONT)
        listener.close()
        client.close()
        client, listener = _listen(redis.url, "g-back")
        deadline = time.monotonic() + 10
        got = None
        while got is None and time.monotonic() < deadline:  # connects again within retry_seconds of a try
            sender.publish("g-back", 7, _rows(7))
            got = listener.get_message(timeout=0.3)
        assert got is not None and decode_notice(got["data"])[0] == 7
        listener.close()
        client.close()
    finally:
        redis.stop(kill=True)


def test_notices_from_many_threads_at_once_all_arrive_each_threads_in_order(redis_url: str) -> None:
    """Threads that find the sender busy leave their notices to the one sending: none is lost or doubled,
    and each thread's notices arrive in the order it published them."""
    redis = Redis.from_url(redis_url, socket_timeout=5)
    games = [f"g-thread-{k}" for k in range(8)]
    listener = redis.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(*(channel(g) for g in games))
    while listener.get_message(timeout=0.2) is not None:
        pass
    sender = NoticeSender(redis)
    start = threading.Barrier(len(games))

    def publish_all(game: str) -> None:
        start.wait()
        for version in range(1, 201):
            sender.publish(game, version, _rows(version))

    threads = [threading.Thread(target=publish_all, args=(g,)) for g in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    got: dict[str, list[int]] = {channel(g): [] for g in games}
    deadline = time.monotonic() + 15
    while sum(map(len, got.values())) < 200 * len(games) and time.monotonic() < deadline:
        message = listener.get_message(timeout=1)
        if message is not None:
            got[message["channel"].decode()].append(decode_notice(message["data"])[0])
    assert all(versions == list(range(1, 201)) for versions in got.values()), {k: len(v) for k, v in got.items()}
    listener.close()
