"""Every endpoint documents an example request and response (issue 15.4), so /docs and
schemathesis' explicit examples show a whole call (the games service's are answers of a real game; elsewhere
composed from every field's example); and every documented example validates against its schema."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from services.games.entrypoints.schemas import VIEW_COMPONENTS
from shared.web.app import component_refs
from tests.e2e.test_api_documentation import operations, resolve, spec_of

pytestmark = pytest.mark.e2e
STREAMS = {"text/event-stream"}  # a live stream has no fixed example body


def _has_example(spec: dict[str, Any], media: dict[str, Any]) -> bool:
    if "example" in media or media.get("examples"):
        return True
    schema = resolve(spec, media.get("schema") or {})
    if schema.get("type") == "array" and "example" not in schema:
        schema = resolve(spec, schema.get("items") or {})
    return "example" in schema


@pytest.mark.parametrize("service", ["games", "matchmaking", "questions", "ratings"])
def test_every_operation_has_an_example_request_and_response(service: str, database_url: str,
                                                             redis_url: str) -> None:
    spec = spec_of(service, database_url, redis_url)
    missing = []
    for path, method, op in operations(spec):
        body = op.get("requestBody")
        if body is not None:
            content = resolve(spec, body).get("content", {})
            if not any(_has_example(spec, media) for media in content.values()):
                missing.append((method, path, "request"))
        ok = [resolve(spec, r) for status, r in op["responses"].items() if status[0] == "2"]
        if not any(r.get("content") is None or set(r["content"]) <= STREAMS
                   or any(_has_example(spec, m) for m in r["content"].values()) for r in ok):
            missing.append((method, path, "response"))
    assert not missing, missing


@pytest.mark.parametrize("service", ["games", "matchmaking", "questions", "ratings"])
def test_every_documented_example_matches_its_schema(service: str, database_url: str, redis_url: str) -> None:
    spec = spec_of(service, database_url, redis_url)
    registry = Registry().with_resource("urn:spec", Resource.from_contents(spec, default_specification=DRAFT4))
    wrong = []
    for name, schema in spec["components"]["schemas"].items():
        if "example" in schema:
            validator = OAS30Validator({"$ref": f"urn:spec#/components/schemas/{name}"}, registry=registry)
            wrong += [(name, list(e.absolute_path), e.message[:200]) for e in validator.iter_errors(schema["example"])]
    assert not wrong, wrong[:10]


def answer_components(spec: dict[str, Any]) -> list[str]:
    """Component schemas only answers use (reached from a 2xx response, never from a request)."""
    schemas = spec["components"]["schemas"]

    def closure(roots: set[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name not in seen and name in schemas:
                seen.add(name)
                todo.extend(component_refs(schemas[name]))
        return seen

    answers, asks = set(), set()
    for _, _, op in operations(spec):
        asks |= component_refs(op.get("requestBody") or {}) | component_refs(op.get("parameters") or [])
        answers |= set().union(*(component_refs(r) for s, r in op["responses"].items() if s.startswith("2")))
    return sorted(closure(answers) - closure(asks))


@pytest.mark.parametrize("service", ["games", "matchmaking", "questions", "ratings"])
def test_every_answer_schema_requires_its_always_present_fields_and_has_an_example(
    service: str, database_url: str, redis_url: str
) -> None:
    """Issue 15.6: a client generated from the document types the fields every answer carries as present
    (all but those marked ``x-only-for``, present for some answers only), and /docs shows each answer whole."""
    spec = spec_of(service, database_url, redis_url)
    unmarked, no_example = [], []
    for name in answer_components(spec):
        if name in VIEW_COMPONENTS.values():  # a game's view: its own JSON Schema (view_schema.json, which
            continue  # requires what every viewer sees; a seat's hand is its own), tested with the engines
        schema = spec["components"]["schemas"][name]
        properties = schema.get("properties") or {}
        always = {k for k, p in properties.items() if "x-only-for" not in p}
        if always - set(schema.get("required") or []):
            unmarked.append((name, sorted(always - set(schema.get("required") or []))))
        if properties and "example" not in schema:
            no_example.append((name, sorted(k for k, p in properties.items() if "example" not in p)))
    assert not unmarked, "\n".join(map(str, unmarked))
    assert not no_example, "\n".join(map(str, no_example))
