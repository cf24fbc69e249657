"""Errors of the ratings use cases; the HTTP boundary turns each into one problem+json answer."""

from __future__ import annotations

from typing import Any


class RatingsError(Exception):
    status = 400
    title = "Bad Request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(RatingsError):
    status, title = 404, "Not Found"


class InvalidRequest(RatingsError):
    """422 naming the field (``field=``) that is wrong."""

    status, title = 422, "Unprocessable Content"


class InvalidMessage(RatingsError):
    """A queue message without the envelope or ids the consumer needs (the job fails loudly)."""

    status, title = 422, "Invalid message"
