"""Rate limits (moving windows in Redis through the ``limits`` library), answered as 429 problem+json
with ``Retry-After``. Which limits exist and their defaults: ``shared.config.RateLimits``; where they
apply: ``@rate_limited(blueprint, kind)`` on a view, and ``note_token_failure`` in the identity lookup.

A Redis that does not answer lets the request through (logged): a limit must not turn an outage of the
limiter's store into an outage of the API."""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from apispec import BasePlugin
from flask import Flask, current_app, request
from flask_smorest import Blueprint
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from shared.config import RateLimits
from shared.web.problems import ApiProblem, problem_type

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
KINDS = ("register", "token_failures", "moves")


@dataclass
class Limiter:
    enabled: bool
    items: dict[str, list[RateLimitItem]]
    strategy: MovingWindowRateLimiter | None
    prefix: str

    @classmethod
    def build(cls, limits: RateLimits, redis_url: str, service: str) -> Limiter:
        items = {kind: list(parse_many(getattr(limits, kind))) for kind in KINDS}
        strategy = None
        if limits.enabled:
            strategy = MovingWindowRateLimiter(
                storage_from_string(redis_url, socket_timeout=1, socket_connect_timeout=1)
            )
        return cls(limits.enabled, items, strategy, f"speltafel:{service}")

    def hit(self, kind: str, key: str) -> None:
        """Count one event of ``kind`` for ``key``; a 429 ApiProblem when a limit is exceeded."""
        if not self.enabled or self.strategy is None:
            return
        for item in self.items[kind]:
            try:
                allowed = self.strategy.hit(item, self.prefix, kind, key)
                if allowed:
                    continue
                reset = self.strategy.get_window_stats(item, self.prefix, kind, key).reset_time
            except Exception as exc:  # the store is down: fail open
                log.warning("rate limit store unavailable (%s); not limiting %s", type(exc).__name__, kind)
                return
            retry = max(1, math.ceil(reset - time.time()))
            raise ApiProblem(
                429,
                "Too Many Requests",
                f"more than {item} for {kind.replace('_', ' ')}; retry in {retry} s",
                type_=problem_type("too-many-requests"),
                headers={"Retry-After": str(retry)},
                code="rate_limited",
                limit=str(item),
            )


def install(app: Flask, limiter: Limiter) -> None:
    app.extensions["speltafel_limiter"] = limiter


def limiter() -> Limiter | None:
    found: Limiter | None = current_app.extensions.get("speltafel_limiter")
    return found


def client_address() -> str:
    return request.remote_addr or "unknown"


def note_token_failure() -> None:
    """An unknown bearer token: counted per client address (429 once over ``token_failures``)."""
    active = limiter()
    if active is not None:
        active.hit("token_failures", client_address())


RATE_LIMITED_DOC = {
    "description": "rate limited: wait `Retry-After` seconds (limits: README, Rate limits)",
    "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds to wait"}},
}


def rate_limited(blueprint: Blueprint, kind: str, key: Callable[[], str | None] = client_address) -> Callable[[F], F]:
    """Count each call of the view under ``kind`` for ``key()`` (None: not counted) and document 429."""
    if kind not in KINDS:
        raise ValueError(f"unknown rate limit kind {kind!r}")

    def decorate(view: F) -> F:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            active = limiter()
            if active is not None:
                who = key()
                if who is not None:
                    active.hit(kind, who)
            return view(*args, **kwargs)

        documented: F = blueprint.alt_response(429, **RATE_LIMITED_DOC)(wrapper)
        return documented

    return decorate


WRITE_METHODS = frozenset({"post", "put", "patch", "delete"})
UNAUTHORIZED_DOC = {"description": "the bearer token is not valid (or missing where one is required)"}


class TokenFailureDocPlugin(BasePlugin):
    """apispec plugin: every operation that reads the bearer token documents the token-failure 429 (with
    ``Retry-After``), and every bearer-authenticated one the 401. An operation reads the token when it is
    documented with ``bearerAuth`` security, or when it is a write: the role-token check at the door
    (``shared.web.roles``) looks at a token sent to any write, except one marked ``x-reads-only``."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            if not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            bearer = any("bearerAuth" in s for s in operation.get("security") or [])
            writes = method.lower() in WRITE_METHODS and not operation.get("x-reads-only")
            if bearer and "401" not in responses and 401 not in responses:
                responses["401"] = dict(UNAUTHORIZED_DOC)
            if (bearer or writes) and "429" not in responses and 429 not in responses:
                responses["429"] = {**RATE_LIMITED_DOC, "description": "rate limited (too many requests, or too "
                                    "many unknown bearer tokens from this address): wait `Retry-After` seconds "
                                    "(limits: README, Rate limits)"}
