"""Connection pools."""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
import psycopg.types.json
from psycopg_pool import ConnectionPool

from shared import jsoncodec

log = logging.getLogger(__name__)


# json/jsonb columns are encoded and decoded with orjson in every service (issue 19: decoding the
# payload columns was most of a rebuild's time); measured in bench/reference.py ("json")
psycopg.types.json.set_json_dumps(jsoncodec.dumps)
psycopg.types.json.set_json_loads(jsoncodec.loads)
_pools: weakref.WeakSet[ConnectionPool] = weakref.WeakSet()
_recheck_lock = threading.Lock()
_last_recheck = 0.0


def pool_timeout() -> float:
    """Seconds a request waits for a connection (``DB_POOL_TIMEOUT``, default 1.5) before it is answered
    503: a PostgreSQL that is down or overloaded must not hold a request for psycopg-pool's default 30 s."""
    return float(os.environ.get("DB_POOL_TIMEOUT") or 1.5)


def pool_limits(max_size: int) -> tuple[int, float]:
    """(max_size, max_idle) of a pool: ``DB_POOL_MAX`` caps every pool of the process (an operator
    sharing one PostgreSQL's ``max_connections`` among many processes, or a test stack), ``DB_POOL_MAX_IDLE``
    (seconds, default psycopg-pool's 600) is how long a connection above the minimum stays open unused."""
    cap = os.environ.get("DB_POOL_MAX")
    idle = os.environ.get("DB_POOL_MAX_IDLE")
    return (min(max_size, max(1, int(cap))) if cap else max_size), (float(idle) if idle else 600.0)


class Connection(psycopg.Connection[Any]):
    """psycopg's connection, keeping one cursor per hot statement (``kept_cursor``): a new cursor per
    statement builds a new adapter context and looks up the dumper of every parameter and the loader
    of every returned column again. Measured (issue 19): an INSERT of 3 parameters 72-77 µs of client
    CPU on a new cursor against 59 on a kept one; an event append through the pool 139-147 µs against
    122-131. The pools of ``make_pool`` make these."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept: dict[str, psycopg.Cursor[Any]] = {}


def kept_cursor(conn: psycopg.Connection[Any], query: str) -> psycopg.Cursor[Any]:
    """The cursor ``conn`` keeps for ``query`` (a new one on a connection of another class). It keeps
    its adapters while it executes the same query object again, so pass a constant or a cached string.
    Read its result before the next execute of the same query on the same connection."""
    if not isinstance(conn, Connection):
        return conn.cursor()
    cur = conn.kept.get(query)
    if cur is None or cur.closed:
        cur = conn.kept[query] = conn.cursor()
    return cur


class Borrowed:
    """``with Borrowed(pool) as conn:`` a pooled connection for a block that leaves it outside any
    transaction (autocommit statements, ``one_round_trip``, ``conn.transaction()``): ``getconn`` and
    ``putconn``, not ``pool.connection()``, whose two context managers (its generator and the
    connection's own, which calls ``commit``) cost a writer about 15 µs of CPU per event append with 8
    writers on 2 cores (issue 19). ``putconn`` still rolls back a connection left in a transaction and
    drops a closed one, which the pool replaces. For a block that reads in a transaction of its own,
    use ``pool.connection()``: it commits at the end."""

    __slots__ = ("_conn", "_pool")

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    def __enter__(self) -> psycopg.Connection[Any]:
        self._conn: psycopg.Connection[Any] = self._pool.getconn()
        return self._conn

    def __exit__(self, *exc: object) -> None:
        self._pool.putconn(self._conn)


def make_pool(conninfo: str, min_size: int = 1, max_size: int = 10, **kwargs: Any) -> ConnectionPool:
    max_size, max_idle = pool_limits(max_size)
    min_size = min(min_size, max_size)
    kwargs.setdefault("max_idle", max_idle)
    kwargs.setdefault("timeout", pool_timeout())
    connect_args = dict(kwargs.pop("kwargs", None) or {})
    if "connect_timeout" not in conninfo:
        connect_args.setdefault("connect_timeout", max(2, round(pool_timeout())))  # libpq: whole seconds
    kwargs.setdefault("connection_class", Connection)
    pool = ConnectionPool(
        conninfo, min_size=min_size, max_size=max_size, open=False, kwargs=connect_args, **kwargs
    )
    pool.open(wait=False)
    _pools.add(pool)
    return pool


def recheck_pools(min_interval: float = 1.0, conninfo: str | None = None) -> None:
    """After a PostgreSQL error, test the idle connections of every pool (of the database ``conninfo``
    when given: the one that failed) in the background and replace the broken ones (psycopg-pool's
    ``check``), so that after a restart of PostgreSQL the next requests get fresh connections instead of
    one stale connection each. At most once per ``min_interval``."""
    global _last_recheck
    with _recheck_lock:
        now = time.monotonic()
        if now - _last_recheck < min_interval:
            return
        _last_recheck = now
    pools = [p for p in list(_pools) if conninfo is None or p.conninfo == conninfo]

    def check() -> None:
        for pool in pools:
            try:
                pool.check()
            except Exception as exc:  # PostgreSQL may still be down: the next error schedules another check
                log.debug("pool check failed: %s", exc)

    threading.Thread(target=check, name="pool-recheck", daemon=True).start()


@contextmanager
def one_round_trip(conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:
    """One transaction in one round trip on a pooled connection: BEGIN, every statement of the block
    and COMMIT go out in one pipeline with one sync when the block ends (psycopg's own
    ``transaction()`` in pipeline mode syncs at BEGIN and COMMIT too). A read inside the block that
    needs its answer syncs earlier; results of queued statements can be fetched after the block.
    Errors of queued statements (e.g. ``UniqueViolation`` from a concurrent writer) are raised when the
    block ends, and the transaction is rolled back. A connection left in no clean state is closed (its
    pool replaces it)."""
    conn.autocommit = True  # BEGIN and COMMIT are queued here with the rest, not sent apart
    try:
        with conn.pipeline():
            conn.execute("BEGIN")
            yield conn
            conn.execute("COMMIT")
    except BaseException:
        if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            with suppress(psycopg.Error):
                conn.execute("ROLLBACK")
        raise
    finally:
        if not conn.closed and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            conn.autocommit = False
        else:
            conn.close()
