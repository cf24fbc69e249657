"""A running game's question is not reachable through the public questions API (issue 14.1):
grading a game's question is the games service's job (CH-14, from the key recorded in its log),
its id is not computable from the game id, and a practice draw with the game's selector does not
serve the game's question. Real PostgreSQL and Redis."""

from __future__ import annotations

import uuid
from typing import Any

from flask.testing import FlaskClient
from psycopg_pool import ConnectionPool
from redis import Redis

from services.questions.domain.model import NAMESPACE
from tests.integration.questions.test_queue import (
    body,
    env,
    pool,
    replies,
    request_message,
    send,
    work_and_relay,
)

__all__ = ["env", "pool"]  # fixtures


def _game_question(redis: Redis, pools: ConnectionPool, **kw: Any) -> dict[str, Any]:
    request = body(game_id=str(uuid.uuid4()), **kw)
    send(redis, request_message(request))
    assert work_and_relay(redis, pools) == 1
    (reply,) = [r for r in replies(redis) if r["body"]["game_id"] == request["game_id"]]
    return {"request": request, "question": reply["body"]["question"]}


def test_CH14_public_answer_refuses_a_games_question(
    env: None, redis_client: Redis, pool: ConnectionPool, client: FlaskClient
) -> None:
    game = _game_question(redis_client, pool, request_no=5, city="groningen", category=5, selector=7)
    question, request = game["question"], game["request"]
    legacy = str(uuid.uuid5(NAMESPACE, f"question/{request['game_id']}/{request['request_no']}"))
    for qid in (question["id"], legacy):
        r = client.post(f"/v1/questions/{qid}/answer", json={"answer": {"option": "true"}})
        assert r.status_code in (403, 404), r.json
        assert r.headers["Content-Type"] == "application/problem+json"
        assert "reveal" not in r.json and "key" not in r.get_data(as_text=True)
        looked = client.get(f"/v1/questions/{qid}")
        assert looked.status_code in (403, 404) and looked.headers["Content-Type"] == "application/problem+json"
    assert question["id"] != legacy  # not derivable from the game id and request number
    with pool.connection() as conn:
        (answered,) = conn.execute("SELECT count(*) FROM questions.drawn WHERE answered_at IS NOT NULL").fetchone()
    assert answered == 0  # nothing was graded


def test_CH14_practice_draw_with_a_games_selector_does_not_serve_the_games_question(
    env: None, redis_client: Redis, pool: ConnectionPool, client: FlaskClient
) -> None:
    same = 0
    for no in range(24):
        game = _game_question(redis_client, pool, request_no=no, city="stadskanaal", category=3, selector=no * 7919)
        practice = client.post(
            "/v1/questions/draw", json={"city": "stadskanaal", "category": 3, "selector": no * 7919}
        ).json
        shown = [o["text"] for o in practice["question"]["options"]]
        graded = client.post(
            f"/v1/questions/{practice['question_id']}/answer", json={"answer": {"option": "a"}}
        ).json  # a practice draw may reveal its own key
        right_text = next(o["text"] for o in practice["question"]["options"] if o["id"] == graded["reveal"]["answer"])
        game_right = next(o["text"] for o in game["question"]["options"] if o["id"] == game["question"]["key"]["option"])
        same += shown == [o["text"] for o in game["question"]["options"]] and right_text == game_right
    assert same <= 6  # by coincidence about 24 / 18; it was 24 out of 24
