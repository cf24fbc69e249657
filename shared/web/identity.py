"""Who is calling: the one place every service turns the Authorization header into an Identity."""

from __future__ import annotations

from flask import current_app, request

from shared.auth import Identity, PlayerDirectory, UnknownToken, authenticate
from shared.errors import Unauthorized


def request_identity() -> Identity:
    """Player, admin or anonymous; an unknown bearer token is a 401 naming the header.

    Needs ``app.extensions["player_directory"]`` and ``app.config["ADMIN_TOKEN"]`` (set by bootstrap)."""
    directory: PlayerDirectory = current_app.extensions["player_directory"]
    try:
        return authenticate(
            request.headers.get("Authorization"), current_app.config.get("ADMIN_TOKEN"), directory
        )
    except UnknownToken:
        raise Unauthorized("the bearer token is not valid", field="Authorization") from None
