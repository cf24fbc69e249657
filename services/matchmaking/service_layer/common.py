"""Small helpers of the matchmaking use cases: ids, times and a table's clock."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from services.matchmaking.service_layer.errors import InvalidRequest, NotFound


def _valid_uuid(value: str, what: str, field: str | None = None) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        if field:
            raise InvalidRequest(f"{value!r} is not a valid id", field=field) from None
        raise NotFound(f"no {what} {value}") from None


def _timing(clock: dict[str, Any] | None, timeout_policy: str | None) -> dict[str, Any]:
    """A table's ``clock`` and ``timeout_policy`` (both None without a clock), as stored and sent."""
    return {"clock": clock, "timeout_policy": timeout_policy if clock is not None else None}


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value
