"""RFC 9457 problem details: the one error envelope every service answers with."""

from __future__ import annotations

from typing import Any

from flask import Response, json
from werkzeug.exceptions import HTTPException

from shared.errors import PROBLEM_TYPE_BASE, problem_for_status, problem_type, status_phrase

__all__ = ["PROBLEM_TYPE_BASE", "ApiProblem", "from_api_problem", "from_http_exception", "problem_response",
           "problem_type"]
PROBLEM_MEDIA_TYPE = "application/problem+json"


class ApiProblem(Exception):
    """Raised by views and service layers; rendered by the one handler.

    ``rule`` (a spec rule id) and ``code`` go into the body for illegal moves; ``errors`` holds
    per-field messages for validation failures.
    """

    def __init__(
        self,
        status: int,
        title: str,
        detail: str | None = None,
        *,
        type_: str | None = None,
        errors: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail or title)
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type_ or problem_type(problem_for_status(status))
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra


def problem_response(
    status: int,
    title: str,
    detail: str | None = None,
    type_: str | None = None,
    errors: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """``type_`` is a URI from ``problem_type`` (default: the generic type of the status); the title is
    always the RFC 9110 phrase of the status (shared.errors.PROBLEM_TYPES lists every type)."""
    body: dict[str, Any] = {
        "type": type_ or problem_type(problem_for_status(status)),
        "title": status_phrase(status),
        "status": status,
    }
    if detail:
        body["detail"] = detail
    if errors:
        body["errors"] = errors
    body.update({k: v for k, v in extra.items() if v is not None})
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_MEDIA_TYPE)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def from_api_problem(exc: ApiProblem) -> Response:
    return problem_response(exc.status, exc.title, exc.detail, exc.type, exc.errors, exc.headers, **exc.extra)


def from_http_exception(exc: HTTPException) -> Response:
    """Werkzeug/flask-smorest errors (404, 405, webargs 422 ...) as problem+json."""
    status = exc.code or 500
    data = getattr(exc, "data", None) or {}
    errors = data.get("errors") or data.get("messages")
    headers: dict[str, str] = dict(data.get("headers") or {})
    if status == 405:
        valid = getattr(exc, "valid_methods", None)
        if valid:
            headers["Allow"] = ", ".join(valid)
    detail = data.get("message") or exc.description
    if errors and status == 422:
        detail = "The request does not match the schema: see errors."
    return problem_response(
        status,
        status_phrase(status),
        detail,
        problem_type(problem_for_status(status)),
        _flatten_locations(errors),
        headers,
    )


def _flatten_locations(errors: Any) -> dict[str, Any] | None:
    """webargs nests errors by location ({"json": {"field": [...]}}); keep the field names on top."""
    if not isinstance(errors, dict):
        return None
    flat: dict[str, Any] = {}
    for location, fields in errors.items():
        if isinstance(fields, dict) and location in {"json", "query", "headers", "path", "form", "files"}:
            for name, messages in fields.items():
                flat[name] = messages
        else:
            flat[location] = fields
    return flat
