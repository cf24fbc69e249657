"""Questions through the queue (issue item 7): QuestionRequested on "questions" -> worker -> outbox ->
relay -> QuestionDrawn on "games", over the real PostgreSQL and Redis."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from psycopg_pool import ConnectionPool
from redis import Redis
from rq import Queue, SimpleWorker
from rq.registry import FailedJobRegistry

from services.questions.entrypoints import jobs
from shared.cityhopper.grading import grade
from shared.cityhopper.provider import draw_for_request
from shared.cityhopper.questions import sample_pack
from shared.db import make_pool
from shared.messages import ROUTES
from shared.outbox import relay_once
from tests.integration.questions.conftest import club_pack

pytestmark = pytest.mark.integration

JOB = "services.questions.entrypoints.jobs.handle_message"
GAMES_JOB = "services.games.entrypoints.jobs.handle_message"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, database_url: str, redis_url: str) -> Iterator[None]:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("ROUTING_BACKEND", "estimate")
    yield
    for svc in jobs._SERVICES.values():
        svc.uow.pool.close()  # type: ignore[attr-defined]
    jobs._SERVICES.clear()


@pytest.fixture
def pool(database_url: str) -> Iterator[ConnectionPool]:
    pool = make_pool(database_url, max_size=2)
    yield pool
    pool.close()


def request_message(body: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
    return {"message_id": message_id or str(uuid.uuid4()), "type": "QuestionRequested", "body": body}


def send(redis: Redis, message: dict[str, Any]) -> None:
    """What the games service's relay does with its outbox row (shared.messages.ROUTES)."""
    ((queue, job),) = ROUTES["QuestionRequested"]
    assert (queue, job) == ("questions", JOB)
    Queue(queue, connection=redis).enqueue_call(job, args=(message,))


def work_and_relay(redis: Redis, pool: ConnectionPool) -> int:
    SimpleWorker([Queue("questions", connection=redis)], connection=redis).work(burst=True)
    return relay_once(pool, "questions", redis)


def replies(redis: Redis) -> list[dict[str, Any]]:
    queue = Queue("games", connection=redis)
    out = []
    for job in queue.get_jobs():
        assert job.func_name == GAMES_JOB
        (message,) = job.args
        assert message["type"] == "QuestionDrawn"
        out.append(message)
    return out


def body(**kw: Any) -> dict[str, Any]:
    base = {"game_id": "g-1", "request_no": 1, "city": "groningen", "category": 5, "yellow_city": None, "selector": 0}
    return {**base, **kw}


def test_question_requested_comes_back_as_question_ready(env: None, redis_client: Redis, pool: ConnectionPool) -> None:
    request = body(game_id=str(uuid.uuid4()), request_no=3, selector=12345)
    send(redis_client, request_message(request))
    assert work_and_relay(redis_client, pool) == 1
    (reply,) = replies(redis_client)
    got = reply["body"]
    uuid.UUID(got["question"]["id"])  # an opaque id chosen by the service
    expected = draw_for_request(sample_pack().served(), request, question_id=got["question"]["id"])
    assert got == expected
    assert got["game_id"] == request["game_id"] and got["request_no"] == 3
    assert got["generated"] is False and got["reason"].startswith("bank:")
    question = got["question"]
    assert question["category"] == "FACTS" and question["city"] == "groningen"
    assert question["key"] == {"option": "true"} and "reveal" in question
    assert question["pack"] == {"id": "speltafel-sample", "version": "1", "hash": sample_pack().content_hash}
    assert grade(question, {"option": "true"}).correct
    with pool.connection() as conn:
        stored = conn.execute(
            "SELECT question, generated, game_id, request_no FROM questions.drawn"
        ).fetchall()
    assert stored == [(question, False, request["game_id"], 3)]


def test_category_names_and_the_distance_category(env: None, redis_client: Redis, pool: ConnectionPool) -> None:
    send(redis_client, request_message(body(request_no=1, category="road_distance", city="assen", yellow_city="zwolle")))
    send(redis_client, request_message(body(request_no=2, category=1, city="assen", yellow_city="assen")))
    assert work_and_relay(redis_client, pool) == 2
    by_no = {r["body"]["request_no"]: r["body"] for r in replies(redis_client)}
    distance = by_no[1]["question"]
    assert distance["category"] == "ROAD_DISTANCE" and distance["yellow_city"] == "zwolle"
    assert by_no[1]["generated"] is True and distance["pack"] is None
    assert distance["key"]["km"] == distance["reveal"]["route"]["km"] > 0
    same = by_no[2]["question"]
    assert same["key"]["km"] == 0 and grade(same, {}).correct


def test_no_bank_question_falls_back_to_a_generated_category(env: None, redis_client: Redis, pool: ConnectionPool) -> None:
    send(redis_client, request_message(body(category="MAYOR", city="groningen")))
    send(redis_client, request_message(body(request_no=2, category=6, city="lauwersoog")))
    work_and_relay(redis_client, pool)
    by_no = {r["body"]["request_no"]: r["body"] for r in replies(redis_client)}
    assert by_no[1]["generated"] is True and by_no[1]["question"]["category"] == "INHABITANTS"
    assert "no MAYOR question for groningen" in by_no[1]["reason"]
    # Lauwersoog has no population and no yellow card was drawn: the province question (FACTS)
    assert by_no[2]["question"]["category"] == "FACTS" and "province" in by_no[2]["reason"]


def test_repeated_request_replies_with_the_same_question(env: None, redis_client: Redis, pool: ConnectionPool) -> None:
    first = request_message(body(city="leiden", category="FACTS", selector=0))
    send(redis_client, first)
    work_and_relay(redis_client, pool)
    (reply1,) = replies(redis_client)
    assert reply1["body"]["generated"] is True  # the sample pack has no FACTS for leiden

    # the bank changes (a pack with a FACTS question for leiden), then the same request comes again:
    # once redelivered with the same message id (nothing happens) and once re-sent with a new id
    svc = jobs._service()
    svc.import_pack(json.dumps(club_pack()).encode(), "application/json")
    send(redis_client, first)
    assert work_and_relay(redis_client, pool) == 0
    send(redis_client, request_message(body(city="leiden", category="FACTS", selector=0)))
    assert work_and_relay(redis_client, pool) == 1
    reply1_again, reply2 = replies(redis_client)
    assert reply1_again == reply1
    assert reply2["body"] == reply1["body"] and reply2["message_id"] != reply1["message_id"]
    # a new request number draws from the new bank
    send(redis_client, request_message(body(request_no=2, city="leiden", category="FACTS", selector=0)))
    work_and_relay(redis_client, pool)
    latest = replies(redis_client)[-1]["body"]
    assert latest["generated"] is False and latest["question"]["pack"]["id"] == "club-test"
    with pool.connection() as conn:
        count = conn.execute("SELECT count(*) FROM questions.drawn").fetchone()
    assert count == (2,)


def test_malformed_request_fails_the_job_and_replies_nothing(env: None, redis_client: Redis, pool: ConnectionPool) -> None:
    send(redis_client, request_message(body(city="atlantis")))
    assert work_and_relay(redis_client, pool) == 0
    failed = FailedJobRegistry("questions", connection=redis_client)
    assert len(failed.get_job_ids()) == 1
    job = Queue("questions", connection=redis_client).fetch_job(failed.get_job_ids()[0])
    assert job is not None and "city" in (job.latest_result().exc_string or "")  # type: ignore[union-attr]
    assert replies(redis_client) == []
