"""Shared helpers of the benchmarks: a throwaway migrated database and latency statistics."""

from __future__ import annotations

import statistics
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from shared.backends import Backends, resolve
from shared.migrate import apply

ROOT = Path(__file__).resolve().parents[1]


def _with_db(url: str, name: str) -> str:
    if "host=" in url and "?" in url:
        base, _, query = url.partition("?")
        return base.rsplit("/", 1)[0] + "/" + name + "?" + query
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, "/" + name, p.query, p.fragment))


@contextmanager
def bench_backends() -> Iterator[tuple[str, str, Backends]]:
    """(database url of a fresh migrated database, redis url on db 14, backends); dropped afterwards."""
    from services.cli import migration_sets

    backends = resolve(ROOT / ".data" / "bench")
    name = f"speltafel_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(backends.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_db(backends.database_url, name)
    try:
        apply(url, migration_sets())
        p = urlsplit(backends.redis_url)
        yield url, urlunsplit((p.scheme, p.netloc, "/14", p.query, p.fragment)), backends
    finally:
        with psycopg.connect(backends.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        backends.stop()


def latency_stats(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)
    if not ordered:
        return {}
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
    }
