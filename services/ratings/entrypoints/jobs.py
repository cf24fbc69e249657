"""RQ jobs of the ratings service: thin functions taking a message envelope (ids and values only).

The service is built lazily on first use (never at import time) from ``Settings.from_env()`` and
kept per database URL for the life of the worker process. Exceptions are never swallowed: a job
that fails stays in RQ's failed registry.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)
_lock = threading.Lock()
_services: dict[str, Any] = {}


def _service() -> Any:
    from services.ratings.adapters.postgres import PostgresUnitOfWork
    from services.ratings.service_layer.handlers import RatingsService
    from shared.config import Settings
    from shared.db import make_pool

    url = Settings.from_env().database_url
    with _lock:
        if url not in _services:
            _services[url] = RatingsService(PostgresUnitOfWork(make_pool(url, max_size=2)))
        return _services[url]


def handle_message(message: dict[str, Any]) -> str:
    """Consume one routed message (GameFinished, GameAborted, GameVoided, PlayerRegistered, PlayerRenamed;
    see shared.messages.ROUTES)."""
    outcome: str = _service().handle_message(message)
    return outcome
