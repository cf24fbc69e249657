"""Issue 16, "Tests, in a real browser": each of the five games played to the end by clicking legal moves
in the page of the seat to move, one browser per player and a spectator's; no page ever shows a card its
reader may not see; a reconnect loses and repeats no event; the final scores in the pages are the API's
outcome; the replay shows what GET .../state?version=N shows; screenshots mid-game and at the end."""

from __future__ import annotations

import random
import shutil
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser import cityhopper_policy
from tests.browser.conftest import ROOT, SCREENSHOTS
from tests.browser.pages import Browser
from tests.browser.play import Match, Seat, check_replay, create_by_admin
from tests.support.platform import Platform

DOCS = ROOT / "docs" / "screenshots"
FIGURES: dict[str, dict[str, Any]] = {}

# the shortest options each game offers (GET /v1/game-types options schemas)
SHORT = {
    "klapper": (2, {"target": 1}),  # KL-39: one deal decides
    "paardenkoppen": (3, {"rounds": 1}),  # PK-21: one round
    "roparun": (2, {"section_length": 8, "sections": 2, "seven_max_pawns": 2}),  # B-1: the smallest board
    "hoppaa": (2, {"pawns_per_player": 1}),  # HP-R22: the quick version
    "cityhopper": (2, {"starting_money": 100}),  # CH-3: money enough to buy both end cities at once
}
# games whose random play runs long: reached close to the end through the API, the rest clicked
PLANNED_CLICKS = {"hoppaa": 30}


def seat_up(platform: Platform, browsers: Callable[[str], Browser], game_type: str, n: int,
            options: dict[str, Any], seed: int) -> Match:
    players = []
    for k in range(n):
        b = browsers(f"{game_type}-seat{k}")
        b.register(f"{game_type[:6]}-{k}")
        players.append(b)
    spectator = browsers(f"{game_type}-spectator")
    spectator.register(f"{game_type[:6]}-watch")
    game_id = create_by_admin(platform.base, game_type, [str(p.player_id) for p in players], options)
    match = Match(platform.base, game_id, [Seat(k, b) for k, b in enumerate(players)], spectator,
                  random.Random(seed))
    match.open_all()
    return match


def keep_screenshot(name: str) -> None:
    """One small PNG per game for the README (docs/screenshots): the end screenshot, as a palette PNG."""
    from PIL import Image

    DOCS.mkdir(parents=True, exist_ok=True)
    with Image.open(SCREENSHOTS / f"{name}-end.png") as shot:
        assert shot.size == (1280, 800), shot.size
        shot.convert("RGB").quantize(colors=128).save(DOCS / f"{name}.png", optimize=True)
    assert (DOCS / f"{name}.png").stat().st_size < 200_000


@pytest.mark.parametrize("game_type", list(SHORT))
def test_a_whole_game_clicked_to_the_end(platform: Platform, browsers: Callable[[str], Browser],
                                         game_type: str) -> None:
    n, options = SHORT[game_type]
    started = time.monotonic()
    match = seat_up(platform, browsers, game_type, n, options, seed=16)
    if game_type in PLANNED_CLICKS:
        game = match.fast_forward_then_click(PLANNED_CLICKS[game_type], shots=game_type)
    elif game_type == "cityhopper":  # a player heading for its end cities; the last one's approach clicked
        match.policy = cityhopper_policy.choose
        match.policy_through_api(cityhopper_policy.near_end)
        game = match.play_by_clicks(200, shots=game_type, reconnect_at=4)
    else:
        game = match.play_by_clicks(400, shots=game_type, reconnect_at=6)
    assert game["status"] == "finished", f"{game_type} ended after {match.clicks} clicks"
    match.outcome_matches()
    for b in match.browsers:
        b.shot(f"{game_type}-end-{b.name}")
    shutil.copyfile(SCREENSHOTS / f"{game_type}-end-{match.seats[0].browser.name}.png",
                    SCREENSHOTS / f"{game_type}-end.png")
    keep_screenshot(game_type)
    log = match.event_log_ok(game["version"])
    assert log == {"missing": 0, "duplicated": 0}, log
    versions = sorted({3, game["version"] // 3, game["version"] // 2, game["version"]})
    replayed = check_replay(match, match.seats[0].browser, versions)
    FIGURES[game_type] = dict(clicks=match.clicks, api_moves=match.api_moves, leak_checks=match.leak_checks,
                              leaks=len(match.leaks), **log, replay_versions=replayed,
                              seconds=round(time.monotonic() - started, 1))
    print(f"\nbrowser: {game_type}: {FIGURES[game_type]}")


LONG = {  # from a normal start (the spec defaults), 50+ moves clicked
    "hoppaa": (2, {}),
    "klapper": (2, {}),
    "paardenkoppen": (3, {}),
    "roparun": (2, {}),
}


@pytest.mark.parametrize("game_type", list(LONG))
def test_fifty_moves_clicked_from_a_normal_start(platform: Platform, browsers: Callable[[str], Browser],
                                                 game_type: str) -> None:
    n, options = LONG[game_type]
    started = time.monotonic()
    match = seat_up(platform, browsers, game_type, n, options, seed=50)
    game = match.play_by_clicks(52, reconnect_at=20)
    assert match.clicks >= 50 or game["status"] == "finished", match.clicks
    assert match.clicks >= 50, f"{game_type} ended after only {match.clicks} clicks"
    log = match.event_log_ok(game["version"])
    assert log == {"missing": 0, "duplicated": 0}, log
    print(f"\nbrowser: {game_type} long: clicks={match.clicks} leak_checks={match.leak_checks} leaks=0 {log} "
          f"{time.monotonic() - started:.0f} s")
