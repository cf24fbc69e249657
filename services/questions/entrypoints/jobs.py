"""RQ jobs of the questions service: thin functions taking a message envelope (ids and values only).

Nothing is built at import time: the first job builds the service from ``Settings.from_env()`` and
the routing environment (``ROUTING_BACKEND``, ``OSRM_URL``) and keeps it for the worker's life.
"""

from __future__ import annotations

import logging
from typing import Any

from services.questions.service_layer.handlers import QuestionsService

log = logging.getLogger(__name__)

_SERVICES: dict[tuple[str, ...], QuestionsService] = {}


def _service() -> QuestionsService:
    from services.questions.bootstrap import build_service
    from services.questions.config import RoutingConfig
    from shared.config import Settings
    from shared.service_kit import Infrastructure

    settings, routing = Settings.from_env(), RoutingConfig.from_env()
    key = (settings.database_url, settings.redis_url, repr(routing))
    svc = _SERVICES.get(key)
    if svc is None:
        svc = _SERVICES[key] = build_service(Infrastructure.connect(settings, max_size=4), routing)
    return svc


def handle_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """Consume one routed message: ``QuestionRequested`` -> draw, record, reply ``QuestionDrawn``
    through the outbox; ``GameFinished`` / ``GameAborted`` -> the game's questions leave play (see
    ``services.questions.service_layer.game_draws``)."""
    log.info("received %s %s", message.get("type"), message.get("message_id"))
    svc = _service()
    svc.ensure_sample_pack()
    return svc.handle_message(message)
