"""Who may run a league command: the one permission check of every league write.

* the admin token: everything;
* an organiser token: creates leagues, and runs (seats, rules disputes, every later command) only the
  leagues it created; the league records its organiser's ``principal_id`` as ``created_by``;
* a player: files a dispute about a game they played in (the use case checks the game's seats);
* an auditor token: nothing (it reads; shared.web.roles refuses its writes at the door).
"""

from __future__ import annotations

from shared.auth import Identity
from shared.errors import Forbidden, Unauthorized

ADMIN = "admin"


def principal_of(identity: Identity) -> str:
    """What a league records as who did something: ``admin``, the organiser's id or the player's id."""
    if identity.admin:
        return ADMIN
    return identity.principal_id or identity.player_id or "anonymous"


def require_league_command(identity: Identity, organiser: str | None, player_may: bool = False) -> None:
    """``organiser``: the league's ``created_by`` (None: creating a league). ``player_may``: the command
    is open to players too (filing a dispute); the use case narrows it to their own games."""
    if identity.anonymous:
        raise Unauthorized("this needs the league's organiser token (or the admin token)", field="Authorization")
    if identity.admin:
        return
    if identity.organiser:
        if organiser is None or organiser == identity.principal_id:
            return
        raise Forbidden("this league belongs to another organiser", field="Authorization", code="not_organiser")
    if identity.player_id is not None and player_may:
        return
    who = "an auditor token" if identity.auditor else "a player"
    raise Forbidden(f"only the league's organiser (or the admin) may do this, not {who}", field="Authorization",
                    code="not_organiser")
