"""Errors of the games use cases (on shared.errors; the one shared handler renders them)."""

from __future__ import annotations

from shared.errors import Conflict, Forbidden, InvalidRequest, NotFound, ServiceError, Unauthorized

GameServiceError = ServiceError


class RuleViolation(InvalidRequest):
    """An illegal move: 422 with ``rule`` (the spec's id) and ``code``."""

    title = "Illegal move"


__all__ = [
    "Conflict",
    "Forbidden",
    "GameServiceError",
    "InvalidRequest",
    "NotFound",
    "RuleViolation",
    "Unauthorized",
]
