"""Bots are rated in the same pools as people and flagged (issue 18): the flag comes with the bot's
PlayerRegistered message; a leaderboard shows it and can leave bots out."""

from __future__ import annotations

import uuid

import pytest

from services.ratings.service_layer.handlers import RatingsService
from shared.bots import bot_player_id
from tests.integration.ratings.conftest import Bus
from tests.unit.ratings.factories import finished

pytestmark = pytest.mark.integration


def test_bots_are_flagged_on_leaderboards_and_can_be_left_out(bus: Bus, service: RatingsService) -> None:
    human, bot = str(uuid.uuid4()), bot_player_id("rules", 1)
    bus.send("PlayerRegistered", {"player_id": human, "display_name": "Anneke", "name_version": 1}, f"{human}:name:1")
    bus.send(
        "PlayerRegistered",
        {"player_id": bot, "display_name": "Rules bot 1", "name_version": 1, "bot_level": "rules"},
        f"{bot}:name:1",
    )
    bus.send("GameFinished", finished("klapper", [bot, human], [1, 2]))
    board = service.leaderboard("klapper/2", 50, 0, True)
    flags = {item["player_id"]: item["bot"] for item in board["items"]}
    assert flags == {bot: {"level": "rules"}, human: None}
    assert board["items"][0]["player_id"] == bot  # the bot won: same pool, rated like anyone
    people = service.leaderboard("klapper/2", 50, 0, True, include_bots=False)
    assert [i["player_id"] for i in people["items"]] == [human] and people["total"] == 1
    assert people["items"][0]["position"] == 1
    assert service.player_ratings(bot, False)["bot"] == {"level": "rules"}
    assert service.player_ratings(human, False)["bot"] is None
