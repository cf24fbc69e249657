"""How many live streams the base URL of ``make run`` holds (``speltafel gateway``, waitress) against the
stream gateway's own port (``speltafel streams``): the WSGI gateway forwards a stream path to the stream
gateway but holds one of its ``HTTP_THREADS`` worker threads for the stream's whole life (a WSGI answer
is an iterator its thread drives to the end). It forwards at most ``GATEWAY_MAX_STREAMS`` (default
``HTTP_THREADS`` - 4) at once and answers one more with a 503 naming the stream gateway, so the threads
left keep answering everything else (without that cap the 33rd stream and every other request waited).

Opens ``BENCH_GATEWAY_VIEWERS`` (default 100) SSE streams of one game through each, counts the answers
whose head arrived within 10 s, and times one ``GET /healthz`` through the same port while they are
open (timeout 10 s)."""

from __future__ import annotations

import os
import select
import socket
import sys
import time
from typing import Any

import requests

from bench.common import bench_backends, free_port, load_average
from bench.streams import ADMIN, ENGINE, ROOT, _player, _serve

VIEWERS = int(os.environ.get("BENCH_GATEWAY_VIEWERS") or 100)
THREADS = 32  # HTTP_THREADS's default (shared/web/server.py)


def _open_streams(port: int, path: str, n: int, wait: float = 10.0) -> tuple[int, list[socket.socket]]:
    """``n`` SSE requests to ``path``; how many answers' heads (200) arrived within ``wait`` seconds."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET {path}?timeout=600 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
                  "Connection: keep-alive\r\n\r\n".encode())
        socks.append(s)
    heads: set[socket.socket] = set()
    deadline = time.monotonic() + wait
    buffers: dict[socket.socket, bytes] = {s: b"" for s in socks}
    while len(heads) < n and time.monotonic() < deadline:
        ready, _, _ = select.select([s for s in socks if s not in heads], [], [], 0.2)
        for s in ready:
            buffers[s] += s.recv(65536)
            if b"\r\n\r\n" in buffers[s] and buffers[s].startswith(b"HTTP/1.1 200"):
                heads.add(s)
    return len(heads), socks


def _healthz(port: int) -> float | None:
    start = time.monotonic()
    try:
        requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).raise_for_status()
    except requests.RequestException:
        return None
    return round((time.monotonic() - start) * 1000, 1)


def main() -> dict[str, Any]:
    load = load_average()
    print(f"bench streams_gateway: load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", file=sys.stderr)
    out: dict[str, Any] = {"load_average_at_start": load, "viewers_opened": VIEWERS}
    logs = ROOT / ".data" / "bench"
    logs.mkdir(parents=True, exist_ok=True)
    with bench_backends() as (db_url, redis_url, _):
        games_port, streams_port, gateway_port = free_port(), free_port(), free_port()
        base, streams = f"http://127.0.0.1:{games_port}", f"http://127.0.0.1:{streams_port}"
        env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=redis_url, ADMIN_TOKEN=ADMIN, LOG_LEVEL="WARNING",
                   RATE_LIMITS="off", SPELTAFEL_EXTRA_ENGINES=ENGINE, GAMES_PORT=str(games_port),
                   STREAMS_PORT=str(streams_port), SPELTAFEL_PORT=str(gateway_port), SPELTAFEL_HOST="127.0.0.1",
                   GAMES_URL=base, STREAMS_URL=streams, LOG_DIR=str(logs), HTTP_THREADS=str(THREADS))
        procs = [_serve(["serve", "games"], env, base + "/healthz", logs / "gw-bench-games.out"),
                 _serve(["streams"], env, streams + "/healthz", logs / "gw-bench-streams.out"),
                 _serve(["gateway"], env, f"http://127.0.0.1:{gateway_port}/healthz", logs / "gw-bench-gateway.out")]
        try:
            (a, _), (b, _) = _player(base, "a"), _player(base, "b")
            game = requests.post(base + "/v1/games", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30,
                                 json={"game_type": "tally", "seats": [a, b]}).json()["id"]
            for name, port, path in (("direct_stream_port", streams_port, f"/v1/games/{game}/events/stream"),
                                     ("make_run_base_url", gateway_port, f"/games/v1/games/{game}/events/stream")):
                opened, socks = _open_streams(port, path, VIEWERS)
                out[name] = {"streams_answered_within_10_s": opened, "healthz_ms_while_open": _healthz(port)}
                for s in socks:
                    s.close()
                time.sleep(2)  # the gateway's threads notice their clients left
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(20)
    out["http_threads"] = THREADS
    out["load_average_at_end"] = load_average()
    return out
