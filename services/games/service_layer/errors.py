"""Errors of the games use cases (on shared.errors; the one shared handler renders them)."""

from __future__ import annotations

from shared.errors import Conflict, Forbidden, InvalidRequest, NotFound, ServiceError, Unauthorized

GameServiceError = ServiceError


class RuleViolation(InvalidRequest):
    """An illegal move: 422 with ``rule`` (the spec's id) and ``code``."""

    problem = "illegal-move"


class IdempotencyInFlight(Conflict):
    """409 ``idempotency_in_flight``: a request with this Idempotency-Key is still running; retry after
    ``retry_after`` seconds to get its answer."""

    problem = "idempotency-in-flight"

    def __init__(self, detail: str, retry_after: int = 1) -> None:
        super().__init__(detail, field="Idempotency-Key", code="idempotency_in_flight")
        self.retry_after = retry_after


__all__ = [
    "Conflict",
    "Forbidden",
    "GameServiceError",
    "IdempotencyInFlight",
    "InvalidRequest",
    "NotFound",
    "RuleViolation",
    "Unauthorized",
]
