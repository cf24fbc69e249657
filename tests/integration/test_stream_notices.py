"""Live-stream notices that carry the new events (issue 19, live streams): the stream gateway makes its
viewers' copies from the events in the writer's notice instead of reading them back from PostgreSQL, and
they must be exactly the copies a read of the store gives, byte for byte once encoded (``jsonb`` gives
an object's keys back in its own order), for every viewer class, with the same clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from services.games.adapters.notifications import decode_notice, encode_notice, jsonb_order
from services.games.adapters.postgres import UnitOfWork
from services.games.engines.registry import default_registry
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity, PlayerDirectory
from shared.db import make_pool

pytestmark = pytest.mark.integration
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")
ADMIN = Identity(admin=True)
NOW = datetime(2026, 5, 1, 20, 15, tzinfo=UTC)


def encoded(batch: dict[str, Any]) -> dict[Any, list[str]]:
    """Each class's items as the stream gateway encodes them."""
    return {cls: [json.dumps(item) for item in items] for cls, items in batch["pages"].items()}


def test_a_notices_events_make_the_same_batches_as_a_read_of_the_store(database_url: str) -> None:
    pool = make_pool(database_url, max_size=4)
    try:
        notices: list[bytes] = []
        writer = GamesService(REGISTRY, UnitOfWork(pool), lambda game_id, version, rows: notices.append(
            encode_notice(version, rows)), now=lambda: NOW)
        gateway = GamesService(REGISTRY, UnitOfWork(pool), now=lambda: NOW)  # its own cache, as the gateway's
        directory = PlayerDirectory(pool)
        seats = [directory.register(f"p{k}")[0] for k in range(2)]
        watcher = directory.register("w")[0]
        # each seat, a registered spectator, an anonymous one and an admin: every class DiceDuel has
        identities = [Identity(player_id=seats[0]), Identity(player_id=seats[1]), Identity(player_id=watcher),
                      Identity(), ADMIN]
        game = writer.create_game(ADMIN, {"game_type": "diceduel", "seats": seats,
                                          "clock": {"kind": "per_move", "seconds": 600}})
        game_id = game["id"]
        after = gateway.live_batch(game_id, identities, 0, 500, True)["version"]  # the first read warms its cache
        checked = 0
        while (game := writer.game_view(game_id, ADMIN))["status"] == "running":
            notices.clear()
            seat = game["to_move"][0]
            writer.make_move(Identity(player_id=seats[seat]), game_id, {"type": "roll"}, game["version"], None)
            version, rows = decode_notice(notices[-1])
            assert rows is not None and [r[0] for r in rows] == list(range(after + 1, version + 1))
            from_notice = gateway.live_batch_known(game_id, identities, after, rows, True)
            store = GamesService(REGISTRY, UnitOfWork(pool), now=lambda: NOW)  # nothing cached: reads it all
            from_store = store.live_batch(game_id, identities, after, 500, True)
            assert from_notice is not None
            assert from_notice == from_store
            assert encoded(from_notice) == encoded(from_store)  # the same bytes on the wire
            assert from_notice["clock"] is not None
            after, checked = version, checked + 1
        assert checked >= 2
        final = gateway.live_batch(game_id, [ADMIN], 0, 500)["pages"][None]
        assert final[-1]["type"] == "GameFinished"  # the game was played to its end through the notices
        # events that do not follow on from the cached table are not guessed at: the caller reads instead
        assert gateway.live_batch_known(game_id, identities, after - 2, rows[-1:], True) is None
        assert gateway.live_batch_known(game_id, identities, 12345, [(12346, *rows[0][1:])], True) is None
    finally:
        pool.close()


def test_jsonb_order_is_the_order_postgresql_gives_an_objects_keys_back(database_url: str) -> None:
    value = {"bb": 1, "a": {"zz": [{"é": 1, "e": 2, "ab": 3, "b": 4, "B": 5}]}, "ccc": 2, "Z": 0, "aa": None,
             "ä": [1, {"yy": 1, "x": 2}], "\U0001f600": True, "": "empty", "ab": 0.5}
    with psycopg.connect(database_url) as conn:
        (back,) = conn.execute("SELECT %s::jsonb", (Jsonb(value),)).fetchone()  # type: ignore[misc]
    assert back == value
    assert json.dumps(jsonb_order(value)) == json.dumps(back) != json.dumps(value)
