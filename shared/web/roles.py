"""Role tokens at the door: what an organiser or auditor token may write, in every service.

An auditor changes nothing: every write request (POST, PUT, PATCH, DELETE) with an auditor token is a
403, whatever the endpoint, unless the operation only computes an answer (``reads_only``, documented as
``x-reads-only: true``). An organiser writes only in the blueprints that say so (``allow_role_writes``:
matchmaking's leagues, where each league command then checks that the league is theirs). So a new
write endpoint is closed to role tokens until it is opened on purpose."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, current_app, request
from flask_smorest import Blueprint

from shared.auth import bearer_token
from shared.errors import Forbidden, Unauthorized
from shared.web.identity import known_player_token, request_identity

F = TypeVar("F", bound=Callable[..., Any])
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
READS_ONLY = "x-reads-only"
_ROLE_WRITES = "speltafel_role_writes"
_READS_ONLY_ATTR = "speltafel_reads_only"


def allow_role_writes(blueprint: Blueprint, *roles: str) -> None:
    """Role tokens of ``roles`` may call this blueprint's write endpoints (its own checks still apply)."""
    setattr(blueprint, _ROLE_WRITES, tuple(roles))


def reads_only(blueprint: Blueprint) -> Callable[[F], F]:
    """Mark a POST that changes nothing (e.g. a prediction): role tokens, auditors included, may call it."""

    def mark(func: F) -> F:
        setattr(func, _READS_ONLY_ATTR, True)
        documented: F = blueprint.doc(**{READS_ONLY: True})(func)
        return documented

    return mark


def _view(app: Flask) -> Any:
    view: Any = app.view_functions.get(request.endpoint or "")
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        view = getattr(view_class, request.method.lower(), None)
    return view


def install(app: Flask, blueprints: list[Blueprint]) -> None:
    """Refuse role-token writes the blueprint does not allow (before the body is validated)."""
    allowed = {bp.name: tuple(getattr(bp, _ROLE_WRITES, ())) for bp in blueprints}

    @app.before_request
    def _role_token_writes() -> None:
        if request.method in SAFE_METHODS or "player_directory" not in current_app.extensions:
            return
        token = bearer_token(request.headers.get("Authorization"))
        if token is None:
            return
        if known_player_token() is not None:
            return  # a player token (seen live): no role; the endpoint checks it (a move in its own transaction)
        if getattr(_view(app), _READS_ONLY_ATTR, False):
            return
        try:
            who = request_identity()
        except Unauthorized:
            return  # the endpoint answers an unknown token itself (401 where it needs one)
        if who.role is None or who.role in allowed.get(request.blueprint or "", ()):
            return
        if who.auditor:
            raise Forbidden("an auditor token reads audits and exports; it changes nothing", field="Authorization")
        raise Forbidden(f"an {who.role} token cannot do this", field="Authorization")
