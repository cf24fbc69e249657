"""Every game's view has a JSON Schema (issue 15.4), served in GET /v1/game-types and in OpenAPI:
every view a seat, a spectator or an admin gets during a whole random game validates against it, and the
committed example (``view_example.json`` beside the engine) is the view of a real game, re-played here.

Regenerate the examples after a view changes: ``python -m tests.unit.engines.test_view_schemas``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from services.games.domain.play import Progress, apply_move, open_game
from services.games.engines.base import Engine
from services.games.engines.registry import BUILTIN, default_registry
from services.games.entrypoints.view_docs import openapi30
from services.games.service_layer.selfplay import seeds_for

ENGINES = [default_registry("").get(game_type) for game_type in BUILTIN]
MAX_MOVES = 600  # per game: enough to pass every phase of a short variant
EXAMPLE_SOURCE = {"variant": 0, "seed": 7, "moves": 12, "seat": 0}


def example_path(engine: Engine[Any]) -> Path:
    return Path(__file__).resolve().parents[3].joinpath(*type(engine).__module__.split(".")[:-1],
                                                        "view_example.json")


def play(engine: Engine[Any], variant: int, seed: int, moves: int) -> Progress:
    """``moves`` random self-play moves into a game of ``engine.variants()[variant]`` (fewer if it ends)."""
    config = engine.variants()[variant]
    provider = engine.selfplay_provider()
    chooser, seeds = random.Random(seed), seeds_for(seed)
    progress, _ = open_game(engine, config, seeds, None, provider)
    for _ in range(moves):
        if engine.outcome(progress.state) is not None:
            break
        seat = chooser.choice(engine.to_move(progress.state))
        apply_move(engine, progress, seat, chooser.choice(engine.selfplay_moves(progress.state, seat)), seeds,
                   None, provider)
    return progress


def example(engine: Engine[Any]) -> dict[str, Any]:
    source = EXAMPLE_SOURCE
    progress = play(engine, source["variant"], source["seed"], source["moves"])
    config = engine.variants()[source["variant"]]
    return {"source": {**source, "num_players": config.num_players, "options": dict(config.options)},
            "view": engine.view(progress.state, source["seat"])}


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.game_type)
def test_the_view_schema_is_a_valid_json_schema_with_an_example(engine: Engine[Any]) -> None:
    schema = engine.view_schema()
    assert schema is not None, f"{engine.game_type} has no view_schema.json"
    Draft202012Validator.check_schema(schema)
    assert schema["examples"], "the schema carries the committed example"
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(schema["examples"][0])]
    assert not errors, errors


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.game_type)
def test_every_view_names_its_game_type_under_one_key(engine: Engine[Any]) -> None:
    """Issue 15.3: every game's view says which game it is as ``game_type`` (HopPaa and CityHopper said
    ``game``), required by its schema, so a client reads one key for every game."""
    schema = engine.view_schema() or {}
    assert "game_type" in schema.get("required", []) and "game" not in schema.get("properties", {})
    assert example(engine)["view"]["game_type"] == engine.game_type


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.game_type)
def test_the_committed_example_is_the_view_of_a_real_game(engine: Engine[Any]) -> None:
    committed = json.loads(example_path(engine).read_text(encoding="utf-8"))
    assert committed == json.loads(json.dumps(example(engine))), (
        "the view changed: regenerate with python -m tests.unit.engines.test_view_schemas")


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.game_type)
def test_every_view_of_a_whole_game_matches_the_schema(engine: Engine[Any]) -> None:
    validator = Draft202012Validator(engine.view_schema() or {})
    for variant in range(min(2, len(engine.variants()))):
        config = engine.variants()[variant]
        chooser, seeds = random.Random(variant), seeds_for(100 + variant)
        provider = engine.selfplay_provider()
        progress, _ = open_game(engine, config, seeds, None, provider)
        for step in range(MAX_MOVES):
            views = [engine.view(progress.state, seat) for seat in [None, *range(config.num_players)]]
            for who, view in enumerate([*views, engine.full_view(progress.state)]):
                errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(view)]
                assert not errors, (config, step, who, errors[:5])
            if engine.outcome(progress.state) is not None:
                break
            seat = chooser.choice(engine.to_move(progress.state))
            move = chooser.choice(engine.selfplay_moves(progress.state, seat))
            apply_move(engine, progress, seat, move, seeds, None, provider)


def test_view_schemas_become_openapi_30_schema_objects() -> None:
    """OpenAPI 3.0 has no ``type: [X, "null"]``: the components say ``nullable`` instead, keep the example."""
    schema = {"$schema": "x", "type": "object", "examples": [{"seat": None}],
              "properties": {"seat": {"type": ["integer", "null"]}, "type": {"type": "string"}}}
    assert openapi30(schema) == {"type": "object", "example": {"seat": None},
                                 "properties": {"seat": {"type": "integer", "nullable": True},
                                                "type": {"type": "string"}}}
    with pytest.raises(ValueError):
        openapi30({"type": ["integer", "string"]})


if __name__ == "__main__":
    for each in ENGINES:
        example_path(each).write_text(json.dumps(example(each), indent=1, ensure_ascii=False) + "\n",
                                      encoding="utf-8")
        print("wrote", example_path(each))
