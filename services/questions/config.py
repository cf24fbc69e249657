"""Settings of the questions service read from the environment (beyond shared.config.Settings)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

ROUTING_BACKENDS = ("estimate", "osrm")


@dataclass(frozen=True)
class RoutingConfig:
    """``ROUTING_BACKEND`` (estimate | osrm), ``OSRM_URL``, ``OSRM_PROFILE``, ``OSRM_TIMEOUT`` (seconds)
    and ``ROUTE_CACHE_TTL`` (seconds a route stays in the Redis cache)."""

    backend: str = "estimate"
    osrm_url: str | None = None
    osrm_profile: str = "driving"
    osrm_timeout: float = 5.0
    cache_ttl: int = 30 * 24 * 3600

    def __post_init__(self) -> None:
        if self.backend not in ROUTING_BACKENDS:
            raise ValueError(f"ROUTING_BACKEND must be one of {', '.join(ROUTING_BACKENDS)}, not {self.backend!r}")
        if self.backend == "osrm" and not self.osrm_url:
            raise ValueError("ROUTING_BACKEND=osrm needs OSRM_URL (e.g. http://127.0.0.1:5000)")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RoutingConfig:
        e = os.environ if env is None else env
        return cls(
            backend=(e.get("ROUTING_BACKEND") or "estimate").strip().lower(),
            osrm_url=e.get("OSRM_URL") or None,
            osrm_profile=e.get("OSRM_PROFILE") or "driving",
            osrm_timeout=float(e.get("OSRM_TIMEOUT") or 5.0),
            cache_ttl=int(e.get("ROUTE_CACHE_TTL") or 30 * 24 * 3600),
        )
