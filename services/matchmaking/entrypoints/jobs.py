"""RQ jobs of the matchmaking service: thin functions taking a message envelope (ids and values only).

- ``GameCreatedForTable`` (from games): the table's tickets (or league table) get the game id.
- ``GameFinished`` / ``GameAborted`` (from games): league results (an aborted league table counts for
  nobody and waits for the organiser's re-seat); queue tickets are closed.
- ``PlayerRegistered`` / ``PlayerRenamed`` (from games): display names for leagues and standings.
- ``tick``: one matching run (enqueue it periodically, or run ``python -m
  services.matchmaking.entrypoints.ticker``).

Each message is consumed once (``consume_once`` in the same transaction as its effects).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from services.matchmaking.service_layer.handlers import MatchmakingService

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _service() -> MatchmakingService:
    from services.matchmaking.bootstrap import build_service
    from shared.config import Settings
    from shared.service_kit import Infrastructure

    return build_service(Infrastructure.connect(Settings.from_env(), max_size=4))


def handle_message(message: dict[str, Any]) -> None:
    """Consume one routed message (see shared.messages.ROUTES)."""
    log.info("received %s %s", message.get("type"), message.get("message_id"))
    _service().handle_message(message)


def tick() -> list[str]:
    """One matching run; returns the request ids of the tables formed."""
    return _service().tick()
