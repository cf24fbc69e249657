"""Display names other services keep from PlayerRegistered / PlayerRenamed (their own ``player_names``).

The identity schema belongs to the games service; ratings and matchmaking never read it for names.
Each keeps ``<schema>.player_names`` from the messages: a message applies only when its
``name_version`` is newer than the stored one, so redeliveries and late arrivals change nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import psycopg
from psycopg import sql

NAME_MESSAGES = ("PlayerRegistered", "PlayerRenamed")


class InvalidNameMessage(ValueError):
    def __init__(self, detail: str, field: str) -> None:
        super().__init__(detail)
        self.field = field


def parse_name_message(body: Any) -> tuple[str, str, int]:
    """(player id, display name, name version) of a PlayerRegistered / PlayerRenamed body."""
    if not isinstance(body, Mapping):
        raise InvalidNameMessage("the body must be an object", "body")
    player_id, name, version = body.get("player_id"), body.get("display_name"), body.get("name_version")
    if not isinstance(player_id, str) or not 1 <= len(player_id) <= 100:
        raise InvalidNameMessage("the body has no player_id", "body.player_id")
    if not isinstance(name, str) or not name:
        raise InvalidNameMessage("the body has no display_name", "body.display_name")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InvalidNameMessage("the body has no name_version (a positive integer)", "body.name_version")
    return player_id, name, version


def save_name(conn: psycopg.Connection[Any], schema: str, player_id: str, name: str, version: int) -> bool:
    """Store the name if ``version`` is newer than the stored one; True when it changed."""
    row = conn.execute(
        sql.SQL(
            "INSERT INTO {s}.player_names AS n (player_id, display_name, name_version) VALUES (%s, %s, %s)"
            " ON CONFLICT (player_id) DO UPDATE SET display_name = EXCLUDED.display_name,"
            " name_version = EXCLUDED.name_version, updated_at = now()"
            " WHERE n.name_version < EXCLUDED.name_version RETURNING 1"
        ).format(s=sql.Identifier(schema)),
        (player_id, name, version),
    ).fetchone()
    return row is not None


def names_of(conn: psycopg.Connection[Any], schema: str, player_ids: Iterable[str | None]) -> dict[str, str]:
    ids = sorted({p for p in player_ids if p})
    if not ids:
        return {}
    rows = conn.execute(
        sql.SQL("SELECT player_id, display_name FROM {s}.player_names WHERE player_id = ANY(%s)").format(
            s=sql.Identifier(schema)
        ),
        (ids,),
    ).fetchall()
    return {r[0]: r[1] for r in rows}
