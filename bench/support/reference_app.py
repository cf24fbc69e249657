"""The bare reference endpoint of ``bench/reference.py``: Flask under the same server as the games
service (``bench/common.py``), doing what a minimal write endpoint does: one single-row INSERT into
PostgreSQL (its own transaction) and one RQ enqueue. POST move is measured as a ratio to this."""

from __future__ import annotations

import json
import os
from typing import Any

from flask import Flask, request
from redis import Redis
from rq import Queue

from shared.db import make_pool

TABLE = "CREATE TABLE public.bench_reference (id BIGSERIAL PRIMARY KEY, body JSONB NOT NULL)"  # made by the bench


def noop(_: Any) -> None:
    """The enqueued job (no worker runs it in the benchmark)."""


def app() -> Flask:
    pool = make_pool(os.environ["DATABASE_URL"], max_size=16)
    queue = Queue("bench-reference", connection=Redis.from_url(os.environ["REDIS_URL"]))
    flask = Flask("reference")

    @flask.post("/ref")
    def ref() -> tuple[dict[str, Any], int]:
        body = request.get_json()
        with pool.connection() as conn:
            row = conn.execute(
                "INSERT INTO public.bench_reference (body) VALUES (%s::jsonb) RETURNING id", (json.dumps(body),)
            ).fetchone()
            conn.commit()
        assert row is not None
        queue.enqueue("bench.support.reference_app.noop", row[0])
        return {"id": row[0]}, 201

    return flask
