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
from rq import Queue

from services.questions.domain.model import NAMESPACE
from shared.messages import ROUTES
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


def send_ended(redis: Redis, message: dict[str, Any]) -> None:
    """What the games service's relay does with a GameFinished / GameAborted row for the questions queue."""
    (job,) = [job for queue, job in ROUTES[message["type"]] if queue == "questions"]
    Queue("questions", connection=redis).enqueue_call(job, args=(message,))


def _game_question(redis: Redis, pools: ConnectionPool, **kw: Any) -> dict[str, Any]:
    request = body(**{"game_id": str(uuid.uuid4()), **kw})
    send(redis, request_message(request))
    assert work_and_relay(redis, pools) == 1
    (reply,) = [r for r in replies(redis)
                if (r["body"]["game_id"], r["body"]["request_no"]) == (request["game_id"], request["request_no"])]
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


def _facts_pack(city: str, count: int) -> dict[str, Any]:
    """``count`` true/false FACTS questions about ``city``, each with its own prompt."""
    return {
        "pack": {"id": "club-facts", "version": "1", "title": "Feiten", "licence": "CC-BY-4.0",
                 "attribution": "test", "sample": False},
        "questions": [
            {"id": f"facts:{city}:club-{k}", "category": "FACTS", "city": city, "format": "true_false",
             "prompt": f"Stelling {k} over {city}.", "answer": "true" if k % 2 else "false", "info": f"Feit {k}."}
            for k in range(count)
        ],
    }


def _practice_keys(client: FlaskClient, city: str, tries: int) -> dict[str, str | None]:
    """What an attacker learns by practice: prompt -> the key (None: answering was refused)."""
    learnt: dict[str, str | None] = {}
    for selector in range(tries):
        drawn = client.post("/v1/questions/draw", json={"city": city, "category": "FACTS", "selector": selector}).json
        graded = client.post(f"/v1/questions/{drawn['question_id']}/answer", json={"answer": {"option": "true"}})
        key = graded.json["reveal"]["answer"] if graded.status_code == 200 else None
        if graded.status_code != 200:
            assert graded.status_code == 409 and "reveal" not in graded.json, graded.json
            assert graded.headers["Content-Type"] == "application/problem+json"
        learnt.setdefault(drawn["question"]["prompt"], key)
    return learnt


def test_CH14_practice_cannot_reveal_the_key_of_a_question_a_running_game_waits_on(
    env: None, redis_client: Redis, pool: ConnectionPool, client: FlaskClient
) -> None:
    """The bank is shared with practice: trying selectors and answering would reveal every key, so while a
    game waits on a question, practice neither serves it nor grades a copy drawn before; it is released when
    the game asks its next question or ends (GameFinished / GameAborted reach the questions queue)."""
    from tests.integration.questions.conftest import AUTH

    city = "harlingen"
    assert client.post("/v1/packs", json=_facts_pack(city, 3), headers=AUTH).status_code == 201
    early = client.post("/v1/questions/draw", json={"city": city, "category": "FACTS", "selector": 0}).json
    games = [_game_question(redis_client, pool, request_no=1, city=city, category=5, selector=s) for s in range(3)]
    waiting = {g["question"]["prompt"]: g for g in games}
    learnt = _practice_keys(client, city, 30)
    leaked = [p for p, key in learnt.items() if p in waiting and key is not None]
    print(f"practice while {len(waiting)} question(s) wait: served {len(learnt)} prompt(s), keys of waiting ones={leaked}")
    assert leaked == [], "a practice answer revealed the key of a question a running game waits on"
    if early["question"]["prompt"] in waiting:  # drawn before the game asked: answering it now is refused
        late = client.post(f"/v1/questions/{early['question_id']}/answer", json={"answer": {"option": "true"}})
        assert late.status_code == 409 and "reveal" not in late.json
    # the games move on: one asks its next question, the others end
    first, *ended = games
    _game_question(redis_client, pool, request_no=2, city="leiden", category=5, selector=1,
                   game_id=first["request"]["game_id"])
    for n, game in enumerate(ended):
        kind = "GameFinished" if n == 0 else "GameAborted"
        send_ended(redis_client, {"message_id": f"{game['request']['game_id']}:{kind}", "type": kind,
                                  "body": {"game_id": game["request"]["game_id"]}})
    assert work_and_relay(redis_client, pool) == 0  # consumed; nothing to reply
    released = _practice_keys(client, city, 30)
    assert all(released.get(p) is not None for p in waiting), released  # practice may reveal them again
