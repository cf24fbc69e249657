"""Job functions for queue tests: one records the message id it received; the others wrap the ratings
consumer to hang or fail on cue."""

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
