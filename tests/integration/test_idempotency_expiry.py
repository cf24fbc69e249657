"""An Idempotency-Key's answer is kept ``SPELTAFEL_IDEMPOTENCY_TTL`` (24 h), then the games ticker
(``speltafel games tick``) forgets it: ``games.idempotency`` holds a day of keys, not every key ever
sent, and a request repeating a forgotten key is a new request. Real PostgreSQL; the answer's age is
set in the table (PostgreSQL's clock stamps it), nothing sleeps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from services.games.adapters.postgres import UnitOfWork
from services.games.entrypoints.ticker import main as ticker
from services.games.service_layer.errors import Conflict
from services.games.service_layer.handlers import GamesService
from shared.db import make_pool
from tests.integration.test_one_round_trip import REGISTRY, diceduel, next_move

pytestmark = pytest.mark.integration
ROLL = {"type": "roll"}


def keys(database_url: str) -> set[str]:
    with psycopg.connect(database_url) as conn:
        return {row[0] for row in conn.execute("SELECT key FROM games.idempotency")}


def age(database_url: str, ages: dict[str, str]) -> None:
    """Make each key's stored answer older by its interval (PostgreSQL's clock stamped it)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        for key, interval in ages.items():
            conn.execute(
                "UPDATE games.idempotency SET created_at = created_at - %s::interval WHERE key = %s", (interval, key)
            )


@pytest.fixture
def service(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[GamesService]:
    monkeypatch.setenv("DATABASE_URL", database_url)  # the ticker's
    pool = make_pool(database_url, max_size=2)
    yield GamesService(REGISTRY, UnitOfWork(pool))
    pool.close()


Moves = dict[str, tuple[Any, int, tuple[int, dict[str, Any], bool]]]  # key -> (mover, version, answer)


def keyed_moves(service: GamesService, keys_: tuple[str, ...]) -> tuple[str, Moves]:
    """A new game and one move of it per key, made with that key."""
    game_id, seats = diceduel(service, service.uow.pool)
    moves: Moves = {}
    for key in keys_:
        who, version = next_move(service, game_id, seats)
        moves[key] = (who, version, service.make_move(who, game_id, ROLL, version, key))
    return game_id, moves


def test_the_ticker_forgets_answers_older_than_a_day_and_a_forgotten_key_is_a_new_request(
    service: GamesService, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPELTAFEL_IDEMPOTENCY_TTL", raising=False)
    game_id, moves = keyed_moves(service, ("a-day-old", "an-hour-old", "just-now"))
    age(database_url, {"a-day-old": "24 hours 1 minute", "an-hour-old": "23 hours"})
    assert keys(database_url) == {"a-day-old", "an-hour-old", "just-now"}

    assert ticker(["--once"]) == 0  # one run of `speltafel games tick`

    assert keys(database_url) == {"an-hour-old", "just-now"}
    for key in ("an-hour-old", "just-now"):  # kept: the first answer again, nothing written
        who, version, first = moves[key]
        assert service.make_move(who, game_id, ROLL, version, key) == (first[0], first[1], True)
    who, version, _ = moves["a-day-old"]  # forgotten: a new move at that old version, refused as stale
    with pytest.raises(Conflict) as stale:
        service.make_move(who, game_id, ROLL, version, "a-day-old")
    assert stale.value.extra["code"] == "stale_version"
    assert keys(database_url) == {"an-hour-old", "just-now"}  # and nothing stored for it


def test_the_time_an_answer_is_kept_is_a_setting(
    service: GamesService, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPELTAFEL_IDEMPOTENCY_TTL", "3600")
    keyed_moves(service, ("two-hours-old", "half-an-hour-old"))
    age(database_url, {"two-hours-old": "2 hours", "half-an-hour-old": "30 minutes"})
    assert ticker(["--once"]) == 0
    assert keys(database_url) == {"half-an-hour-old"}
