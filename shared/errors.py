"""The errors every service's use cases raise; one handler (shared.web.app) renders each as problem+json.

Each service keeps its own module of errors, built on these: the status and title come from the
class, ``field`` names what is wrong (rendered as per-field ``errors``), and selected extras
(``rule``, ``code``, ``version`` ...) are added to the problem body.
"""

from __future__ import annotations

from typing import Any

PROBLEM_EXTRAS = frozenset({"rule", "code", "version", "ticket_id", "rows"})


class ServiceError(Exception):
    status = 400
    title = "Bad Request"

    def __init__(self, detail: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field
        self.extra = extra

    def problem_errors(self) -> dict[str, list[str]] | None:
        return {self.field: [self.detail]} if self.field else None

    def problem_extra(self) -> dict[str, Any]:
        return {k: v for k, v in self.extra.items() if k in PROBLEM_EXTRAS}


class NotFound(ServiceError):
    status, title = 404, "Not Found"


class Unauthorized(ServiceError):
    status, title = 401, "Unauthorized"


class Forbidden(ServiceError):
    status, title = 403, "Forbidden"


class Conflict(ServiceError):
    status, title = 409, "Conflict"


class UnsupportedMediaType(ServiceError):
    status, title = 415, "Unsupported Media Type"


class InvalidRequest(ServiceError):
    """422 naming the field that is wrong."""

    status, title = 422, "Unprocessable Content"


class Unavailable(ServiceError):
    status, title = 503, "Service Unavailable"
