"""One shape for a player wherever a service lists one: ``{"player_id", "display_name"}``.

The name is the service's own copy (``shared.player_names``: learned from PlayerRegistered /
PlayerRenamed through the queues; the games service reads its identity schema); ``display_name`` is null
for a player whose name has not arrived yet. A seat without a player (a bot's, in matchmaking) is null."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import marshmallow as ma

PLAYER_EXAMPLE = {"player_id": "7f1d2c3b-4a5e-4f60-8172-93a4b5c6d7e8", "display_name": "Anneke"}


def player_ref(player_id: str | None, names: Mapping[str, str]) -> dict[str, Any] | None:
    """The listed player (None for no player: a bot's seat)."""
    if player_id is None:
        return None
    return {"player_id": player_id, "display_name": names.get(player_id)}


def player_refs(player_ids: Iterable[str | None], names: Mapping[str, str]) -> list[dict[str, Any] | None]:
    return [player_ref(p, names) for p in player_ids]


class PlayerRefSchema(ma.Schema):
    """A listed player: id and display name (null until the service has learned the name)."""

    class Meta:
        ordered = True

    player_id = ma.fields.String(required=True, metadata={"example": PLAYER_EXAMPLE["player_id"]})
    display_name = ma.fields.String(required=True, allow_none=True, metadata={
        "example": PLAYER_EXAMPLE["display_name"],
        "description": "the player's display name; null until this service has learned it"})


def players_field(description: str, nullable_items: bool = False, **kw: Any) -> ma.fields.List[Any]:
    """A list of listed players (``nullable_items``: null where a bot sits)."""
    return ma.fields.List(
        ma.fields.Nested(PlayerRefSchema, allow_none=nullable_items), metadata={
            "description": description, "example": [PLAYER_EXAMPLE]}, **kw)


def player_field(description: str, **kw: Any) -> ma.fields.Nested:
    return ma.fields.Nested(PlayerRefSchema, metadata={"description": description, "example": PLAYER_EXAMPLE}, **kw)
