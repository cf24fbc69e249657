"""Errors of the games use cases; the HTTP boundary turns each into one problem+json answer."""

from __future__ import annotations

from typing import Any


class GameServiceError(Exception):
    status = 400
    title = "Bad Request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(GameServiceError):
    status, title = 404, "Not Found"


class Unauthorized(GameServiceError):
    status, title = 401, "Unauthorized"


class Forbidden(GameServiceError):
    status, title = 403, "Forbidden"


class Conflict(GameServiceError):
    status, title = 409, "Conflict"


class InvalidRequest(GameServiceError):
    """422 naming the field (``field=``) that is wrong."""

    status, title = 422, "Unprocessable Content"


class RuleViolation(GameServiceError):
    """An illegal move: 422 with ``rule`` and ``code``."""

    status, title = 422, "Illegal move"
