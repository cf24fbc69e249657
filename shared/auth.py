"""Bearer tokens: players registered in the ``identity`` schema, role tokens (organiser, auditor) minted
by the admin, and one admin token from the environment."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from shared.bots import bot_display_name, bot_player_id, bot_token
from shared.eventstore.model import OutboxMessage
from shared.messages import outbox_for

ORGANISER, AUDITOR = "organiser", "auditor"
ROLES = (ORGANISER, AUDITOR)


@dataclass(frozen=True)
class Identity:
    """Who calls: a player, the admin, a role token's principal (organiser or auditor), or nobody.

    ``principal_id`` is the organiser's or auditor's id: every token minted for that principal carries
    it, so an organiser's leagues stay theirs when a token is rotated."""

    player_id: str | None = None
    admin: bool = False
    role: str | None = None  # ORGANISER or AUDITOR for a role token
    principal_id: str | None = None

    @property
    def anonymous(self) -> bool:
        return self.player_id is None and not self.admin and self.role is None

    @property
    def organiser(self) -> bool:
        return self.role == ORGANISER

    @property
    def auditor(self) -> bool:
        return self.role == AUDITOR


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


DISPLAY_NAME_MAX = 40
IDENTITY_OUTBOX = "games"  # identity belongs to the games service; its messages leave through that outbox


class InvalidDisplayName(ValueError):
    """A display name that cannot be shown (empty, too long, control characters, lone surrogates)."""


def clean_display_name(value: str) -> str:
    """The display name to store: trimmed, 1-40 characters, no control characters or lone surrogates."""
    name = value.strip()
    if not 1 <= len(name) <= DISPLAY_NAME_MAX:
        raise InvalidDisplayName(f"a display name has 1-{DISPLAY_NAME_MAX} characters after trimming")
    for ch in name:
        category = unicodedata.category(ch)
        if category == "Cs":
            raise InvalidDisplayName("a display name may not contain lone surrogates")
        if category in {"Cc", "Cf", "Zl", "Zp"} and ch not in "\u200d":
            raise InvalidDisplayName(f"a display name may not contain control characters (U+{ord(ch):04X})")
    return name


def _name_message(
    kind: str, player_id: str, name: str, version: int, bot_level: str | None = None
) -> list[OutboxMessage]:
    body: dict[str, Any] = {"player_id": player_id, "display_name": name, "name_version": version}
    if bot_level is not None:
        body["bot_level"] = bot_level  # a bot account (shared/bots.py); absent for humans
    return outbox_for(kind, f"{player_id}:name:{version}", body)


def _write_outbox(conn: psycopg.Connection[Any], rows: list[OutboxMessage]) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            sql.SQL("INSERT INTO {s}.outbox (queue, job, message) VALUES (%s, %s, %s)").format(
                s=sql.Identifier(IDENTITY_OUTBOX)
            ),
            [(m.queue, m.job, Jsonb(m.message)) for m in rows],
        )


class PlayerDirectory:
    """Players, their names and tokens (PostgreSQL, schema ``identity``).

    Every token lookup asks the database (an indexed read): a revoked token stops working at once in
    every process. A move is the one exception (``known_token``): the token's player is taken from
    this process's memory and the token is checked inside the move's own transaction
    (``identity.require_token``), which a revoked token aborts. Names leave as PlayerRegistered / PlayerRenamed through the games outbox, in the
    same transaction as the identity row."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._known: dict[str, str] = {}  # token hash -> player id of tokens seen live (never changes)

    def register(self, display_name: str) -> tuple[str, str]:
        name = clean_display_name(display_name)
        player_id, token = str(uuid.uuid4()), new_token()
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO identity.players (id, display_name, name_version) VALUES (%s, %s, 1)",
                (player_id, name),
            )
            conn.execute(
                "INSERT INTO identity.tokens (token_hash, player_id) VALUES (%s, %s)", (hash_token(token), player_id)
            )
            _write_outbox(conn, _name_message("PlayerRegistered", player_id, name, 1))
        return player_id, token

    def rename(self, player_id: str, display_name: str) -> dict[str, Any] | None:
        """The player with the new name (None for an unknown player); PlayerRenamed goes out with it."""
        name = clean_display_name(display_name)
        with self._pool.connection() as conn, conn.transaction():
            row = conn.execute(
                "UPDATE identity.players SET display_name = %s, name_version = name_version + 1"
                " WHERE id = %s RETURNING name_version, bot_level",
                (name, player_id),
            ).fetchone()
            if row is None:
                return None
            _write_outbox(conn, _name_message("PlayerRenamed", player_id, name, int(row[0]), row[1]))
        return self.get(player_id)

    def issue_token(self, player_id: str) -> str:
        """A new bearer token for the player (returned once; older tokens keep working)."""
        token = new_token()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO identity.tokens (token_hash, player_id) VALUES (%s, %s)", (hash_token(token), player_id)
            )
        return token

    def revoke_token(self, token: str) -> bool:
        """Revoke one token; True when it was live."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "UPDATE identity.tokens SET revoked_at = now() WHERE token_hash = %s AND revoked_at IS NULL"
                " RETURNING 1",
                (hash_token(token),),
            ).fetchone()
        self._known.pop(hash_token(token), None)
        return row is not None

    def identity_for_token(self, token: str, digest: str | None = None) -> Identity | None:
        """The player or role token's identity; None for an unknown or revoked token (one round trip).
        ``digest``: the token's ``hash_token``, when the caller has it already."""
        digest = digest or hash_token(token)
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT player_id::text, NULL, NULL FROM identity.tokens WHERE token_hash = %s AND revoked_at IS NULL"
                " UNION ALL SELECT NULL, role, principal_id::text FROM identity.role_tokens"
                " WHERE token_hash = %s AND revoked_at IS NULL LIMIT 1",
                (digest, digest),
            ).fetchone()
        if row is None:
            self._known.pop(digest, None)
            return None
        if row[0] is not None:
            self._remember(digest, str(row[0]))
            return Identity(player_id=str(row[0]))
        return Identity(role=str(row[1]), principal_id=str(row[2]))

    def _remember(self, digest: str, player_id: str) -> None:
        """A player token seen live (for ``known_token``); a token never changes its player."""
        if len(self._known) > 100_000:
            self._known.clear()
        self._known[digest] = player_id

    # ------------------------------------------------------------------ role tokens (minted by the admin)
    def issue_role_token(self, role: str, label: str, principal_id: str | None = None) -> dict[str, Any]:
        """A new organiser or auditor token (the secret is returned once, only its hash is kept).

        Without ``principal_id`` a new principal is made; with one, an existing principal of the same
        role gets another token (rotation: an organiser keeps their leagues). KeyError for an unknown one."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        token, token_id = new_token(), str(uuid.uuid4())
        with self._pool.connection() as conn, conn.transaction():
            if principal_id is not None:
                known = conn.execute(
                    "SELECT 1 FROM identity.role_tokens WHERE principal_id::text = %s AND role = %s LIMIT 1",
                    (principal_id, role),
                ).fetchone()
                if known is None:
                    raise KeyError(principal_id)
            row = conn.execute(
                "INSERT INTO identity.role_tokens (id, token_hash, role, principal_id, label)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING " + _ROLE_TOKEN_COLUMNS,
                (token_id, hash_token(token), role, principal_id or str(uuid.uuid4()), label),
            ).fetchone()
        assert row is not None
        return {**_role_token(row), "token": token}

    def role_tokens(self, role: str | None = None, include_revoked: bool = False) -> list[dict[str, Any]]:
        """Role tokens without their secrets, oldest first."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {_ROLE_TOKEN_COLUMNS} FROM identity.role_tokens"
                " WHERE (%s::text IS NULL OR role = %s) AND (%s OR revoked_at IS NULL)"
                " ORDER BY created_at, id",
                (role, role, include_revoked),
            ).fetchall()
        return [_role_token(r) for r in rows]

    def revoke_role_token(self, token_id: str) -> dict[str, Any] | None:
        """Revoke a role token by its id (a second revocation keeps the first time); None if unknown."""
        try:
            uuid.UUID(token_id)
        except ValueError:
            return None
        with self._pool.connection() as conn:
            row = conn.execute(
                "UPDATE identity.role_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s"
                " RETURNING " + _ROLE_TOKEN_COLUMNS,
                (token_id,),
            ).fetchone()
        return _role_token(row) if row else None

    def known_token(self, token: str, digest: str | None = None) -> tuple[str, str] | None:
        """(player id, token hash) of a token this process has seen live, without asking the database:
        only for a caller that checks the token in its own transaction (``require_token``).
        ``digest``: the token's ``hash_token``, when the caller has it already."""
        digest = digest or hash_token(token)
        player_id = self._known.get(digest)
        return (player_id, digest) if player_id is not None else None

    def get(self, player_id: str) -> dict[str, Any] | None:
        try:
            uuid.UUID(player_id)
        except ValueError:
            return None
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT id, display_name, created_at, bot_level FROM identity.players WHERE id = %s",
                (player_id,),
            ).fetchone()
        if not row:
            return None
        return {
            "id": str(row[0]),
            "display_name": row[1],
            "created_at": row[2].isoformat(),
            "bot": {"level": row[3]} if row[3] else None,
        }

    # ------------------------------------------------------------------ bot accounts (shared/bots.py)
    def ensure_bot(self, level: str, number: int, secret: str) -> str:
        """The id of bot account ``level``/``number``, registered (with PlayerRegistered) on first use;
        its token for ``secret`` is (re)recorded by hash, so a new ``BOTS_SECRET`` takes effect."""
        player_id = bot_player_id(level, number)
        name = bot_display_name(level, number)
        with self._pool.connection() as conn, conn.transaction():
            inserted = conn.execute(
                "INSERT INTO identity.players (id, display_name, name_version, bot_level, bot_number)"
                " VALUES (%s, %s, 1, %s, %s) ON CONFLICT DO NOTHING RETURNING 1",
                (player_id, name, level, number),
            ).fetchone()
            if inserted:
                _write_outbox(conn, _name_message("PlayerRegistered", player_id, name, 1, level))
            self._record_bot_token(conn, player_id, secret)
        return player_id

    @staticmethod
    def _record_bot_token(conn: psycopg.Connection[Any], player_id: str, secret: str) -> None:
        token_hash = hash_token(bot_token(secret, player_id))
        conn.execute(
            "INSERT INTO identity.tokens (token_hash, player_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (token_hash, player_id),
        )
        # tokens of an earlier BOTS_SECRET stop working
        conn.execute(
            "UPDATE identity.tokens SET revoked_at = now()"
            " WHERE player_id = %s AND token_hash <> %s AND revoked_at IS NULL",
            (player_id, token_hash),
        )

    def refresh_bot_tokens(self, secret: str) -> int:
        """Record every bot account's token for ``secret`` (at start-up); how many bots there are."""
        with self._pool.connection() as conn, conn.transaction():
            ids = [
                str(r[0])
                for r in conn.execute(
                    "SELECT id FROM identity.players WHERE bot_level IS NOT NULL"
                ).fetchall()
            ]
            for player_id in ids:
                self._record_bot_token(conn, player_id, secret)
        return len(ids)

    def bot_levels(self, player_ids: list[str | None]) -> dict[str, str]:
        """player id -> bot level, for those of ``player_ids`` that are bots."""
        ids = sorted({p for p in player_ids if p})
        if not ids:
            return {}
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT id::text, bot_level FROM identity.players"
                " WHERE id::text = ANY(%s) AND bot_level IS NOT NULL",
                (ids,),
            ).fetchall()
        return {r[0]: r[1] for r in rows}


_ROLE_TOKEN_COLUMNS = "id::text, role, principal_id::text, label, created_at, revoked_at"


def _role_token(row: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "id": row[0],
        "role": row[1],
        "principal_id": row[2],
        "label": row[3],
        "created_at": row[4].isoformat(),
        "revoked_at": row[5].isoformat() if row[5] else None,
    }


def authenticate(
    authorization: str | None, admin_token: str | None, directory: PlayerDirectory, digest: str | None = None
) -> Identity:
    """Identity for an Authorization header; an unknown or revoked token raises UnknownToken (401).
    ``digest``: the bearer token's ``hash_token``, when the caller has it already."""
    token = bearer_token(authorization)
    if token is None:
        return ANONYMOUS
    if admin_token and hmac.compare_digest(token.encode(), admin_token.encode()):
        return Identity(admin=True)
    identity = directory.identity_for_token(token, digest)
    if identity is None:
        raise UnknownToken
    return identity


class UnknownToken(Exception):
    """The bearer token matches no player."""
