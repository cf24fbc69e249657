"""Who is calling: the one place every service turns the Authorization header into an Identity."""

from __future__ import annotations

from flask import current_app, g, request

from shared.auth import Identity, PlayerDirectory, UnknownToken, authenticate, bearer_token, hash_token
from shared.errors import Unauthorized
from shared.web.ratelimit import note_token_failure


def request_identity() -> Identity:
    """Player, admin, organiser or auditor (role tokens), or anonymous; an unknown bearer token is a 401 naming the header (a 429 once the
    client address has sent too many of them, see ``RATE_LIMIT_TOKEN_FAILURES``).

    Needs ``app.extensions["player_directory"]`` and ``app.config["ADMIN_TOKEN"]`` (set by bootstrap).
    Looked up once per request."""
    cached: Identity | None = g.get("speltafel_identity")
    if cached is not None:
        return cached
    if g.get("speltafel_identity_failed"):  # counted once per request
        raise Unauthorized("the bearer token is not valid", field="Authorization")
    directory: PlayerDirectory = current_app.extensions["player_directory"]
    try:
        identity = authenticate(
            request.headers.get("Authorization"), current_app.config.get("ADMIN_TOKEN"), directory,
            _bearer()[1],
        )
    except UnknownToken:
        g.speltafel_identity_failed = True
        note_token_failure()
        raise Unauthorized("the bearer token is not valid", field="Authorization") from None
    g.speltafel_identity = identity
    return identity


def identity_checked_later() -> Identity:
    """``request_identity``, except that a player token this process has seen live is not looked up
    now: its hash is left in ``g.speltafel_token_check`` for the caller to check inside its own
    transaction (a move, see ``PlayerDirectory.known_token``)."""
    cached: Identity | None = g.get("speltafel_identity")
    if cached is not None:
        return cached
    known = known_player_token()
    if known is None:
        return request_identity()
    g.speltafel_identity = identity = Identity(player_id=known[0])
    g.speltafel_token_check = known[1]
    return identity


def _bearer() -> tuple[str | None, str | None]:
    """(bearer token, its hash) of this request: hashed once per request, whoever asks."""
    cached: tuple[str | None, str | None] | None = g.get("speltafel_bearer")
    if cached is None:
        token = bearer_token(request.headers.get("Authorization"))
        cached = g.speltafel_bearer = (token, hash_token(token) if token is not None else None)
    return cached


def known_player_token() -> tuple[str, str] | None:
    """``PlayerDirectory.known_token`` of this request's bearer token (player id, token hash), looked
    up once per request (the role-token guard and the move both ask)."""
    if "speltafel_known_token" in g:
        known: tuple[str, str] | None = g.speltafel_known_token
        return known
    token, digest = _bearer()
    directory: PlayerDirectory = current_app.extensions["player_directory"]
    known = directory.known_token(token, digest) if token is not None else None
    g.speltafel_known_token = known
    return known


def player_key() -> str | None:
    """Rate-limit key of the calling player (None for anonymous callers and the admin)."""
    identity = request_identity()
    return None if identity.admin or identity.player_id is None else f"player:{identity.player_id}"
