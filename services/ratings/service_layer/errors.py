"""Errors of the ratings use cases (on shared.errors; the one shared handler renders them)."""

from __future__ import annotations

from shared.errors import InvalidRequest, NotFound, ServiceError

RatingsError = ServiceError


class InvalidMessage(InvalidRequest):
    """A queue message without the envelope or ids the consumer needs (the job fails loudly)."""

    problem = "invalid-message"


__all__ = ["InvalidMessage", "InvalidRequest", "NotFound", "RatingsError"]
