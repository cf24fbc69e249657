"""Issue 17.2, the length guard over HTTP: every game type documents its maximum length in
`GET /v1/game-types` and its options schema, and a game of each type played with uniformly random legal
moves (what `.../legal-moves` lists; for HopPaa and CityHopper that play never ends by itself) ends
within that maximum: `GameAdjudicated` (rule HP-R-LEN, KL-R-LEN, RR-R-LEN, PK-R-LEN, CH-R-LEN) then
`GameFinished` with the adjudicated outcome, and the audit re-checks it. A small maximum set through the
option keeps it fast. CityHopper's questions go out and come back through the real queues."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import ADMIN, Client, register
from tests.e2e.test_cityhopper_with_questions import stack  # noqa: F401  (the CityHopper fixture: the questions through the queues)

pytestmark = pytest.mark.e2e

# game type -> (players, options with a small maximum, rule, unit)
CASES: dict[str, tuple[int, dict[str, Any], str, str]] = {
    "hoppaa": (2, {"max_rounds": 1}, "HP-R-LEN", "rounds"),
    "klapper": (2, {"max_deals": 1}, "KL-R-LEN", "deals"),
    "roparun": (2, {"max_deals": 2}, "RR-R-LEN", "deals"),
    "paardenkoppen": (3, {"end_mode": "until_cannot_ante", "max_rounds": 1}, "PK-R-LEN", "rounds"),
    "cityhopper": (2, {"max_turns": 4}, "CH-R-LEN", "turns"),
}


def test_every_game_type_documents_its_maximum(games_url: str) -> None:
    types = {t["id"]: t for t in Client(games_url).get("/v1/game-types").json()}
    assert set(CASES) <= set(types)
    for game_type, (_, options, rule, unit) in CASES.items():
        limit = types[game_type]["max_length"]
        assert limit["rule"] == rule and limit["unit"] == unit, limit
        assert limit["minimum"] <= limit["default"] <= limit["maximum"]
        prop = types[game_type]["options_schema"]["properties"][limit["option"]]
        assert prop["default"] == limit["default"] and rule in prop["description"]
        assert limit["option"] in options
    # HP-R-LEN: the platform adjudicates HopPaa at 300 rounds by default (HP-46 sets no limit on the rules
    # of play; issue 17 requires that no game runs forever)
    assert types["hoppaa"]["max_length"]["default"] == 300
    assert types["hoppaa"]["options_schema"]["properties"]["max_rounds"]["type"] == "integer"


def test_a_hoppaa_table_gets_the_default_maximum_of_300_rounds(games_url: str) -> None:
    admin = Client(games_url, ADMIN)
    seats = [register(games_url, f"hp-{k}").player_id for k in range(2)]
    table = admin.post("/v1/games", {"game_type": "hoppaa", "seats": seats})
    assert table.status_code == 201, table.text
    assert table.json()["options"]["max_rounds"] == 300
    created = admin.get(f"/v1/games/{table.json()['id']}/events").json()["events"][0]
    assert created["payload"]["max_length"] == {"option": "max_rounds", "unit": "rounds", "limit": 300,
                                                "rule": "HP-R-LEN"}
    no_limit = admin.post("/v1/games", {"game_type": "hoppaa", "seats": seats, "options": {"max_rounds": None}})
    assert no_limit.status_code == 422 and "options.max_rounds" in no_limit.json()["errors"], no_limit.text


def test_a_maximum_out_of_bounds_is_refused_naming_the_option(games_url: str) -> None:
    admin = Client(games_url, ADMIN)
    seats = [register(games_url, f"len-{k}").player_id for k in range(3)]
    for game_type, options, field in [
        ("hoppaa", {"max_rounds": 0}, "options.max_rounds"),
        ("klapper", {"max_deals": "many"}, "options.max_deals"),
        ("paardenkoppen", {"rounds": 10, "max_rounds": 5}, "options.max_rounds"),  # PK-21's own end comes first
    ]:
        n = 3 if game_type != "hoppaa" else 2
        r = admin.post("/v1/games", {"game_type": game_type, "seats": seats[:n], "options": options})
        assert r.status_code == 422, r.text
        assert field in r.text, r.text


@pytest.mark.parametrize("game_type", list(CASES))
def test_random_play_ends_within_the_documented_maximum(stack: tuple[str, Callable[[], int]], game_type: str) -> None:  # noqa: F811
    base, pump = stack
    num_players, options, rule, unit = CASES[game_type]
    admin = Client(base, ADMIN)
    seats = [register(base, f"{game_type}-{k}") for k in range(num_players)]
    r = admin.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats], "options": options})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    option = next(k for k in options if k.startswith("max_"))
    limit = options[option]
    assert r.json()["options"][option] == limit  # the table shows its maximum among its options
    chooser = random.Random(game_type)
    for _ in range(5_000):
        game = admin.get(f"/v1/games/{game_id}").json()
        if game["status"] != "running":
            break
        if game["waiting_for"]:
            assert pump() >= 1, "the question went out and came back through the queues"
            continue
        seat = chooser.choice(game["to_move"])
        legal = seats[seat].get(f"/v1/games/{game_id}/legal-moves").json()
        move = chooser.choice(legal["moves"])  # uniformly random among every legal move
        answer = seats[seat].post(f"/v1/games/{game_id}/moves", {"move": move, "expected_version": legal["version"]})
        assert answer.status_code == 201, answer.text
    final = admin.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished", "the game ended within its maximum"
    events: list[dict[str, Any]] = []
    while not events or events[-1]["version"] < final["version"]:
        after = events[-1]["version"] if events else 0
        events += admin.get(f"/v1/games/{game_id}/events", params={"after": after}).json()["events"]
    types = [e["type"] for e in events]
    if "GameAdjudicated" in types:
        adjudicated = events[types.index("GameAdjudicated")]["payload"]
        assert types[-2:] == ["GameAdjudicated", "GameFinished"]
        assert adjudicated["rule"] == rule and adjudicated["unit"] == unit
        assert adjudicated["limit"] == limit and adjudicated["reached"] == limit
        assert final["outcome"] == adjudicated["outcome"] and rule in final["outcome"]["reason"]
        assert sorted(final["outcome"]["ranks"])[0] == 1
    else:  # the game ended by its own rules first (possible only in a short game like Klapper's)
        assert game_type == "klapper", types[-3:]
    audit = admin.get(f"/v1/games/{game_id}/audit").json()
    assert audit["ok"], audit
    assert {c["name"]: c["status"] for c in audit["checks"]}["length_limit"] == "pass"
