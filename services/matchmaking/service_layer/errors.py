"""Errors of the matchmaking use cases; bootstrap maps each to one problem+json answer."""

from __future__ import annotations

from typing import Any


class MatchmakingError(Exception):
    status = 400
    title = "Bad Request"

    def __init__(self, detail: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.extra = extra


class NotFound(MatchmakingError):
    status, title = 404, "Not Found"


class Unauthorized(MatchmakingError):
    status, title = 401, "Unauthorized"


class Forbidden(MatchmakingError):
    status, title = 403, "Forbidden"


class Conflict(MatchmakingError):
    status, title = 409, "Conflict"


class InvalidRequest(MatchmakingError):
    status, title = 422, "Unprocessable Content"
