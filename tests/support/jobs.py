"""A job function for queue tests: records the message id it received."""

from __future__ import annotations

from typing import Any

from rq import get_current_job


def record_message(message: dict[str, Any]) -> None:
    job = get_current_job()
    assert job is not None
    job.connection.rpush("test:received", message["message_id"])
