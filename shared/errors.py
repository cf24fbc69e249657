"""The errors every service's use cases raise; one handler (shared.web.app) renders each as problem+json.

Each service keeps its own module of errors, built on these: the status and title come from the
class, ``field`` names what is wrong (rendered as per-field ``errors``), and selected extras
(``rule``, ``code``, ``version`` ...) are added to the problem body.
"""

from __future__ import annotations

from typing import Any

PROBLEM_EXTRAS = frozenset({"rule", "code", "version", "ticket_id", "rows", "backend"})
PROBLEM_TYPE_BASE = "https://speltafel.example/problems/"

# RFC 9110 section 15 status phrases (Python 3.11's http.HTTPStatus still has the RFC 7231 ones for these)
RFC9110_PHRASES: dict[int, str] = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    408: "Request Timeout",
    409: "Conflict",
    412: "Precondition Failed",
    413: "Content Too Large",
    414: "URI Too Long",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    428: "Precondition Required",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

# Every problem type any service answers with: name -> (status, title, meaning). The type URI is
# PROBLEM_TYPE_BASE + name (kebab-case); the title is always the RFC 9110 phrase of the status. A
# plain HTTP error is named after its status phrase; the specific ones say what went wrong.
PROBLEM_TYPES: dict[str, tuple[int, str, str]] = {
    **{
        phrase.lower().replace(" ", "-"): (status, phrase, f"HTTP {status} {phrase}; see detail")
        for status, phrase in RFC9110_PHRASES.items()
        if status not in (422,)
    },
    "validation-failed": (422, "Unprocessable Content", "a field of the request is invalid; errors names it"),
    "illegal-move": (422, "Unprocessable Content", "the move breaks a rule; rule has the spec id, code a stable code"),
    "pack-rejected": (422, "Unprocessable Content", "a question pack has errors; rows lists every one, nothing imported"),
    "invalid-message": (422, "Unprocessable Content", "a queue message lacks the envelope or ids its consumer needs"),
    "idempotency-in-flight": (409, "Conflict", "a request with this Idempotency-Key is still running; see Retry-After"),
    "routing-unavailable": (503, "Service Unavailable", "the road-distance backend does not answer"),
}


def problem_type(name: str) -> str:
    """The type URI of a listed problem type; an unlisted name is a KeyError (one scheme, one place)."""
    if name not in PROBLEM_TYPES:
        raise KeyError(f"unlisted problem type {name!r}: add it to shared.errors.PROBLEM_TYPES")
    return PROBLEM_TYPE_BASE + name


def problem_for_status(status: int) -> str:
    """The generic problem type name of a status (``not-found`` for 404); 422 is ``validation-failed``."""
    if status == 422:
        return "validation-failed"
    phrase = RFC9110_PHRASES.get(status)
    return phrase.lower().replace(" ", "-") if phrase else "bad-request" if status < 500 else "internal-server-error"


def status_phrase(status: int) -> str:
    phrase = RFC9110_PHRASES.get(status)
    if phrase is None:
        from http import HTTPStatus

        phrase = HTTPStatus(status).phrase
    return phrase


class ServiceError(Exception):
    status = 400
    title = "Bad Request"
    problem = "bad-request"  # a PROBLEM_TYPES name

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
    problem = "not-found"


class Unauthorized(ServiceError):
    status, title = 401, "Unauthorized"
    problem = "unauthorized"


class Forbidden(ServiceError):
    status, title = 403, "Forbidden"
    problem = "forbidden"


class Conflict(ServiceError):
    status, title = 409, "Conflict"
    problem = "conflict"


class UnsupportedMediaType(ServiceError):
    status, title = 415, "Unsupported Media Type"
    problem = "unsupported-media-type"


class InvalidRequest(ServiceError):
    """422 naming the field that is wrong."""

    status, title = 422, "Unprocessable Content"
    problem = "validation-failed"


class Unavailable(ServiceError):
    """503; ``retry_after`` (seconds) becomes the Retry-After header, ``backend`` names what is down."""

    status, title = 503, "Service Unavailable"
    problem = "service-unavailable"
