"""Outbox relay and idempotent consumption.

The relay moves outbox rows (written in the same transaction as their events) onto RQ queues.
Delivery is at least once: a row is marked dispatched only after RQ accepted it, and the RQ job id
is derived from the row, so a crash between the two re-enqueues the same job at worst. Consumers
record each message id in ``processed_messages`` in the same transaction as their effects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue

log = logging.getLogger(__name__)
T = TypeVar("T")


def relay_once(pool: ConnectionPool, schema: str, redis: Redis, batch: int = 100) -> int:
    """Enqueue up to ``batch`` pending rows of ``schema``'s outbox; returns how many went out.

    Raises the Redis error when Redis is down; the rows then stay pending for the next round.
    """
    s = sql.Identifier(schema)
    with pool.connection() as conn, conn.transaction():
        rows = conn.execute(
            sql.SQL(
                "SELECT id, queue, job, message FROM {s}.outbox WHERE dispatched_at IS NULL"
                " ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED"
            ).format(s=s),
            (batch,),
        ).fetchall()
        if not rows:
            return 0
        try:
            with redis.pipeline() as pipe:
                for row_id, queue_name, job, message in rows:
                    queue = Queue(queue_name, connection=redis)
                    queue.enqueue_call(
                        job,
                        args=(message,),
                        job_id=f"{schema}-outbox-{row_id}",
                        pipeline=pipe,
                        result_ttl=3600,
                        failure_ttl=7 * 24 * 3600,
                    )
                pipe.execute()
        except Exception as exc:
            conn.execute(
                sql.SQL(
                    "UPDATE {s}.outbox SET attempts = attempts + 1, last_error = %s WHERE id = ANY(%s)"
                ).format(s=s),
                (str(exc)[:500], [r[0] for r in rows]),
            )
            raise
        conn.execute(
            sql.SQL(
                "UPDATE {s}.outbox SET dispatched_at = now(), attempts = attempts + 1 WHERE id = ANY(%s)"
            ).format(s=s),
            ([r[0] for r in rows],),
        )
        return len(rows)


def outbox_lag(pool: ConnectionPool, schema: str) -> tuple[int, float]:
    """(pending rows, age in seconds of the oldest pending row)."""
    with pool.connection() as conn:
        row = conn.execute(
            sql.SQL(
                "SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)"
                " FROM {s}.outbox WHERE dispatched_at IS NULL"
            ).format(s=sql.Identifier(schema))
        ).fetchone()
    return (int(row[0]), float(row[1])) if row else (0, 0.0)


@contextmanager
def consume_once(
    conn: psycopg.Connection[Any], schema: str, consumer: str, message_id: str
) -> Iterator[bool]:
    """Inside a transaction: yields True when ``message_id`` is new for ``consumer`` (then records it),
    False when it was already processed. The caller's effects commit with the record or not at all."""
    row = conn.execute(
        sql.SQL(
            "INSERT INTO {s}.processed_messages (consumer, message_id) VALUES (%s, %s)"
            " ON CONFLICT DO NOTHING RETURNING 1"
        ).format(s=sql.Identifier(schema)),
        (consumer, message_id),
    ).fetchone()
    yield row is not None


def run_relay(
    pool: ConnectionPool,
    schemas: list[str],
    redis: Redis,
    stop: Callable[[], bool],
    idle_sleep: float = 0.2,
) -> None:
    """Relay loop for several schemas until ``stop()`` is true."""
    import time

    while not stop():
        moved = 0
        for schema in schemas:
            try:
                moved += relay_once(pool, schema, redis)
            except (psycopg.Error, Exception) as exc:  # keep relaying; rows stay pending
                log.warning("outbox relay for %s failed: %s", schema, exc)
                time.sleep(1.0)
        if not moved:
            time.sleep(idle_sleep)
