"""Outbox relay, delivery confirmation, failed-job sweeping and idempotent consumption.

The relay moves outbox rows (written in the same transaction as their events) onto RQ queues.
Delivery is at least once: a row is marked dispatched only after RQ accepted it, and the RQ job id
is derived from the row (``{schema}-outbox-{row_id}``), so a crash between the two re-enqueues the same
job at worst. Every job is enqueued with an RQ ``Retry`` (growing intervals), so a consumer that fails
while PostgreSQL is down runs again. Later the relay confirms a dispatched row once it sees its job
finished, and re-sends a row whose job went missing from Redis (a Redis that lost its data); the
sweeper requeues jobs that ended in a failed registry (retries used up, or abandoned by a killed
worker) with a growing delay. Consumers record each message id in ``processed_messages`` in the same
transaction as their effects, so every re-delivery is harmless.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue, Retry, SimpleWorker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job, JobStatus

log = logging.getLogger(__name__)
T = TypeVar("T")

RESULT_TTL = 3600  # a finished job stays visible this long, for the relay to confirm its row
FAILURE_TTL = 7 * 24 * 3600


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.replace(" ", "").split(",") if part)


@dataclass(frozen=True)
class Delivery:
    """Retry, timeout and re-send settings (seconds); ``from_env`` reads the ``SPELTAFEL_*`` variables."""

    # RQ Retry, one retry per entry: at most 30 s apart for the first minute and a half (an outage of PostgreSQL
    # that long delays a consumer by at most 30 s after it ends), then growing
    retry_intervals: tuple[int, ...] = (1, 2, 5, 10, 15, 20, 30, 60, 120, 300)
    job_timeout: int = 60  # RQ job timeout; a killed worker's job counts as abandoned after it + grace
    abandon_grace: int = 10
    resend_after: float = 60.0  # a dispatched row whose job is missing from Redis this long is re-sent
    requeue_after: float = 10.0  # a failed job is requeued after this, doubling per requeue ...
    requeue_max: float = 600.0  # ... up to this
    check_interval: float = 2.0  # how often the relay confirms, re-sends and sweeps
    # confirmed outbox rows and consumers' processed-message records are deleted this long after
    # (``prune_once``), as long as RQ keeps a failed job (FAILURE_TTL): no message comes again later
    retention: float = float(FAILURE_TTL)
    prune_every: float = 600.0  # how often the relay deletes them

    @classmethod
    def from_env(cls) -> Delivery:
        env, d = os.environ, cls()
        return cls(
            retry_intervals=_ints(env.get("SPELTAFEL_JOB_RETRY_INTERVALS", ",".join(map(str, d.retry_intervals)))),
            job_timeout=int(env.get("SPELTAFEL_JOB_TIMEOUT", d.job_timeout)),
            abandon_grace=int(env.get("SPELTAFEL_ABANDON_GRACE", d.abandon_grace)),
            resend_after=float(env.get("SPELTAFEL_OUTBOX_RESEND_AFTER", d.resend_after)),
            requeue_after=float(env.get("SPELTAFEL_FAILED_REQUEUE_AFTER", d.requeue_after)),
            requeue_max=float(env.get("SPELTAFEL_FAILED_REQUEUE_MAX", d.requeue_max)),
            check_interval=float(env.get("SPELTAFEL_RELAY_CHECK_INTERVAL", d.check_interval)),
            retention=float(env.get("SPELTAFEL_DELIVERY_RETENTION", d.retention)),
            prune_every=float(env.get("SPELTAFEL_DELIVERY_PRUNE_EVERY", d.prune_every)),
        )

    def retry(self) -> Retry | None:
        return Retry(max=len(self.retry_intervals), interval=list(self.retry_intervals)) if self.retry_intervals else None


def job_id(schema: str, row_id: int) -> str:
    return f"{schema}-outbox-{row_id}"


def _enqueue(redis: Redis, schema: str, rows: Sequence[tuple[Any, ...]], delivery: Delivery) -> None:
    """Enqueue (or re-create) the jobs of ``(id, queue, job, message)`` rows in one pipeline."""
    with redis.pipeline() as pipe:
        for row_id, queue_name, job, message, *_ in rows:
            Queue(queue_name, connection=redis).enqueue_call(
                job,
                args=(message,),
                job_id=job_id(schema, row_id),
                pipeline=pipe,
                timeout=delivery.job_timeout,
                result_ttl=RESULT_TTL,
                failure_ttl=FAILURE_TTL,
                retry=delivery.retry(),
            )
        pipe.execute()


def relay_once(
    pool: ConnectionPool, schema: str, redis: Redis, batch: int = 100, delivery: Delivery | None = None
) -> int:
    """Enqueue up to ``batch`` pending rows of ``schema``'s outbox; returns how many went out.

    Raises the Redis error when Redis is down; the rows then stay pending for the next round, with
    ``attempts`` and ``last_error`` recorded.
    """
    delivery = delivery or Delivery.from_env()
    s = sql.Identifier(schema)
    failure: Exception | None = None
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
        ids = [r[0] for r in rows]
        try:
            _enqueue(redis, schema, rows, delivery)
        except Exception as exc:  # recorded here, re-raised after this transaction committed
            failure = exc
            conn.execute(
                sql.SQL(
                    "UPDATE {s}.outbox SET attempts = attempts + 1, last_error = %s WHERE id = ANY(%s)"
                ).format(s=s),
                (f"{type(exc).__name__}: {exc}"[:500], ids),
            )
        else:
            conn.execute(
                sql.SQL(
                    "UPDATE {s}.outbox SET dispatched_at = now(), attempts = attempts + 1, last_error = NULL"
                    " WHERE id = ANY(%s)"
                ).format(s=s),
                (ids,),
            )
    if failure is not None:
        raise failure
    return len(rows)


@dataclass(frozen=True)
class Reconciled:
    confirmed: int = 0
    resent: int = 0


def reconcile_once(
    pool: ConnectionPool, schema: str, redis: Redis, delivery: Delivery | None = None, batch: int = 500
) -> Reconciled:
    """Confirm dispatched rows whose job finished; re-send those whose job is missing from Redis
    ``resend_after`` seconds after dispatch. Jobs still queued, scheduled, running or failed are left
    to RQ and the sweeper. Checks the least recently checked rows first."""
    delivery = delivery or Delivery.from_env()
    s = sql.Identifier(schema)
    with pool.connection() as conn, conn.transaction():
        rows = conn.execute(
            sql.SQL(
                "SELECT id, queue, job, message, dispatched_at <= now() - make_interval(secs => %s)"
                " FROM {s}.outbox WHERE dispatched_at IS NOT NULL AND confirmed_at IS NULL"
                " ORDER BY checked_at NULLS FIRST, id LIMIT %s FOR UPDATE SKIP LOCKED"
            ).format(s=s),
            (delivery.resend_after, batch),
        ).fetchall()
        if not rows:
            return Reconciled()
        jobs = Job.fetch_many([job_id(schema, r[0]) for r in rows], connection=redis)
        confirmed = [r[0] for r, job in zip(rows, jobs, strict=True)
                     if job is not None and job.get_status(refresh=False) == JobStatus.FINISHED]
        missing = [r for r, job in zip(rows, jobs, strict=True) if job is None and r[4]]
        if missing:
            _enqueue(redis, schema, missing, delivery)
            log.warning("outbox %s: re-sent %d message(s) whose job was missing from Redis: %s",
                        schema, len(missing), [r[0] for r in missing])
            conn.execute(
                sql.SQL(
                    "UPDATE {s}.outbox SET dispatched_at = now(), resent = resent + 1, attempts = attempts + 1"
                    " WHERE id = ANY(%s)"
                ).format(s=s),
                ([r[0] for r in missing],),
            )
        if confirmed:
            conn.execute(
                sql.SQL("UPDATE {s}.outbox SET confirmed_at = now() WHERE id = ANY(%s)").format(s=s), (confirmed,)
            )
        conn.execute(
            sql.SQL("UPDATE {s}.outbox SET checked_at = now() WHERE id = ANY(%s)").format(s=s), ([r[0] for r in rows],)
        )
    return Reconciled(len(confirmed), len(missing))


@dataclass(frozen=True)
class Pruned:
    outbox: int = 0  # confirmed outbox rows deleted
    processed: int = 0  # processed-message records deleted


def prune_once(pool: ConnectionPool, schema: str, retention: float) -> Pruned:
    """Delete what delivery no longer needs, ``retention`` seconds on: outbox rows confirmed that long
    ago (their job finished; nothing re-sends a confirmed row) and consumers' records of messages
    processed that long ago. A message comes again only by an RQ retry, a re-send of an unconfirmed row
    or a failed job's requeue (minutes apart; RQ drops a failed job after FAILURE_TTL, the default
    retention), so a record that old guards against nothing. Rows not yet dispatched or confirmed stay,
    whatever their age: ``outbox_stats`` shows them. Two statements in one transaction; no index on the
    times (none is worth its cost on every write for a delete every ``prune_every`` seconds)."""
    s = sql.Identifier(schema)
    with pool.connection() as conn, conn.transaction():
        outbox_rows = conn.execute(
            sql.SQL("DELETE FROM {s}.outbox WHERE confirmed_at < now() - make_interval(secs => %s)").format(s=s),
            (retention,),
        ).rowcount
        processed = conn.execute(
            sql.SQL(
                "DELETE FROM {s}.processed_messages WHERE processed_at < now() - make_interval(secs => %s)"
            ).format(s=s),
            (retention,),
        ).rowcount
    return Pruned(outbox_rows, processed)


@dataclass(frozen=True)
class Swept:
    retried: int = 0  # due retries enqueued
    requeued: int = 0  # failed jobs requeued


def sweep_jobs(redis: Redis, queues: Sequence[str], delivery: Delivery | None = None) -> Swept:
    """Keep every job of ``queues`` moving, whatever happened to the workers:

    1. jobs of killed workers (expired in the started registry) go to RQ's abandoned-job handling:
       retried when they have retries left, else moved to the failed registry;
    2. retries that are due are enqueued (as RQ's scheduler does; a killed worker's scheduler keeps
       its lock for a minute, so the relay does not wait for it);
    3. each job of the failed registries is requeued once it has been seen failed for
       ``requeue_after`` seconds, doubled per earlier requeue up to ``requeue_max``.
    """
    delivery = delivery or Delivery.from_env()
    now = time.time()
    retried = requeued = 0
    for name in queues:
        queue = Queue(name, connection=redis)
        queue.started_job_registry.cleanup()
        scheduled = queue.scheduled_job_registry
        for due_id in scheduled.get_jobs_to_schedule(int(now)):
            if not redis.zrem(scheduled.key, due_id):
                continue  # RQ's scheduler took it
            with contextlib.suppress(NoSuchJobError):
                queue.enqueue_job(Job.fetch(due_id, connection=redis))
                retried += 1
        failed = queue.failed_job_registry
        for failed_id in failed.get_job_ids():
            try:
                job = Job.fetch(failed_id, connection=redis)
            except NoSuchJobError:
                failed.remove(failed_id)
                continue
            requeues = int(job.meta.get("speltafel_requeues", 0))
            delay = min(delivery.requeue_after * 2**requeues, delivery.requeue_max)
            seen = job.meta.get("speltafel_failed_seen")
            if seen is None:
                job.meta["speltafel_failed_seen"] = seen = now
                job.save_meta()  # type: ignore[no-untyped-call]
            if now - float(seen) < delay:
                continue
            job.meta.pop("speltafel_failed_seen", None)
            job.meta["speltafel_requeues"] = requeues + 1
            job.save_meta()  # type: ignore[no-untyped-call]
            try:
                failed.requeue(job)
            except InvalidJobOperation:  # requeued by another sweeper meanwhile
                continue
            requeued += 1
            log.warning("requeued failed job %s on %s (requeue %d)", job.id, name, requeues + 1)
    return Swept(retried, requeued)


class ConsumerWorker(SimpleWorker):
    """RQ's SimpleWorker, declaring a running job abandoned ``abandon_grace`` seconds after its timeout
    (instead of a minute), so the job of a killed worker comes back soon."""

    def __init__(self, *args: Any, abandon_grace: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.abandon_grace = Delivery.from_env().abandon_grace if abandon_grace is None else abandon_grace

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        if job.timeout is None or job.timeout < 0:
            return super().get_heartbeat_ttl(job, working_time)
        return int(job.timeout) + self.abandon_grace


def outbox_lag(pool: ConnectionPool, schema: str) -> tuple[int, float]:
    """(pending rows, age in seconds of the oldest pending row)."""
    stats = outbox_stats(pool, schema)
    return int(stats["outbox_pending"]), stats["outbox_oldest_seconds"]


def outbox_stats(pool: ConnectionPool, schema: str) -> dict[str, float]:
    """Pending rows and the age of the oldest, pending rows whose last relay attempt failed, and
    dispatched rows not yet confirmed and the age of the oldest of those."""
    with pool.connection() as conn:
        row = conn.execute(
            sql.SQL(
                "SELECT count(*) FILTER (WHERE dispatched_at IS NULL),"
                " coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE dispatched_at IS NULL)), 0),"
                " count(*) FILTER (WHERE dispatched_at IS NULL AND last_error IS NOT NULL),"
                " count(*) FILTER (WHERE dispatched_at IS NOT NULL),"
                " coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE dispatched_at IS NOT NULL)), 0)"
                " FROM {s}.outbox WHERE confirmed_at IS NULL"
            ).format(s=sql.Identifier(schema))
        ).fetchone()
    values = [float(v) for v in row] if row else [0.0] * 5
    names = ("outbox_pending", "outbox_oldest_seconds", "outbox_failing", "outbox_unconfirmed",
             "outbox_oldest_unconfirmed_seconds")
    return dict(zip(names, values, strict=True))


def job_counts(redis: Redis, queues: Sequence[str]) -> dict[str, float]:
    """Per queue: jobs waiting, failed (in the failed registry) and scheduled (waiting for a retry)."""
    out: dict[str, float] = {}
    with redis.pipeline(transaction=False) as pipe:
        for name in queues:
            queue = Queue(name, connection=redis)
            pipe.llen(queue.key)
            pipe.zcard(queue.failed_job_registry.key)
            pipe.zcard(queue.scheduled_job_registry.key)
        counts = pipe.execute()
    for i, name in enumerate(queues):
        depth, failed, scheduled = counts[3 * i: 3 * i + 3]
        out |= {f"queue_depth_{name}": float(depth), f"failed_jobs_{name}": float(failed),
                f"scheduled_jobs_{name}": float(scheduled)}
    return out


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
    queues: Sequence[str] = (),
    delivery: Delivery | None = None,
) -> None:
    """Relay loop for several schemas until ``stop()`` is true: dispatch pending rows every round;
    every ``check_interval`` also confirm / re-send dispatched rows and sweep the jobs of ``queues``;
    every ``prune_every`` (and at the start) delete what delivery no longer needs (``prune_once``)."""
    delivery = delivery or Delivery.from_env()
    next_check = next_prune = 0.0
    while not stop():
        moved = 0
        for schema in schemas:
            try:
                moved += relay_once(pool, schema, redis, delivery=delivery)
            except Exception as exc:  # keep relaying; rows stay pending (attempts, last_error recorded)
                log.warning("outbox relay for %s failed: %s", schema, exc)
                time.sleep(1.0)
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + delivery.check_interval
            for schema in schemas:
                try:
                    reconcile_once(pool, schema, redis, delivery)
                except Exception as exc:
                    log.warning("outbox confirmation for %s failed: %s", schema, exc)
            try:
                sweep_jobs(redis, queues, delivery)
            except Exception as exc:
                log.warning("failed-job sweep failed: %s", exc)
        if time.monotonic() >= next_prune:
            next_prune = time.monotonic() + delivery.prune_every
            for schema in schemas:
                try:
                    pruned = prune_once(pool, schema, delivery.retention)
                except Exception as exc:
                    log.warning("outbox pruning for %s failed: %s", schema, exc)
                    continue
                if pruned.outbox or pruned.processed:
                    log.info("outbox %s: deleted %d confirmed row(s) and %d processed-message record(s)"
                             " older than %g s", schema, pruned.outbox, pruned.processed, delivery.retention)
        if not moved:
            time.sleep(idle_sleep)
