"""Errors of the matchmaking use cases (on shared.errors; the one shared handler renders them)."""

from __future__ import annotations

from shared.errors import Conflict, Forbidden, InvalidRequest, NotFound, ServiceError, Unauthorized

MatchmakingError = ServiceError

__all__ = ["Conflict", "Forbidden", "InvalidRequest", "MatchmakingError", "NotFound", "Unauthorized"]
