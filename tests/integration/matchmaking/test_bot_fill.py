"""Matchmaking fills a ticket that allows bots once it waited MATCHMAKING_BOT_FILL_AFTER (issue 18):
the games service creates the table with bot accounts in the other seats, over the real queues."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from flask import Flask
from redis import Redis

from services.matchmaking.domain.matching import MatchPolicy, Ticket, bot_tables
from tests.integration.matchmaking.test_matchmaking_flow import (  # noqa: F401  (fixtures)
    app,
    bearer,
    env,
    make_app,
    players,
    pool,
    pump,
    redis,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def bot_app(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, closing: Any) -> Flask:  # noqa: F811
    monkeypatch.setenv("MATCHMAKING_BOT_FILL_AFTER", "1")
    monkeypatch.setenv("BOTS_SECRET", "test-bots-secret")
    return closing(make_app(env))


def test_a_lone_ticket_that_allows_bots_is_filled_after_the_wait(bot_app: Flask, pool: Any, redis: Redis) -> None:  # noqa: F811
    client = bot_app.test_client()
    (human, token), (_other, other_token) = players(pool, 2)
    body = {"game_type": "klapper", "player_counts": [4], "allow_bots": True, "bot_level": "random"}
    ticket = client.post("/v1/tickets", json=body, headers=bearer(token)).get_json()
    assert ticket["status"] == "waiting" and ticket["allow_bots"] is True and ticket["bot_level"] == "random"
    # a ticket without allow_bots is never filled, however long it waits
    plain = client.post("/v1/tickets", json={"game_type": "hoppaa", "player_counts": [4]}, headers=bearer(other_token))
    assert plain.status_code == 201 and plain.get_json()["allow_bots"] is False
    service = bot_app.extensions["matchmaking_service"]
    assert service.tick() == []  # not waited long enough yet
    time.sleep(1.2)
    assert len(service.tick()) == 1
    pump(pool, redis)
    view = client.get(f"/v1/tickets/{ticket['id']}", headers=bearer(token)).get_json()
    assert view["status"] == "ready" and view["game_id"]
    assert view["seats"] == [human, None, None, None] and "3 random bots" in view["reason"]
    assert client.get(f"/v1/tickets/{plain.get_json()['id']}", headers=bearer(other_token)).get_json()["status"] == "waiting"
    with psycopg.connect(service.uow.pool.conninfo) as conn:
        seats, status = conn.execute("SELECT seats, status FROM games.games WHERE id = %s", (view["game_id"],)).fetchone()
        levels = dict(conn.execute(
            "SELECT id::text, bot_level FROM identity.players WHERE id::text = ANY(%s)", (seats,)
        ).fetchall())
    assert status == "running" and seats[0] == human
    assert [levels[p] for p in seats] == [None, "random", "random", "random"]
    assert len(set(seats)) == 4


def test_bot_tables_take_the_other_bot_tickets_of_the_pool_first() -> None:
    policy = MatchPolicy(bot_fill_after=30)

    def ticket(k: int, created: float, counts: tuple[int, ...] = (3, 4), bots: bool = True) -> Ticket:
        return Ticket(f"t{k}", f"p{k}", "klapper", {}, counts, "solo", created, allow_bots=bots, bot_level="strong")

    old, young, refuses = ticket(1, 0), ticket(2, 95), ticket(3, 0, bots=False)
    tables = bot_tables([old, young, refuses], now=100, policy=policy, taken=set())
    assert len(tables) == 1
    table = tables[0]
    assert [t.id for t in table.tickets] == ["t1", "t2"]  # the young one rides along; t3 never gets bots
    assert table.bots == ((2, "strong"),) and table.seats == ["p1", "p2", None]  # 3 seats: fewest bots
    assert bot_tables([young], now=100, policy=policy, taken=set()) == []  # waited 5 s < 30 s
    assert bot_tables([old], now=100, policy=policy, taken={"t1"}) == []  # already at a table
