"""Errors of the question use cases (on shared.errors; the one shared handler renders them)."""

from __future__ import annotations

from typing import Any

from shared.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    ServiceError,
    Unauthorized,
    Unavailable,
    UnsupportedMediaType,
)

QuestionsServiceError = ServiceError


class PackRejected(InvalidRequest):
    """422: the pack has errors; ``rows`` lists every one, nothing was imported."""

    problem = "pack-rejected"

    def __init__(self, detail: str, rows: list[dict[str, Any]]) -> None:
        super().__init__(detail, rows=rows)
        self.rows = rows

    def problem_errors(self) -> dict[str, list[str]]:
        errors: dict[str, list[str]] = {}
        for r in self.rows:
            name = r["field"] if r["row"] is None else f"questions[{r['row']}].{r['field']}"
            errors.setdefault(name, []).append(r["message"])
        return errors


class RoutingUnavailable(Unavailable):
    problem = "routing-unavailable"


__all__ = [
    "Conflict",
    "Forbidden",
    "InvalidRequest",
    "NotFound",
    "PackRejected",
    "QuestionsServiceError",
    "RoutingUnavailable",
    "Unauthorized",
    "UnsupportedMediaType",
]
