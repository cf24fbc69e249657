"""Job functions for queue tests (one records the message id it received; the others wrap the ratings
consumer to hang or fail on cue), and the helpers that run and clean up the workers' side in tests."""

from __future__ import annotations

from typing import Any

from rq import get_current_job


def record_message(message: dict[str, Any]) -> None:
    job = get_current_job()
    assert job is not None
    job.connection.rpush("test:received", message["message_id"])


def hold_first_run_then_rate(message: dict[str, Any]) -> str:
    """The ratings consumer, except that its first run announces itself and then hangs (so a test can
    SIGKILL the worker in the middle of the job)."""
    import time

    from services.ratings.entrypoints.jobs import handle_message

    job = get_current_job()
    assert job is not None
    if job.connection.set(f"test:held:{message['message_id']}", 1, nx=True):
        job.connection.rpush("test:started", message["message_id"])
        time.sleep(60)
    return handle_message(message)


def rate_unless_database_down(message: dict[str, Any]) -> str:
    """The ratings consumer, failing like a PostgreSQL outage while the key ``test:outage`` exists."""
    import psycopg

    from services.ratings.entrypoints.jobs import handle_message

    job = get_current_job()
    assert job is not None
    job.connection.incr("test:runs")
    if job.connection.exists("test:outage"):
        raise psycopg.OperationalError("connection failed: the database system is shutting down")
    return handle_message(message)


def close_cached_services() -> None:
    """Close and forget the services the job modules keep for their worker process (games, matchmaking,
    ratings), so that the next job builds one on the next test's settings. Their pools are closed here,
    not dropped to the garbage collector, which may run a pool's ``__del__`` in one of that pool's own
    threads ("cannot join current thread")."""
    from services.games.entrypoints import jobs as games_jobs
    from services.matchmaking.entrypoints import jobs as mm_jobs
    from services.ratings.entrypoints import jobs as ratings_jobs

    for service in [*games_jobs._SERVICES.values(), *ratings_jobs._services.values()]:
        service.uow.pool.close()
    games_jobs._SERVICES.clear()
    ratings_jobs._services.clear()
    if mm_jobs._service.cache_info().currsize:
        mm_jobs._service().uow.pool.close()
    mm_jobs._service.cache_clear()


def failure_of(job: Any) -> str:
    """The traceback of a job's latest run when it failed, else '' (for assertion messages and
    post-mortems: rq 2+ keeps it in the job's results; ``job.exc_info`` is deprecated and warns)."""
    result = job.latest_result() if job is not None else None
    return (result.exc_string or "") if result is not None and result.type == result.Type.FAILED else ""


def work_off(queue: Any) -> None:
    """Run the queue's jobs with a burst worker, as a worker process would; no job may fail (the
    assertion names each failed job with its traceback)."""
    from rq import SimpleWorker

    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    failed = queue.failed_job_registry.get_job_ids()
    assert not failed, {job_id: failure_of(queue.fetch_job(job_id)) for job_id in failed}
