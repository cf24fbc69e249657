"""Connection pools."""

from __future__ import annotations

import os
from typing import Any

from psycopg_pool import ConnectionPool


def pool_timeout() -> float:
    """Seconds a request waits for a connection (``DB_POOL_TIMEOUT``, default 1.5) before it is answered
    503: a PostgreSQL that is down or overloaded must not hold a request for psycopg-pool's default 30 s."""
    return float(os.environ.get("DB_POOL_TIMEOUT") or 1.5)


def make_pool(conninfo: str, min_size: int = 1, max_size: int = 10, **kwargs: Any) -> ConnectionPool:
    kwargs.setdefault("timeout", pool_timeout())
    connect_args = dict(kwargs.pop("kwargs", None) or {})
    if "connect_timeout" not in conninfo:
        connect_args.setdefault("connect_timeout", max(2, round(pool_timeout())))  # libpq: whole seconds
    pool = ConnectionPool(
        conninfo, min_size=min_size, max_size=max_size, open=False, kwargs=connect_args, **kwargs
    )
    pool.open(wait=False)
    return pool
