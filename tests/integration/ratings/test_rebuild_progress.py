"""Issue 15 item 8: `speltafel ratings rebuild` shows the games it replays and the pools it compares as
progress bars on stderr (a terminal) and keeps its JSON report on stdout."""

from __future__ import annotations

import json

import pytest

from tests.integration.ratings.conftest import Bus
from tests.support.terminal import run_watched
from tests.unit.ratings.factories import every_game_type

pytestmark = pytest.mark.integration


def test_ratings_rebuild_shows_the_games_replayed_on_stderr_and_keeps_json_on_stdout(
    bus: Bus, database_url: str, redis_url: str
) -> None:
    ids = [f"cli-{k}" for k in range(6)]
    bodies = every_game_type(ids)
    for _, body in bodies:
        bus.publish("GameFinished", body)
    bus.work()
    code, out, err = run_watched(["ratings", "rebuild", "--dry-run"],
                                 {"DATABASE_URL": database_url, "REDIS_URL": redis_url})
    assert code == 0, (out, err)
    report = json.loads(out)
    assert report["games"] == len(bodies) and report["identical"] is True
    assert "games:   0%" in err and f"0/{len(bodies)} [" in err, err  # the replay's bar, with the log's length
    assert "pools:" in err and "pool/s" not in out
