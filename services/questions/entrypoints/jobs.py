"""RQ jobs of the questions service: thin functions taking a message envelope (ids and values only)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def handle_message(message: dict[str, Any]) -> None:
    """Consume one routed message (see shared.messages.ROUTES)."""
    log.info("received %s %s", message.get("type"), message.get("message_id"))
