"""Examples and each game's view schema in the OpenAPI document: the engines' JSON Schemas (2020-12) turned into
OpenAPI 3.0 schema objects and registered as components ``View<GameType>`` (``GameSchema.view`` refers to
them)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from apispec import APISpec

from services.games.engines.registry import Registry
from services.games.entrypoints.schemas import VIEW_COMPONENTS


def openapi30(schema: Any) -> Any:
    """A JSON Schema as an OpenAPI 3.0 schema object: ``type: [X, "null"]`` becomes ``type: X`` with
    ``nullable: true``; ``examples`` becomes its first ``example``; ``$schema`` goes; ``propertyNames``
    (no OpenAPI 3.0 keyword) is said in the description of the map instead."""
    if isinstance(schema, list):
        return [openapi30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$schema":
            continue
        if key == "propertyNames":
            keys = value.get("enum") if isinstance(value, dict) else None
            said = f"keys: one of {', '.join(map(str, keys))}" if keys else "keys: see the JSON Schema"
            out["description"] = f"{schema['description']}; {said}" if "description" in schema else said
            continue
        if key == "description" and "propertyNames" in schema:
            continue
        if key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            if len(kinds) != 1:
                raise ValueError(f"OpenAPI 3.0 has no union type {value}")
            out["type"] = kinds[0]
            if "null" in value:
                out["nullable"] = True
        elif key == "examples" and isinstance(value, list):
            if value:
                out["example"] = value[0]
        elif key in {"properties", "patternProperties"}:
            out[key] = {name: openapi30(sub) for name, sub in value.items()}
        else:
            out[key] = openapi30(value)
    return out


def register_view_components(spec: APISpec, registry: Registry) -> None:
    for game_type, name in VIEW_COMPONENTS.items():
        schema = registry.get(game_type).view_schema() if game_type in registry else None
        spec.components.schema(name, component=openapi30(schema or {"type": "object"}))


def attach_examples(spec: APISpec) -> None:
    """Answers of a real game (``examples.json``) as the examples of the components of the same name."""
    text = resources.files(__package__).joinpath("examples.json").read_text(encoding="utf-8")
    examples = json.loads(text)
    # the parts of those answers that are components of their own: a list item, a seat, an event
    examples["GameSummary"] = examples["GameList"]["items"][0]
    examples["Seat"] = examples["Game"]["seats"][0]
    examples["EventItem"] = examples["EventLog"]["events"][0]
    for name, example in examples.items():
        if name in spec.components.schemas:
            spec.components.schemas[name]["example"] = example
