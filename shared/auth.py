"""Bearer tokens: players registered in the ``identity`` schema, one admin token from the environment."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg_pool import ConnectionPool


@dataclass(frozen=True)
class Identity:
    player_id: str | None = None
    admin: bool = False

    @property
    def anonymous(self) -> bool:
        return self.player_id is None and not self.admin


ANONYMOUS = Identity()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Tokens carry 256 random bits, so a plain SHA-256 is enough to make a leaked table useless."""
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class PlayerDirectory:
    """Players and token lookup (PostgreSQL, schema ``identity``)."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._known: dict[str, str] = {}  # token hash -> player id (tokens never change owner)

    def register(self, display_name: str) -> tuple[str, str]:
        player_id, token = str(uuid.uuid4()), new_token()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO identity.players (id, display_name, token_hash) VALUES (%s, %s, %s)",
                (player_id, display_name, hash_token(token)),
            )
        return player_id, token

    def player_for_token(self, token: str) -> str | None:
        digest = hash_token(token)
        if digest in self._known:
            return self._known[digest]
        with self._pool.connection() as conn:
            row = conn.execute("SELECT id FROM identity.players WHERE token_hash = %s", (digest,)).fetchone()
        if row is None:
            return None
        if len(self._known) > 100_000:
            self._known.clear()
        self._known[digest] = str(row[0])
        return str(row[0])

    def get(self, player_id: str) -> dict[str, Any] | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT id, display_name, created_at FROM identity.players WHERE id = %s", (player_id,)
            ).fetchone()
        if not row:
            return None
        return {"id": str(row[0]), "display_name": row[1], "created_at": row[2].isoformat()}


def authenticate(authorization: str | None, admin_token: str | None, directory: PlayerDirectory) -> Identity:
    """Identity for an Authorization header; unknown tokens give None (the caller answers 401)."""
    token = bearer_token(authorization)
    if token is None:
        return ANONYMOUS
    if admin_token and hmac.compare_digest(token.encode(), admin_token.encode()):
        return Identity(admin=True)
    player_id = directory.player_for_token(token)
    if player_id is None:
        raise UnknownToken
    return Identity(player_id=player_id)


class UnknownToken(Exception):
    """The bearer token matches no player."""
