"""Combining the services' OpenAPI documents into the one `make run` serves at /openapi.json
(issue 15 item 7): every path under its service's prefix, colliding schema names kept apart, what the
services share (the problem schema) once, and a valid OpenAPI 3 document."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate

from services.gateway.openapi import combine

PROBLEM = {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "integer"}}}
BEARER = {"type": "http", "scheme": "bearer"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def document(title: str, join_field: str, extra_path: str) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": ref("JoinBody")}}}
    ok = {"description": "OK", "content": {"application/json": {"schema": ref("Item")}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "v1"},
        "tags": [{"name": "ops"}, {"name": "things"}],
        "paths": {
            "/healthz": {"get": {"tags": ["ops"], "responses": {"200": {"description": "OK"}}}},
            "/v1/things/{id}/join": {
                "parameters": [{"in": "path", "name": "id", "required": True, "schema": {"type": "string"}}],
                "post": {"tags": ["things"], "requestBody": body, "security": [{"bearerAuth": []}],
                         "responses": {"200": ok, "default": {"$ref": "#/components/responses/DEFAULT_ERROR"}}},
            },
            extra_path: {"get": {"operationId": "list", "responses": {"200": ok}}},
        },
        "components": {
            "schemas": {
                "Problem": PROBLEM,
                "JoinBody": {"type": "object", "properties": {join_field: {"type": "string"}}},
                "Item": {"type": "object", "properties": {"inner": ref("JoinBody")}},
            },
            "responses": {"DEFAULT_ERROR": {"description": "Default error response",
                                            "content": {"application/json": {"schema": ref("Problem")}}}},
            "securitySchemes": {"bearerAuth": BEARER},
        },
    }


def two() -> dict[str, Any]:
    return combine({"games": document("games", "seat", "/v1/games"),
                    "matchmaking": document("matchmaking", "code", "/v1/leagues")}, "http://127.0.0.1:8000/")


def test_every_path_appears_under_its_service_prefix_and_servers_is_the_base_url() -> None:
    combined = two()
    assert set(combined["paths"]) == {
        "/games/healthz", "/games/v1/things/{id}/join", "/games/v1/games",
        "/matchmaking/healthz", "/matchmaking/v1/things/{id}/join", "/matchmaking/v1/leagues",
    }
    assert combined["servers"] == [{"url": "http://127.0.0.1:8000"}]
    validate(combined)


def test_colliding_schema_names_are_prefixed_per_service_and_refs_follow() -> None:
    combined = two()
    schemas = combined["components"]["schemas"]
    assert schemas["GamesJoinBody"]["properties"] == {"seat": {"type": "string"}}
    assert schemas["MatchmakingJoinBody"]["properties"] == {"code": {"type": "string"}}
    assert "JoinBody" not in schemas
    games_join = combined["paths"]["/games/v1/things/{id}/join"]["post"]
    assert games_join["requestBody"]["content"]["application/json"]["schema"] == ref("GamesJoinBody")
    assert schemas["MatchmakingItem"]["properties"]["inner"] == ref("MatchmakingJoinBody")  # nested refs too


def test_what_every_service_shares_appears_once_under_its_own_name() -> None:
    combined = two()
    assert combined["components"]["schemas"]["Problem"] == PROBLEM
    assert not any(name.endswith("Problem") and name != "Problem" for name in combined["components"]["schemas"])
    assert list(combined["components"]["responses"]) == ["DEFAULT_ERROR"]
    assert combined["components"]["securitySchemes"] == {"bearerAuth": BEARER}


def test_tags_and_operation_ids_are_unique_per_service() -> None:
    combined = two()
    assert [t["name"] for t in combined["tags"]] == ["games ops", "games things", "matchmaking ops",
                                                    "matchmaking things"]
    assert combined["paths"]["/games/healthz"]["get"]["tags"] == ["games ops"]
    assert combined["paths"]["/games/v1/games"]["get"]["operationId"] == "games_list"
    assert combined["paths"]["/matchmaking/v1/leagues"]["get"]["operationId"] == "matchmaking_list"


def test_the_inputs_are_left_unchanged() -> None:
    games = document("games", "seat", "/v1/games")
    before = repr(games)
    combine({"games": games}, "http://x")
    assert repr(games) == before


def test_documents_of_different_openapi_versions_are_refused() -> None:
    newer = document("ratings", "x", "/v1/pools") | {"openapi": "3.1.0"}
    with pytest.raises(ValueError, match="different OpenAPI versions"):
        combine({"games": document("games", "seat", "/v1/games"), "ratings": newer}, "http://x")
