"""Every shape documented (issue 15.4): each service's OpenAPI document says errors are
``application/problem+json`` (what they are answered with; schemathesis' ST105), every operation has an
example request and response (tests/e2e/test_api_examples.py), and a body that is not JSON gets a problem naming ``Content-Type`` or
``body`` instead of werkzeug's page or "Missing data for required field"."""

from __future__ import annotations

from typing import Any

import pytest

from shared.web.closing import close_app
from tests.e2e.test_api_conformance import SERVICES, make_app

pytestmark = pytest.mark.e2e
METHODS = {"get", "post", "put", "patch", "delete"}


def spec_of(service: str, database_url: str, redis_url: str) -> dict[str, Any]:
    app = make_app(service, database_url, redis_url)
    try:
        spec: dict[str, Any] = app.test_client().get("/openapi.json").get_json()
    finally:
        close_app(app)
    return spec


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        _, *parts = node["$ref"].split("/")
        target: Any = spec
        for part in parts:
            target = target[part]
        node = target
    return node


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in spec["paths"].items() for method, op in ops.items()
            if method in METHODS]


@pytest.mark.parametrize("service", SERVICES)
def test_every_documented_error_is_problem_json(service: str, database_url: str, redis_url: str) -> None:
    spec = spec_of(service, database_url, redis_url)
    wrong = []
    for path, method, op in operations(spec):
        for status, response in op["responses"].items():
            if status == "default" or status[0] in "45":
                content = resolve(spec, response).get("content") or {}
                if set(content) != {"application/problem+json"}:
                    wrong.append((method, path, status, sorted(content)))
    for name, response in spec.get("components", {}).get("responses", {}).items():
        content = response.get("content") or {}
        if content and "application/json" in content:
            wrong.append(("component", name, sorted(content)))
    assert not wrong, wrong


NOT_JSON: list[tuple[dict[str, str], bytes, str]] = [
    ({}, b'{"display_name": "Anneke"}', "Content-Type"),  # curl -d without -H
    ({"Content-Type": "text/plain"}, b'{"display_name": "Anneke"}', "Content-Type"),
    ({"Content-Type": "application/json"}, b"{not json", "body"),
    ({"Content-Type": "application/json"}, b'{"display_name": ', "body"),
]


@pytest.mark.parametrize(("headers", "body", "named"), NOT_JSON)
def test_a_body_that_is_not_json_gets_a_problem_naming_it(headers: dict[str, str], body: bytes, named: str,
                                                          database_url: str, redis_url: str, closing: Any) -> None:
    client = closing(make_app("games", database_url, redis_url)).test_client()
    response = client.post("/v1/players", data=body, headers=headers)
    assert 400 <= response.status_code < 500
    assert response.content_type == "application/problem+json"
    problem = response.get_json()
    assert named in problem["errors"], problem
    assert "The browser (or proxy)" not in response.get_data(as_text=True)
    assert "Missing data for required field" not in response.get_data(as_text=True)
    assert client.get("/v1/players/me").status_code == 401  # nothing registered; sanity of the client


def test_a_json_body_is_still_read(database_url: str, redis_url: str, closing: Any) -> None:
    client = closing(make_app("games", database_url, redis_url)).test_client()
    response = client.post("/v1/players", json={"display_name": "Anneke"})
    assert response.status_code == 201, response.get_data(as_text=True)
