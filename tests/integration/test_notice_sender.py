"""Live-stream notices sent from a thread of their own (issue 19): a move's request queues its notice and
does not wait on Redis; subscribers still get every notice, in commit order, with the same bytes as a
direct publish; with Redis unreachable the request still does not wait, and the notices are dropped
(logged), never piled up without bound."""

from __future__ import annotations

import logging
import socket
import time

import pytest
from redis import Redis

from services.games.adapters.notifications import NoticeSender, channel, decode_notice, encode_notice

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
    assert sender.flush(10)
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
    sender = NoticeSender(Redis(host="127.0.0.1", port=port, socket_timeout=1, socket_connect_timeout=1),
                          max_pending=5)
    with caplog.at_level(logging.WARNING, logger="services.games.adapters.notifications"):
        started = time.perf_counter()
        for version in range(1, 51):
            sender.publish("g", version, _rows(version))
        assert time.perf_counter() - started < 0.5  # 50 notices queued or dropped without waiting on Redis
        assert sender.flush(15)  # the thread gives up on what it could not send
    assert any("not published" in r.getMessage() for r in caplog.records)
    assert any("dropped" in r.getMessage() for r in caplog.records)  # at most max_pending wait
