"""Issue 14: 200 connections that send their request body a byte at a time must not starve anyone:
normal requests still answer within 1 s."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

import pytest
import requests

from tests.faults.infra import Backplane

pytestmark = pytest.mark.faults
SLOW = 200
HOLD_S = 12.0


def test_200_slow_body_connections_do_not_delay_normal_requests(shared_plane: Backplane) -> None:
    stack = shared_plane.stack
    port = stack.ports["games"]
    head = (b"POST /v1/players HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n{")
    sockets: list[socket.socket] = []
    stop = threading.Event()
    refused = 0
    try:
        for _ in range(SLOW):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
                s.sendall(head)
                sockets.append(s)
            except OSError:
                refused += 1

        def trickle() -> None:  # one more byte per connection every second, never the whole body
            while not stop.wait(1.0):
                for s in sockets:
                    with contextlib.suppress(OSError):
                        s.send(b" ")

        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(1.0)
        timings: list[tuple[str, int, float]] = []
        started = time.monotonic()
        while time.monotonic() - started < HOLD_S:
            for service, method, path, body in (
                ("games", "GET", "/v1/game-types", None),
                ("games", "POST", "/v1/players", {"display_name": "patient"}),
                ("games", "GET", "/healthz", None),
                ("ratings", "GET", "/v1/pools", None),
            ):
                t0 = time.monotonic()
                try:
                    code = requests.request(method, stack.urls[service] + path, json=body, timeout=5).status_code
                except requests.RequestException:
                    code = 0
                timings.append((f"{service} {method} {path}", code, time.monotonic() - t0))
            time.sleep(0.5)
        open_now = 0
        for s in sockets:  # how many slow connections the server still holds open
            try:
                s.send(b" ")
                open_now += 1
            except OSError:
                pass
    finally:
        stop.set()
        for s in sockets:
            s.close()
    slowest = max(t for _, _, t in timings)
    late = [(name, code, round(t, 2)) for name, code, t in timings if t > 1.0 or code not in (200, 201)]
    print(f"faults: slow-bodies-200: connected={len(sockets)}, refused={refused}, still open after "
          f"{HOLD_S:.0f}s={open_now}, normal requests={len(timings)}, over 1s or failed={len(late)}, "
          f"slowest={slowest:.2f}s {late[:6]}")
    assert not late, "every normal request answers within 1 s"
