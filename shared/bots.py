"""Bot accounts shared by the games service (which seats them) and the bots service (which plays them).

A bot is a registered player with a ``bot_level``. There is one account per level and number
(``Rules bot 1``, ``Rules bot 2`` ...): a table gets the lowest-numbered account of the level that is
not already seated there, so each account keeps one rating over many games and one game never has the
same account twice. Ids are ``uuid5`` of the level and number, so every replica finds the same ones.

A bot's bearer token and its private seed are HMAC-SHA256 of its player id under ``BOTS_SECRET``:
the games service stores only the token's SHA-256 (as for any token) and the bots worker derives the
token when it plays; no token is ever written to a table, a queue or a log.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import uuid

BOT_LEVELS: tuple[str, ...] = ("random", "rules", "strong")
MAX_BOTS_PER_LEVEL = 8  # the largest table has 8 seats at most (GameCreate.seats)
_NAMESPACE = uuid.UUID("b07a1e5e-5b0c-4c2e-8f53-7e1a5b0a7d18")


class BotsNotConfigured(RuntimeError):
    """``BOTS_SECRET`` is not set, so no bot can get a token."""


def bots_secret(env: dict[str, str] | None = None) -> str | None:
    value = (env if env is not None else os.environ).get("BOTS_SECRET") or ""
    return value or None


def bot_player_id(level: str, number: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"bot:{level}:{number}"))


BOT_PLAYER_IDS: frozenset[str] = frozenset(
    bot_player_id(level, number) for level in BOT_LEVELS for number in range(1, MAX_BOTS_PER_LEVEL + 1)
)


def bot_display_name(level: str, number: int) -> str:
    return f"{level.capitalize()} bot {number}"


def _mac(secret: str, purpose: str, player_id: str) -> bytes:
    return hmac.new(secret.encode(), f"{purpose}:{player_id}".encode(), hashlib.sha256).digest()


def bot_token(secret: str, player_id: str) -> str:
    """The bearer token of a bot account (256 bits, like any other token)."""
    return base64.urlsafe_b64encode(_mac(secret, "token", player_id)).rstrip(b"=").decode()


def bot_seed(secret: str, player_id: str) -> int:
    """The bot's own seed: its moves' randomness comes from here, never from a game's seed."""
    return int.from_bytes(_mac(secret, "seed", player_id)[:8], "big")
