"""Event-store append and read rates, and the HTTP round trip of a trivial endpoint."""

from __future__ import annotations

import threading
import time
from typing import Any

import requests
from werkzeug.serving import make_server

from bench.common import bench_backends, latency_stats
from shared.config import Settings
from shared.db import make_pool
from shared.eventstore.model import NewEvent
from shared.eventstore.postgres import PostgresEventStore


def main() -> dict[str, Any]:
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    out: dict[str, Any] = {"note": "appends without a known predecessor hash (it is read first); bench/reference.py compares with raw inserts"}
    with bench_backends() as (db_url, redis_url, _):
        pool = make_pool(db_url, max_size=4)
        store = PostgresEventStore(pool, "games")
        n = 2000
        started = time.perf_counter()
        for k in range(n):
            store.append(f"s{k % 50}", k // 50, [NewEvent("Bench", {"k": k})])
        elapsed = time.perf_counter() - started
        out["append_events_per_s_1_writer"] = round(n / elapsed, 1)
        from concurrent.futures import ThreadPoolExecutor

        big = make_pool(db_url, max_size=16)
        many = PostgresEventStore(big, "games")

        def writer(w: int) -> None:
            for k in range(250):
                many.append(f"w{w}", k, [NewEvent("Bench", {"k": k})])

        started = time.perf_counter()
        with ThreadPoolExecutor(16) as ex:
            list(ex.map(writer, range(16)))
        out["append_events_per_s_16_writers"] = round(16 * 250 / (time.perf_counter() - started), 1)
        big.close()
        started = time.perf_counter()
        read = 0
        for s in range(50):
            read += len(store.read_stream(f"s{s}"))
        out["read_stream_events_per_s"] = round(read / (time.perf_counter() - started), 1)
        started = time.perf_counter()
        cursor, total = (0, 0), 0
        while batch := store.read_all(cursor, 500):
            cursor, total = batch[-1].cursor, total + len(batch)
        out["read_all_events_per_s"] = round(total / (time.perf_counter() - started), 1)
        pool.close()

        from services.games.bootstrap import create_app

        base = Settings.from_env()
        app = create_app(Settings(db_url, redis_url, "bench", "127.0.0.1", 0, base.ports, "WARNING"))
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/healthz"
        session = requests.Session()
        samples = []
        for _ in range(500):
            t = time.perf_counter()
            session.get(url, timeout=5)
            samples.append(time.perf_counter() - t)
        server.shutdown()
        out["http_healthz_round_trip"] = {
            "requests": len(samples),
            **latency_stats(samples),
            "server": "werkzeug threaded (in process)",
        }
    return out
