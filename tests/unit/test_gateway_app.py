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


def test_the_web_client_is_served_at_the_root_with_its_import_map_and_modules() -> None:
    """Issue 16 item 1: ``/`` is the web client (services/web/static); the old service table is its #/status page."""
    client = gateway()
    index = client.get("/")
    assert index.status_code == 200 and index.mimetype == "text/html"
    page = index.get_data(as_text=True)
    for bare, vendored in (("preact", "/vendor/preact.mjs"), ("preact/hooks", "/vendor/hooks.mjs"), ("htm", "/vendor/htm.mjs")):
        assert f'"{bare}": "{vendored}"' in page
    assert '<script type="module" src="/js/app.js">' in page
    app = client.get("/js/app.js")
    assert app.status_code == 200 and app.mimetype in {"text/javascript", "application/javascript"}
    assert client.get("/css/app.css").mimetype == "text/css"


def test_web_files_outside_the_static_folders_are_not_served() -> None:
    client = gateway()
    for path in ("/js/nosuch.js", "/js/../../gateway/app.py", "/vendor/%2e%2e/index.html"):
        answer = client.get(path)
        assert answer.status_code == 404, path
    # a path of no static folder is a service prefix, answered by the proxy part
    assert client.get("/nosuch/app.js").headers["Content-Type"] == "application/problem+json"
