"""One vocabulary in every service (issue 15.3): a scan of every OpenAPI document, every event type
the engines emit in random self-play, every service message, every move type and every problem type
finds one naming style.

- events and messages: PascalCase past tense (``CardPlayed``, ``GameFinished``);
- move types: imperative snake_case, a verb or verb_object (``play_card``, ``declare_roem``);
- JSON field names (OpenAPI properties and parameters, options, moves, event payloads, views): snake_case;
- problem types: ``https://speltafel.example/problems/<kebab-name>``, each listed once in the README,
  titled with the RFC 9110 status phrase of its status.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest

from services.games.engines.base import GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import SelfPlayReport, play_one
from shared.errors import PROBLEM_TYPES, RFC9110_PHRASES, ServiceError, problem_type
from shared.messages import ROUTES
from tests.e2e.conftest import settings_for

pytestmark = pytest.mark.e2e

PASCAL = re.compile(r"^(?:[A-Z][a-z0-9]+)+$")
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
CAMEL_KEY = re.compile(r"^[a-z][a-z0-9]*[A-Z]")  # a JSON key in camelCase (city names, cards start upper)
# past participles that do not end in -ed
IRREGULAR = {"Won", "Dealt", "Drawn", "Taken", "Paid", "Made", "Sold", "Bought", "Spent", "Lost", "Chosen", "Begun",
             "Given", "Held", "Left", "Set", "Shown", "Thrown", "Put", "Cut", "Met", "Run", "Laid", "Found", "Read"}
ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("games", "matchmaking", "questions", "ratings")


def past_tense_pascal(name: str) -> bool:
    if not PASCAL.match(name):
        return False
    words = re.findall(r"[A-Z][a-z0-9]*", name)
    return any(w.endswith("ed") or w in IRREGULAR for w in words[1:] or words)


# JSON Schema's own keywords (in embedded option, move and view schemas) are camelCase by its standard
JSON_SCHEMA_KEYWORDS = frozenset({
    "additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties", "minProperties",
    "maxProperties", "minItems", "maxItems", "uniqueItems", "prefixItems", "minLength", "maxLength",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "oneOf", "anyOf", "allOf", "readOnly", "writeOnly",
    "contentMediaType", "dependentRequired", "dependentSchemas",
})


def camel_keys(value: Any, where: str) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str) and CAMEL_KEY.match(key) and key not in JSON_SCHEMA_KEYWORDS:
                yield f"{where}.{key}"
            yield from camel_keys(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for k, inner in enumerate(value):
            yield from camel_keys(inner, f"{where}[{k}]")


def schema_properties(schema: Any, where: str) -> Iterator[str]:
    """Property names in a JSON Schema that are not snake_case (the schema's own keywords are camelCase)."""
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            yield from (f"{where}.{name}" for name in props if not SNAKE.match(name))
        for key, inner in schema.items():
            if key not in ("example", "examples", "enum", "const", "default"):
                yield from schema_properties(inner, f"{where}/{key}")
    elif isinstance(schema, list):
        for inner in schema:
            yield from schema_properties(inner, where)


def engine_configs() -> Iterator[tuple[Any, GameConfig]]:
    for engine in default_registry("").all():
        for config in engine.variants():
            yield engine, config


def test_engines_emit_past_tense_pascal_events_and_snake_case_fields_in_self_play() -> None:
    bad: set[str] = set()
    seen: set[str] = set()
    for engine, config in engine_configs():
        for game_seed in (1, 2):
            report = SelfPlayReport()
            log = play_one(engine, config, game_seed, report, provider=engine.selfplay_provider())
            assert report.ok, report.failures
            for event in log:
                seen.add(event["type"])
                if not past_tense_pascal(event["type"]):
                    bad.add(f"{engine.game_type}: event {event['type']}")
                bad.update(f"{engine.game_type}: {k}" for k in camel_keys(event, event["type"]))
    assert len(seen) > 30  # every game's events were walked
    assert not bad, "\n".join(sorted(bad))


def test_move_types_are_imperative_snake_case_and_options_and_moves_have_snake_case_fields() -> None:
    bad: list[str] = []
    for engine in default_registry("").all():
        for doc in engine.moves():
            if not SNAKE.match(doc.type):
                bad.append(f"{engine.game_type}: move {doc.type}")
            bad += [f"{engine.game_type}: {k}" for k in schema_properties(
                doc.params if set(doc.params) & {"type", "oneOf", "anyOf", "properties"} else {"properties": doc.params}, f"move {doc.type}")]
            bad += [f"{engine.game_type}: {k}" for k in camel_keys(doc.example, f"move {doc.type} example")]
        bad += [f"{engine.game_type}: {k}" for k in schema_properties(engine.options_schema(), "options")]
        for config in engine.variants():
            bad += [f"{engine.game_type}: {k}" for k in camel_keys(engine.normalize_options(
                config.num_players, config.options), "options")]
    assert not bad, "\n".join(bad)


def test_legal_moves_and_views_have_snake_case_fields() -> None:
    bad: set[str] = set()
    from services.games.domain.play import replay

    for engine, config in engine_configs():
        report = SelfPlayReport()
        log = play_one(engine, config, 3, report, provider=engine.selfplay_provider())
        state = replay(engine, config, log[: max(1, len(log) // 2)]).state
        for seat in [None, *range(config.num_players)]:
            bad.update(f"{engine.game_type}: {k}" for k in camel_keys(engine.view(state, seat), "view"))
        for seat in engine.to_move(state):
            bad.update(f"{engine.game_type}: {k}" for k in camel_keys(engine.legal_moves(state, seat), "legal"))
            for move in engine.legal_moves(state, seat):
                assert SNAKE.match(move["type"]), move
                if "card" in move:  # the notation documented in GET /v1/game-types
                    assert re.match(engine.card_notation["pattern"], move["card"]), (engine.game_type, move)
    assert not bad, "\n".join(sorted(bad))


def test_every_game_type_documents_its_card_notation_one_per_family() -> None:
    by_family: dict[str, set[str]] = {}
    for engine in default_registry("").all():
        notation = engine.card_notation
        assert notation["description"] and notation["examples"], engine.game_type
        assert all(re.match(notation["pattern"], x) for x in notation["examples"] if x[0].isupper() or "-" in x)
        by_family.setdefault(notation["family"], set()).add(notation["description"].split(":")[0])
    assert all(len(forms) == 1 for forms in by_family.values()), by_family  # one notation per family


def test_move_type_rule_putting_a_card_on_the_table_is_play_card_everywhere() -> None:
    for engine in default_registry("").all():
        types = {doc.type for doc in engine.moves()}
        assert "play" not in types, engine.game_type
        if engine.game_type != "cityhopper":
            assert "play_card" in types, engine.game_type


def test_service_messages_are_past_tense_pascal() -> None:
    assert [m for m in ROUTES if not past_tense_pascal(m)] == []


def service_error_classes() -> set[type[ServiceError]]:
    for service in SERVICES:
        importlib.import_module(f"services.{service}.service_layer.errors")
    found: set[type[ServiceError]] = set()
    todo: list[type[ServiceError]] = [ServiceError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo += cls.__subclasses__()
    return found


def test_problem_types_are_one_kebab_scheme_titled_by_rfc9110_and_listed_once_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, (status, title, meaning) in PROBLEM_TYPES.items():
        assert KEBAB.match(name), name
        assert title == RFC9110_PHRASES.get(status, HTTPStatus(status).phrase), (name, title)
        assert meaning
        uri = problem_type(name)
        assert uri == f"https://speltafel.example/problems/{name}"
        assert readme.count(f"`{name}`") == 1, f"{name} must be listed once in README.md"
    assert RFC9110_PHRASES[422] == "Unprocessable Content" and RFC9110_PHRASES[413] == "Content Too Large"
    for cls in service_error_classes():
        assert cls.problem in PROBLEM_TYPES, cls
        assert (cls.status, cls.title) == PROBLEM_TYPES[cls.problem][:2], cls
    with pytest.raises(KeyError):
        problem_type("notfound")


def openapi_names(spec: dict[str, Any]) -> Iterator[str]:
    def walk(node: Any, where: str) -> Iterator[str]:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                for name in props:
                    yield f"{where}.{name}" if not SNAKE.match(name) else ""
            for key, inner in node.items():
                if key in ("example", "examples"):
                    yield from (f"{where}.{key}: {k}" for k in camel_keys(inner, ""))
                    continue
                yield from walk(inner, f"{where}/{key}")
        elif isinstance(node, list):
            for k, inner in enumerate(node):
                yield from walk(inner, f"{where}[{k}]")

    yield from walk(spec.get("components", {}), "components")
    for path, operations in spec["paths"].items():
        for name in re.findall(r"{([^}]+)}", path):
            yield f"{path}: {name}" if not SNAKE.match(name) else ""
        for method, op in operations.items():
            if not isinstance(op, dict):
                continue
            for param in op.get("parameters", []):
                if param.get("in") in ("query", "path") and not SNAKE.match(param["name"]):
                    yield f"{method} {path}: parameter {param['name']}"
            yield from walk(op, f"{method} {path}")


@pytest.mark.parametrize("service", SERVICES)
def test_every_openapi_property_and_parameter_is_snake_case(service: str, database_url: str, redis_url: str,
                                                            closing: Any) -> None:
    module = importlib.import_module(f"services.{service}.bootstrap")
    app = closing(module.create_app(settings_for(database_url, redis_url)))
    spec = app.test_client().get("/openapi.json").get_json()
    bad = [name for name in openapi_names(spec) if name]
    assert not bad, "\n".join(bad)
    # one player-count vocabulary: num_players (a game's count), player_counts (allowed counts)
    counts = {m for m in re.findall(r'"([a-z_]*(?:player|seat)[a-z_]*(?:count|num|number)[a-z_]*|n_players|num_seats)"',
                                    json.dumps(spec))}
    assert counts <= {"player_counts"}, counts


def test_the_proxy_answers_with_the_same_problem_types() -> None:
    """deploy/nginx.conf's own problem+json answers use the catalog: listed type, its status and title."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    answers = re.findall(r"return (\d{3}) '(\{.*?\})'", conf)
    assert answers
    for status, body in answers:
        problem = json.loads(body)
        name = problem["type"].removeprefix("https://speltafel.example/problems/")
        assert PROBLEM_TYPES[name][:2] == (int(status), problem["title"]) and problem["status"] == int(status)
