"""Nothing accepted is lost under queue and worker faults (issue 14 items 2, 4, 9): relay failures are
recorded, consumers retry with backoff, failed and abandoned jobs come back, a Redis that lost its data
gets every unconfirmed message again, and /metrics shows the delivery gauges. Real PostgreSQL and Redis;
a test that restarts Redis starts its own redis-server."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.results import Result

from services.ratings.entrypoints import jobs as ratings_jobs
from shared import outbox
from shared.db import make_pool
from shared.eventstore.model import NewEvent, OutboxMessage
from shared.eventstore.postgres import PostgresEventStore
from shared.messages import ROUTES, outbox_for
from tests.support.servers import PrivateRedis
from tests.unit.ratings.factories import envelope, finished

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
HOLD = "tests.support.jobs.hold_first_run_then_rate"
FLAKY = "tests.support.jobs.rate_unless_database_down"


CONSUMERS = len(ROUTES["GameFinished"])  # ratings, matchmaking, questions
QUEUES = tuple(queue for queue, _ in ROUTES["GameFinished"])


def query(database_url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute(sql, args).fetchall()


def games_played(database_url: str) -> dict[str, int]:
    return {r[0]: r[1] for r in query(database_url, "SELECT player_id, games_played FROM ratings.current")}


def new_game(n: int = 2) -> dict[str, Any]:
    return finished("klapper", [str(uuid.uuid4()) for _ in range(n)], list(range(1, n + 1)))


def publish(pool: ConnectionPool, body: dict[str, Any], job: str | None = None) -> dict[str, Any]:
    """GameFinished written as the games service does: the event and its outbox rows in one transaction
    (to the real consumers, or to ``job`` on the ratings queue)."""
    env = envelope("GameFinished", body)
    rows = outbox_for("GameFinished", env["message_id"], body) if job is None else [
        OutboxMessage("ratings", job, env)]
    PostgresEventStore(pool, "games").append(f"game-{body['game_id']}", 0, [NewEvent("GameFinished", body)], rows)
    return env


def work(redis: Redis, *queues: str, until: Any = None, seconds: float = 15.0) -> None:
    """Burst workers (with RQ's scheduler, which enqueues due retries) until ``until()`` or the time is up."""
    deadline = time.monotonic() + seconds
    while True:
        SimpleWorker([Queue(q, connection=redis) for q in queues], connection=redis).work(
            burst=True, with_scheduler=True)
        if until is None or until() or time.monotonic() > deadline:
            return
        time.sleep(0.2)


@pytest.fixture
def pool(database_url: str) -> Iterator[ConnectionPool]:
    p = make_pool(database_url, max_size=4)
    yield p
    p.close()


@pytest.fixture
def env(database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    # the worker's ratings service is cached per process; each test gets its own (and closes it)
    monkeypatch.setattr(ratings_jobs, "_services", {})
    yield monkeypatch
    for service in ratings_jobs._services.values():
        service.uow.pool.close()


def test_a_relay_failure_records_attempts_and_last_error(pool: ConnectionPool, env: pytest.MonkeyPatch,
                                                        database_url: str) -> None:
    body = new_game()
    publish(pool, body)
    down = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    for _ in range(2):
        with pytest.raises(Exception):  # noqa: B017 - the Redis connection error
            outbox.relay_once(pool, "games", down)
    rows = query(database_url, "SELECT attempts, last_error, dispatched_at FROM games.outbox")
    assert len(rows) == CONSUMERS  # one per consumer (ratings, matchmaking, questions)
    for attempts, last_error, dispatched_at in rows:
        assert attempts == 2 and dispatched_at is None
        assert last_error and "127.0.0.1:1" in last_error


def test_a_job_whose_first_run_loses_its_database_connection_is_retried_and_rates_once(
        pool: ConnectionPool, env: pytest.MonkeyPatch, redis_client: Redis, database_url: str) -> None:
    """What a PostgreSQL restart does to a worker: its pooled connection is terminated (AdminShutdown)."""
    env.setenv("SPELTAFEL_JOB_RETRY_INTERVALS", "1")
    service = ratings_jobs._service()
    # the pool's one connection is open before we take it (a request racing the opening would make the
    # pool grow a second, healthy connection that the job would then use)
    service.uow.pool.wait(timeout=10)
    with service.uow.pool.connection() as conn:
        pid = conn.info.backend_pid
    assert service.uow.pool.get_stats()["pool_size"] == 1
    query(database_url, "SELECT pg_terminate_backend(%s)", pid)
    body = new_game()
    publish(pool, body)
    assert outbox.relay_once(pool, "games", redis_client) == CONSUMERS
    work(redis_client, "ratings", until=lambda: len(games_played(database_url)) == 2)
    assert games_played(database_url) == {p: 1 for p in body["players"]}
    job = Job.fetch(f"games-outbox-{_row_id(database_url, 'ratings')}", connection=redis_client)
    assert job.retries_left == 0  # the first run failed (AdminShutdown) and its one retry rated the game
    assert [r.type for r in job.results()] == [Result.Type.SUCCESSFUL]


def _row_id(database_url: str, queue: str) -> int:
    return int(query(database_url, "SELECT id FROM games.outbox WHERE queue = %s", queue)[0][0])


def test_a_job_whose_retries_ran_out_during_an_outage_is_requeued_and_rates_once(
        pool: ConnectionPool, env: pytest.MonkeyPatch, redis_client: Redis, database_url: str) -> None:
    env.setenv("SPELTAFEL_JOB_RETRY_INTERVALS", "0")  # one immediate retry
    env.setenv("SPELTAFEL_FAILED_REQUEUE_AFTER", "0")
    redis_client.set("test:outage", 1)
    body = new_game()
    publish(pool, body, job=FLAKY)
    outbox.relay_once(pool, "games", redis_client)
    work(redis_client, "ratings")
    assert int(redis_client.get("test:runs") or 0) == 2  # the first run and its retry
    failed = Queue("ratings", connection=redis_client).failed_job_registry
    assert failed.count == 1
    redis_client.delete("test:outage")  # PostgreSQL is back
    assert outbox.sweep_jobs(redis_client, ["ratings"]).requeued == 1
    work(redis_client, "ratings", until=lambda: len(games_played(database_url)) == 2)
    assert games_played(database_url) == {p: 1 for p in body["players"]}
    assert failed.count == 0
    assert outbox.sweep_jobs(redis_client, ["ratings"]).requeued == 0
    work(redis_client, "ratings")
    assert int(redis_client.get("test:runs") or 0) == 3
    assert games_played(database_url) == {p: 1 for p in body["players"]}


@pytest.mark.parametrize("retries", ["1", ""], ids=["retried-by-rq", "requeued-from-the-failed-registry"])
def test_the_job_of_a_killed_worker_is_not_abandoned(
        pool: ConnectionPool, env: pytest.MonkeyPatch, redis_client: Redis, database_url: str,
        retries: str) -> None:
    """A worker SIGKILLed in the middle of a job: the sweeper finds the job abandoned, and it runs again
    as an RQ retry or, with no retries left (AbandonedJobError in the failed registry), requeued."""
    env.setenv("SPELTAFEL_JOB_TIMEOUT", "3")
    env.setenv("SPELTAFEL_JOB_RETRY_INTERVALS", retries)
    env.setenv("SPELTAFEL_FAILED_REQUEUE_AFTER", "0")
    body = new_game()
    publish(pool, body, job=HOLD)
    assert outbox.relay_once(pool, "games", redis_client) == 1
    worker = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "worker", "ratings"], cwd=ROOT, start_new_session=True,
        env=dict(os.environ, SPELTAFEL_ABANDON_GRACE="1"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert redis_client.blpop(["test:started"], timeout=40) is not None, "the worker never started the job"
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
    assert games_played(database_url) == {}

    def rated() -> bool:
        outbox.sweep_jobs(redis_client, ["ratings"])  # finds the abandoned job, enqueues its retry
        return len(games_played(database_url)) == 2

    work(redis_client, "ratings", until=rated, seconds=20)
    assert games_played(database_url) == {p: 1 for p in body["players"]}
    if not retries:
        job = Job.fetch(f"games-outbox-{_row_id(database_url, 'ratings')}", connection=redis_client)
        runs = sorted(job.results(), key=lambda r: r.created_at)
        assert [r.type for r in runs] == [Result.Type.FAILED, Result.Type.SUCCESSFUL]
        assert "AbandonedJobError" in (runs[0].exc_string or "")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path, persistent=False).start()
    yield server
    server.stop()


def test_after_redis_lost_its_data_the_relay_resends_and_every_game_is_rated_once(
        pool: ConnectionPool, env: pytest.MonkeyPatch, own_redis: PrivateRedis, database_url: str) -> None:
    env.setenv("REDIS_URL", own_redis.url)
    env.setenv("SPELTAFEL_OUTBOX_RESEND_AFTER", "0")
    redis = Redis.from_url(own_redis.url)
    bodies = [new_game() for _ in range(6)]
    for body in bodies:
        publish(pool, body)
    assert outbox.relay_once(pool, "games", redis) == 6 * CONSUMERS  # ratings, matchmaking and questions each
    SimpleWorker([Queue("ratings", connection=redis)], connection=redis).work(burst=True, max_jobs=3)
    assert len(games_played(database_url)) == 6  # three games rated before the crash
    own_redis.restart()  # a Redis without persistence comes back empty
    redis = Redis.from_url(own_redis.url)
    assert Queue("ratings", connection=redis).count == 0
    resent = outbox.reconcile_once(pool, "games", redis)
    assert resent.resent == 6 * CONSUMERS and resent.confirmed == 0
    work(redis, *QUEUES)
    for name in QUEUES:
        assert Queue(name, connection=redis).failed_job_registry.count == 0
    assert outbox.reconcile_once(pool, "games", redis).confirmed == 6 * CONSUMERS
    assert outbox.outbox_stats(pool, "games")["outbox_unconfirmed"] == 0
    assert games_played(database_url) == {p: 1 for body in bodies for p in body["players"]}
    assert query(database_url, "SELECT count(*) FROM ratings.history")[0][0] == 12
    assert outbox.reconcile_once(pool, "games", redis).resent == 0  # nothing re-sent once confirmed


def test_metrics_show_outbox_lag_unconfirmed_rows_and_failed_jobs(
        pool: ConnectionPool, env: pytest.MonkeyPatch, redis_client: Redis, database_url: str,
        closing: Any) -> None:
    from services.ratings.bootstrap import create_app

    env.setenv("SPELTAFEL_JOB_RETRY_INTERVALS", "0")
    redis_client.set("test:outage", 1)
    publish(pool, new_game(), job=FLAKY)
    publish(pool, new_game(), job=FLAKY)
    # ratings' own outbox: one row sent (not yet confirmed) and one still pending
    with psycopg.connect(database_url) as conn:
        conn.execute("INSERT INTO ratings.outbox (queue, job, message, dispatched_at) VALUES"
                     " ('games', 'x.y', '{}', now()), ('games', 'x.y', '{}', NULL)")
    assert outbox.relay_once(pool, "games", redis_client) == 2
    work(redis_client, "ratings")
    body = closing(create_app()).test_client().get("/metrics").get_data(as_text=True)

    def gauge(name: str) -> float:
        match = re.search(rf'speltafel_gauge\{{name="{name}",service="ratings"\}} (\S+)', body)
        assert match, f"{name} missing from /metrics: {body[-800:]}"
        return float(match.group(1))

    assert gauge("failed_jobs_ratings") == 2
    assert gauge("failed_jobs_games") == 0
    assert gauge("outbox_pending") == 1
    assert gauge("outbox_unconfirmed") == 1
    assert gauge("outbox_oldest_seconds") >= 0
    assert gauge("outbox_failing") == 0


def test_metrics_show_a_failing_relay(pool: ConnectionPool, env: pytest.MonkeyPatch, database_url: str,
                                     closing: Any) -> None:
    """A relay attempt that Redis refused is visible in /metrics (outbox_failing), and no longer once it went
    through."""
    from services.ratings.bootstrap import create_app

    with psycopg.connect(database_url) as conn:
        conn.execute("INSERT INTO ratings.outbox (queue, job, message) VALUES ('games', 'x.y', '{}')")
    down = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    with pytest.raises(Exception):  # noqa: B017 - the Redis connection error
        outbox.relay_once(pool, "ratings", down)
    app = closing(create_app())

    def gauge(name: str) -> float:
        body = app.test_client().get("/metrics").get_data(as_text=True)
        match = re.search(rf'speltafel_gauge\{{name="{name}",service="ratings"\}} (\S+)', body)
        assert match, f"{name} missing from /metrics: {body[-800:]}"
        return float(match.group(1))

    assert (gauge("outbox_failing"), gauge("outbox_pending")) == (1, 1)
    assert outbox.relay_once(pool, "ratings", Redis.from_url(os.environ["REDIS_URL"])) == 1
    assert (gauge("outbox_failing"), gauge("outbox_pending")) == (0, 0)


def test_the_embedded_redis_keeps_an_append_only_file_synced_every_second(tmp_path: Path) -> None:
    from shared.backends import start_embedded_redis

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url, stop = start_embedded_redis(tmp_path, port)
    try:
        config = Redis.from_url(url).config_get("append*")
        assert config["appendonly"] == "yes" and config["appendfsync"] == "everysec"
    finally:
        stop()


def test_the_running_relay_delivers_again_what_a_restarted_redis_lost(
        pool: ConnectionPool, env: pytest.MonkeyPatch, own_redis: PrivateRedis, database_url: str) -> None:
    """The relay loop itself (as `speltafel relay` runs it) notices the lost jobs and re-sends them."""
    import threading

    env.setenv("REDIS_URL", own_redis.url)
    env.setenv("SPELTAFEL_OUTBOX_RESEND_AFTER", "0.5")
    env.setenv("SPELTAFEL_RELAY_CHECK_INTERVAL", "0.2")
    bodies = [new_game() for _ in range(3)]
    for body in bodies:
        publish(pool, body)
    redis = Redis.from_url(own_redis.url)
    stopping = threading.Event()
    relay = threading.Thread(target=outbox.run_relay, args=(pool, ["games"], Redis.from_url(own_redis.url),
                                                            stopping.is_set), kwargs={"queues": ["ratings"]})
    relay.start()
    try:
        deadline = time.monotonic() + 10
        while outbox.outbox_stats(pool, "games")["outbox_pending"] and time.monotonic() < deadline:
            time.sleep(0.05)
        own_redis.restart()  # every dispatched job is gone
        want = {p: 1 for body in bodies for p in body["players"]}
        work(redis, *QUEUES, until=lambda: games_played(database_url) == want)
        assert games_played(database_url) == want
        deadline = time.monotonic() + 10
        while outbox.outbox_stats(pool, "games")["outbox_unconfirmed"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert outbox.outbox_stats(pool, "games")["outbox_unconfirmed"] == 0
        assert query(database_url, "SELECT count(*) FROM games.outbox WHERE resent > 0")[0][0] == 3 * CONSUMERS
    finally:
        stopping.set()
        relay.join(10)


def test_the_relay_deletes_confirmed_rows_and_processed_records_once_the_retention_has_passed(
        pool: ConnectionPool, env: pytest.MonkeyPatch, redis_client: Redis, database_url: str) -> None:
    """The tables of delivery hold a week, not everything ever sent: once a run of the relay loop finds
    outbox rows confirmed more than ``SPELTAFEL_DELIVERY_RETENTION`` ago (7 days, as long as RQ keeps a
    failed job) and consumers' records of messages processed that long ago, it deletes them. Newer ones
    stay, and so does a row not yet confirmed, however old: its message may still have to be sent."""
    old, recent = publish(pool, new_game()), publish(pool, new_game())
    assert outbox.relay_once(pool, "games", redis_client) == 2 * CONSUMERS
    work(redis_client, *QUEUES)
    assert outbox.reconcile_once(pool, "games", redis_client).confirmed == 2 * CONSUMERS
    unsent = publish(pool, new_game())
    assert outbox.relay_once(pool, "games", redis_client) == CONSUMERS  # sent; no worker runs its jobs
    week_and_a_day = "interval '8 days'"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            f"UPDATE games.outbox SET created_at = created_at - {week_and_a_day},"
            f" dispatched_at = dispatched_at - {week_and_a_day}, confirmed_at = confirmed_at - {week_and_a_day}"
            " WHERE message->>'message_id' = %s", (old["message_id"],))
        # sent a week ago and not confirmed (its jobs still wait, as behind a worker that is down): it stays
        conn.execute(
            f"UPDATE games.outbox SET created_at = created_at - {week_and_a_day},"
            f" dispatched_at = dispatched_at - {week_and_a_day}"
            " WHERE message->>'message_id' = %s", (unsent["message_id"],))
        for schema in QUEUES:
            conn.execute(f"UPDATE {schema}.processed_messages SET processed_at = processed_at - {week_and_a_day}"
                         " WHERE message_id = %s", (old["message_id"],))

    def outbox_rows(env_: dict[str, Any]) -> int:
        return int(query(database_url, "SELECT count(*) FROM games.outbox WHERE message->>'message_id' = %s",
                         env_["message_id"])[0][0])

    def records(env_: dict[str, Any]) -> dict[str, int]:
        return {schema: query(database_url, f"SELECT count(*) FROM {schema}.processed_messages"
                              " WHERE message_id = %s", env_["message_id"])[0][0] for schema in QUEUES}

    assert outbox_rows(old) == CONSUMERS and records(old) == dict.fromkeys(QUEUES, 1)
    rounds = iter([False, True])  # one round of the loop, which prunes on its first
    outbox.run_relay(pool, ["games", *QUEUES], redis_client, lambda: next(rounds), queues=QUEUES)
    assert outbox_rows(old) == 0 and records(old) == dict.fromkeys(QUEUES, 0)
    assert outbox_rows(recent) == CONSUMERS and records(recent) == dict.fromkeys(QUEUES, 1)
    assert outbox_rows(unsent) == CONSUMERS
    assert outbox.outbox_stats(pool, "games")["outbox_unconfirmed"] == CONSUMERS
