"""Errors of the question use cases; bootstrap turns each into one problem+json answer."""

from __future__ import annotations

from typing import Any


class QuestionsServiceError(Exception):
    status = 400
    title = "Bad Request"

    def __init__(self, detail: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.extra = extra


class NotFound(QuestionsServiceError):
    status, title = 404, "Not Found"


class Unauthorized(QuestionsServiceError):
    status, title = 401, "Unauthorized"


class Forbidden(QuestionsServiceError):
    status, title = 403, "Forbidden"


class Conflict(QuestionsServiceError):
    status, title = 409, "Conflict"


class UnsupportedMediaType(QuestionsServiceError):
    status, title = 415, "Unsupported Media Type"


class InvalidRequest(QuestionsServiceError):
    """422 naming the field that is wrong."""

    status, title = 422, "Unprocessable Content"


class PackRejected(QuestionsServiceError):
    """422: the pack has errors; ``rows`` lists every one, nothing was imported."""

    status, title = 422, "Invalid question pack"

    def __init__(self, detail: str, rows: list[dict[str, Any]]) -> None:
        super().__init__(detail)
        self.rows = rows


class RoutingUnavailable(QuestionsServiceError):
    status, title = 503, "Routing unavailable"
