"""Use cases of players: profiles, renaming and token rotation (identity belongs to the games service).

Registration, renames and tokens are kept by ``shared.auth.PlayerDirectory`` (schema ``identity``);
names leave as PlayerRegistered / PlayerRenamed through the games outbox so that other services keep
their own copy. Games played come from this service's read model of games.
"""

from __future__ import annotations

import uuid
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


    # ------------------------------------------------------------------ role tokens (the admin's)
    def issue_role_token(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        _require_admin(identity)
        principal = body.get("principal_id")
        if principal is not None:
            try:
                principal = str(uuid.UUID(str(principal)))
            except ValueError:
                raise InvalidRequest(f"{principal!r} is not an id", field="principal_id") from None
        try:
            return self.directory.issue_role_token(body["role"], body.get("label") or "", principal)
        except KeyError:
            raise NotFound(f"no {body['role']} {principal}", field="principal_id") from None

    def role_tokens(self, identity: Identity, role: str | None, include_revoked: bool) -> dict[str, Any]:
        _require_admin(identity)
        return {"items": self.directory.role_tokens(role, include_revoked)}

    def revoke_role_token(self, identity: Identity, token_id: str) -> dict[str, Any]:
        _require_admin(identity)
        revoked = self.directory.revoke_role_token(token_id)
        if revoked is None:
            raise NotFound(f"no role token {token_id}")
        return revoked


def _require_admin(identity: Identity) -> None:
    if identity.anonymous:
        raise Unauthorized("minting and revoking role tokens needs the admin token", field="Authorization")
    if not identity.admin:
        raise Forbidden("only the admin token mints and revokes role tokens", field="Authorization")


def _own_id(identity: Identity) -> str:
    if identity.player_id is not None:
        return identity.player_id
    if identity.admin or identity.role is not None:
        raise Forbidden(
            f"the {'admin' if identity.admin else identity.role} token belongs to no player; use a player's token",
            field="Authorization",
        )
    raise Unauthorized("send a player's bearer token (from POST /v1/players)", field="Authorization")
