"""The gateway's own answers (issue 15 item 7): a service that does not answer is a 502 problem+json with
Retry-After, the combined document is a 503 until every service answers, and an unknown prefix or an
oversized body is a problem+json too (the forwarding itself is tested in tests/e2e/test_one_base_url.py)."""

from __future__ import annotations

import socket

from services.gateway.app import MAX_BODY_BYTES, create_gateway_app


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gateway():  # type: ignore[no-untyped-def]
    return create_gateway_app({"games": f"http://127.0.0.1:{closed_port()}"}).test_client()


def test_a_service_that_does_not_answer_is_a_502_problem_with_retry_after() -> None:
    answer = gateway().get("/games/v1/games")
    assert answer.status_code == 502 and answer.headers["Retry-After"] == "5"
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert "games" in answer.get_json()["detail"]


def test_the_combined_document_waits_for_every_service() -> None:
    answer = gateway().get("/openapi.json")
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.get_json()["backend"] == "games"


def test_unknown_prefixes_and_oversized_bodies_are_problems() -> None:
    client = gateway()
    unknown = client.get("/nosuch/v1/x")
    assert unknown.status_code == 404 and unknown.headers["Content-Type"] == "application/problem+json"
    big = client.post("/games/v1/players", data=b"x" * (MAX_BODY_BYTES + 1), content_type="application/json")
    assert big.status_code == 413 and big.headers["Content-Type"] == "application/problem+json"
