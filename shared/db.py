"""Connection pools."""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool


def make_pool(conninfo: str, min_size: int = 1, max_size: int = 10, **kwargs: Any) -> ConnectionPool:
    pool = ConnectionPool(conninfo, min_size=min_size, max_size=max_size, open=False, **kwargs)
    pool.open(wait=False)
    return pool
