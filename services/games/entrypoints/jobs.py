"""RQ jobs of the games service: thin functions taking a message envelope (ids and values only).

- ``CreateGameRequested`` (from matchmaking): create the table (with its ``clock`` and ``timeout_policy``,
  when the ticket, private table or league has one); the reply ``GameCreatedForTable``
  leaves through the outbox in the same transaction. The game id is derived from the request id, so
  a repeated request creates nothing new. A request the games service refuses (a 422 over HTTP: unknown
  game type, options the table size does not allow ...) is answered with ``GameCreationRefused``
  {request_id, game_type, reason, field, rule}, so the table shows ``failed`` instead of waiting for ever.
- ``QuestionDrawn`` (from the questions service): record the question in the game's log.
- ``GameAbortRequested`` (from matchmaking: a league table was forfeited while its game ran): abort the
  game with the league's reason (``GameAborted``); a game that has ended meanwhile stays as it is.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import psycopg

from services.games.service_layer.errors import Conflict, InvalidRequest, NotFound
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity

log = logging.getLogger(__name__)
_NAMESPACE = uuid.UUID("6f1c3f1e-6d1b-4d0e-9a55-5e7a1a0b7c11")


_SERVICES: dict[tuple[str, str, str], GamesService] = {}


def _service() -> GamesService:
    """Built on first use (never at import time) and kept for the worker's life, per configuration."""
    import os

    from services.games.bootstrap import build_service
    from shared.config import Settings
    from shared.service_kit import Infrastructure

    settings = Settings.from_env()
    key = (settings.database_url, settings.redis_url, os.environ.get("SPELTAFEL_EXTRA_ENGINES", ""))
    if key not in _SERVICES:
        _SERVICES[key] = build_service(Infrastructure.connect(settings, max_size=4))
    return _SERVICES[key]


def handle_message(message: dict[str, Any]) -> None:
    kind, body = message["type"], message["body"]
    if kind == "CreateGameRequested":
        create_game(body)
    elif kind == "QuestionDrawn":
        recorded = _service().resolve_external(
            body["game_id"],
            "question",
            int(body["request_no"]),
            {k: v for k, v in body.items() if k not in {"game_id", "request_no"}},
        )
        log.info("question %s for %s recorded: %s", body["request_no"], body["game_id"], recorded)
    elif kind == "GameAbortRequested":
        abort_requested(body)
    else:
        raise ValueError(f"the games queue does not handle {kind!r}")


def abort_requested(body: dict[str, Any]) -> None:
    try:
        _service().abort(Identity(admin=True), str(body["game_id"]), str(body.get("reason") or "requested"))
    except Conflict as ended:  # finished or aborted already: nothing to do (a repeated message too)
        log.info("abort of %s not needed: %s", body["game_id"], ended.detail)
    except NotFound:
        log.warning("abort requested for unknown game %s", body["game_id"])


def create_game(body: dict[str, Any]) -> None:
    game_id = str(uuid.uuid5(_NAMESPACE, str(body["request_id"])))
    service = _service()
    reply = (
        "GameCreatedForTable",
        f"game-for:{body['request_id']}",
        {"request_id": body["request_id"], "seats": body["seats"]},
    )
    try:
        seats = service.bot_seats(list(body["seats"]), list(body.get("bots") or []))  # matchmaking's bot fill
        request = {"game_type": body["game_type"], "options": body.get("options") or {}, "seats": seats}
        request |= {k: body[k] for k in ("clock", "timeout_policy") if body.get(k) is not None}  # the table's clock
        service.create_game(Identity(admin=True), request, game_id=game_id, reply=reply)
    except psycopg.errors.UniqueViolation:
        log.info("game %s for request %s exists already", game_id, body["request_id"])
    except InvalidRequest as refusal:
        log.warning("request %s refused: %s (%s)", body["request_id"], refusal.detail, refusal.field)
        service.refuse_queued_request(str(body["request_id"]), str(body.get("game_type")), refusal)
