"""Use cases of players: profiles, renaming and token rotation (identity belongs to the games service).

Registration, renames and tokens are kept by ``shared.auth.PlayerDirectory`` (schema ``identity``);
names leave as PlayerRegistered / PlayerRenamed through the games outbox so that other services keep
their own copy. Games played come from this service's read model of games.
"""

from __future__ import annotations

from typing import Any

from services.games.adapters.postgres import UnitOfWork
from services.games.service_layer.errors import Forbidden, InvalidRequest, NotFound, Unauthorized
from shared.auth import Identity, InvalidDisplayName, PlayerDirectory


class PlayersService:
    def __init__(self, directory: PlayerDirectory, uow: UnitOfWork) -> None:
        self.directory = directory
        self.uow = uow

    def register(self, display_name: str) -> dict[str, Any]:
        try:
            player_id, token = self.directory.register(display_name)
        except InvalidDisplayName as exc:
            raise InvalidRequest(str(exc), field="display_name") from None
        player = self.directory.get(player_id)
        assert player is not None
        return {**player, "token": token}

    def profile(self, player_id: str) -> dict[str, Any]:
        player = self.directory.get(player_id)
        if player is None:
            raise NotFound(f"no player {player_id}", field="player_id")
        with self.uow.read() as repo:
            played = repo.games_played(player_id)
        return {**player, "games_played": played, "games_played_total": sum(played.values())}

    def me(self, identity: Identity) -> dict[str, Any]:
        return self.profile(_own_id(identity))

    def rename(self, identity: Identity, display_name: str) -> dict[str, Any]:
        player_id = _own_id(identity)
        try:
            renamed = self.directory.rename(player_id, display_name)
        except InvalidDisplayName as exc:
            raise InvalidRequest(str(exc), field="display_name") from None
        if renamed is None:
            raise NotFound(f"no player {player_id}", field="player_id")
        return self.profile(player_id)

    def issue_token(self, identity: Identity) -> dict[str, Any]:
        player_id = _own_id(identity)
        return {"player_id": player_id, "token": self.directory.issue_token(player_id)}

    def revoke_current(self, identity: Identity, token: str | None) -> None:
        _own_id(identity)
        if token is None or not self.directory.revoke_token(token):
            raise Unauthorized("the bearer token is not valid", field="Authorization")


def _own_id(identity: Identity) -> str:
    if identity.player_id is not None:
        return identity.player_id
    if identity.admin:
        raise Forbidden("the admin token belongs to no player; use a player's token", field="Authorization")
    raise Unauthorized("send a player's bearer token (from POST /v1/players)", field="Authorization")
