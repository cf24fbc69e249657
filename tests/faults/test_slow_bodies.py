"""Issue 14: 200 connections that send their request body a byte at a time must not starve anyone:
every one of them is accepted and normal requests still answer within 1 s, on a service's own port and
on `make run`'s base URL (the gateway, which forwards to the services)."""

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


@pytest.mark.parametrize("front", ["games", "gateway"])
def test_200_slow_body_connections_do_not_delay_normal_requests(shared_plane: Backplane, front: str) -> None:
    stack = shared_plane.stack
    if front == "gateway":  # the one base URL: /games/..., /ratings/... forwarded to the services
        port = int(stack.env["SPELTAFEL_PORT"])
        urls = {name: f"http://127.0.0.1:{port}/{name}" for name in stack.urls}
        target = b"/games/v1/players"
    else:
        port, urls, target = stack.ports["games"], stack.urls, b"/v1/players"
    head = (b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
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
                    code = requests.request(method, urls[service] + path, json=body, timeout=5).status_code
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
    print(f"faults: slow-bodies-200 ({front} port {port}): connected={len(sockets)}, refused={refused}, still open after "
          f"{HOLD_S:.0f}s={open_now}, normal requests={len(timings)}, over 1s or failed={len(late)}, "
          f"slowest={slowest:.2f}s {late[:6]}")
    assert (len(sockets), refused) == (SLOW, 0), "every slow connection is accepted"
    assert not late, "every normal request answers within 1 s"
