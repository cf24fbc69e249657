"""Every shape documented (issue 15.4): a whole game of each type over HTTP, and at every step every
answer — each seat's and a spectator's game detail, the admin's, legal moves, the move result, the new
events, an illegal move's problem — validates against the schema the games service's own /openapi.json
documents for that operation and status, and each view against its game's View<GameType> component."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
import requests
from jsonschema.exceptions import best_match
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.games.domain.table import Table
from services.games.engines.base import Engine
from services.games.engines.registry import BUILTIN, default_registry
from services.games.entrypoints.schemas import VIEW_COMPONENTS
from services.games.service_layer.selfplay import SelfPlayReport, play_one
from tests.e2e.conftest import ADMIN, Client, register
from tests.e2e.test_cityhopper_with_questions import stack  # noqa: F401  (the CityHopper fixture)
from tests.e2e.whole_games import SHORT_OPTIONS

pytestmark = pytest.mark.e2e
SPEC = "urn:speltafel:games-openapi"
MAX_STEPS = 3_000
# CityHopper's random games have a long tail (387 to over 5,000 moves over 29 seeds): its seats play the
# `rules` bot instead, from each seat's own view and legal moves (200 of 200 such games ended, p50 83 moves);
# HopPaa's too (2 players, one pawn each: random 260 to 3,800 moves over 8 seeds, `rules` 190 to 564).
BOT_PLAYED = {"cityhopper", "hoppaa"}


class Documented:
    """Validates HTTP answers against the operation's documented response schema."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.registry = Registry().with_resource(SPEC, Resource.from_contents(spec, default_specification=DRAFT4))
        self.checked = 0

    def errors(self, pointer: str, instance: Any) -> list[str]:
        validator = OAS30Validator({"$ref": f"{SPEC}#{pointer}"}, registry=self.registry)
        found = []
        for error in validator.iter_errors(instance):
            deepest = best_match([error, *error.context]) if error.context else error  # anyOf: say which part
            found.append(f"{'/'.join(map(str, deepest.absolute_path))}: {deepest.message}"[:300])
        return found

    def check(self, response: requests.Response, method: str, template: str) -> Any:
        status = str(response.status_code)
        responses = self.spec["paths"][template][method]["responses"]
        assert status in responses, f"{method} {template} answered {status}, which is not documented"
        media = response.headers["Content-Type"].split(";")[0]
        content = responses[status].get("content") or {}
        assert media in content, f"{method} {template} {status}: {media} is not documented ({sorted(content)})"
        escaped = template.replace("~", "~0").replace("/", "~1")
        pointer = f"/paths/{quote(escaped)}/{method}/responses/{status}/content/{quote(media.replace('/', '~1'))}/schema"
        body = response.json()
        errors = self.errors(pointer, body)
        assert not errors, (method, template, status, errors[:5])
        self.checked += 1
        return body

    def check_game(self, response: requests.Response, game_type: str) -> Any:
        """A game detail: its view against the game's own View component first (the sharper message)."""
        self.check_view(game_type, response.json()["view"])
        return self.check(response, "get", "/v1/games/{game_id}")

    def check_view(self, game_type: str, view: Any) -> None:
        errors = self.errors(f"/components/schemas/{VIEW_COMPONENTS[game_type]}", view)
        assert not errors, (game_type, errors[:5])
        self.checked += 1


def shortest_variant(engine: Engine[Any]) -> tuple[int, dict[str, Any]]:
    """The variant whose self-played game is shortest (keeps the HTTP game quick)."""
    best: tuple[int, int, dict[str, Any]] | None = None
    for config in engine.variants():
        report = SelfPlayReport()
        play_one(engine, config, 1, report, max_moves=2_000, check_every_event=False,
                 provider=engine.selfplay_provider())
        if best is None or report.moves < best[0]:
            best = (report.moves, config.num_players, dict(config.options))
    assert best is not None
    return best[1], best[2]


def play_documented(base: str, game_type: str, pump: Callable[[], int] | None = None) -> int:
    engine = default_registry("").get(game_type)
    num_players, options = shortest_variant(engine)
    options |= SHORT_OPTIONS.get(game_type, {})
    documented = Documented(requests.get(f"{base}/openapi.json", timeout=30).json())
    admin = Client(base, ADMIN)
    seats = [register(base, f"{game_type}-{k}") for k in range(num_players)]
    spectator = register(base, "spectator")
    types = documented.check(requests.get(f"{base}/v1/game-types", timeout=30), "get", "/v1/game-types")
    assert all(t["view_schema"]["examples"] for t in types if t["id"] in BUILTIN)
    created = admin.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats],
                                       "options": options})
    game_id = documented.check(created, "post", "/v1/games")["id"]
    detail = f"/v1/games/{game_id}"
    mirror, mirrored, after = Table(game_id), 0, 0
    illegal_checked = False
    for _ in range(MAX_STEPS):
        full = documented.check_game(admin.get(detail), game_type)
        if full["status"] != "running":
            break
        if full["waiting_for"]:
            assert pump is not None and pump() >= 1, "the game waits for content nobody delivers"
            continue
        for client in [spectator, *seats]:
            documented.check_game(client.get(detail), game_type)
            documented.check(client.get(f"{detail}/legal-moves"), "get", "/v1/games/{game_id}/legal-moves")
            documented.check(client.get(f"{detail}/events", params={"after": after}), "get",
                             "/v1/games/{game_id}/events")
        after = full["version"]
        for event in admin.get(f"{detail}/events", params={"after": mirrored}).json()["events"]:
            mirror.apply(engine, event["type"], event["payload"])
            mirrored = event["version"]
        chooser = random.Random(f"{game_type}:{full['version']}")  # per step: one different draw stays local
        seat = chooser.choice(full["to_move"])
        if not illegal_checked:
            wrong = seats[seat].post(f"{detail}/moves", {"move": {"type": "no_such_move"},
                                                         "expected_version": full["version"]})
            assert wrong.status_code == 422
            documented.check(wrong, "post", "/v1/games/{game_id}/moves")
            stale = seats[seat].post(f"{detail}/moves", {"move": {"type": "no_such_move"}, "expected_version": 0})
            assert stale.status_code == 409
            documented.check(stale, "post", "/v1/games/{game_id}/moves")
            anonymous = requests.post(f"{base}{detail}/moves", json={"move": {}, "expected_version": 0}, timeout=30)
            assert anonymous.status_code in {401, 403}
            documented.check(anonymous, "post", "/v1/games/{game_id}/moves")
            illegal_checked = True
        assert mirror.progress is not None
        if game_type in BOT_PLAYED:
            own = seats[seat].get(detail).json()
            listed = seats[seat].get(f"{detail}/legal-moves").json()["moves"]
            move = choose(game_type, "rules", own, listed, seat, chooser, fixed_budget())
        else:
            move = chooser.choice(engine.selfplay_moves(mirror.progress.state, seat))
        answer = seats[seat].post(f"{detail}/moves", {"move": move, "expected_version": full["version"]})
        assert answer.status_code == 201, answer.text
        documented.check(answer, "post", "/v1/games/{game_id}/moves")
    final = admin.get(detail).json()
    assert final["status"] == "finished", f"the game reached its end (version {final['version']})"
    for client in [spectator, *seats]:
        documented.check_game(client.get(detail), game_type)
        documented.check(client.get(f"{detail}/events"), "get", "/v1/games/{game_id}/events")
    documented.check(requests.get(f"{base}/v1/games", params={"player": seats[0].player_id}, timeout=30),
                     "get", "/v1/games")
    documented.check(seats[0].get(f"{detail}/export"), "get", "/v1/games/{game_id}/export")
    documented.check(requests.get(f"{base}{detail}/audit", timeout=60), "get", "/v1/games/{game_id}/audit")
    return documented.checked


@pytest.mark.parametrize("game_type", [g for g in BUILTIN if g != "cityhopper"])
def test_a_whole_game_validates_against_the_documented_schemas(games_url: str, game_type: str) -> None:
    assert play_documented(games_url, game_type) > 10


def test_a_whole_cityhopper_game_validates_against_the_documented_schemas(stack) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    base, pump = stack
    assert play_documented(base, "cityhopper", pump) > 10
