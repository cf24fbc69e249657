"""Routing adapters: OSRM over HTTP (requests), a Redis route cache, and the wiring from config.

The pure parts (the estimate, OSRM URL building and parsing, the in-process cache, the fallback)
live in ``shared.cityhopper.roads``; this module adds the I/O.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from typing import Any

import requests
from redis import Redis
from redis.exceptions import RedisError

from services.questions.config import RoutingConfig
from shared.cityhopper.errors import RoutingError
from shared.cityhopper.roads import (
    CachedRouting,
    EstimateBackend,
    FallbackRouting,
    Fetch,
    OsrmBackend,
    Route,
    RoutingBackend,
)

log = logging.getLogger(__name__)


def requests_fetch(timeout: float = 5.0, session: requests.Session | None = None) -> Fetch:
    """An HTTP GET returning the decoded JSON body; transport failures become ``RoutingError``.

    OSRM answers errors (``NoRoute``, ``InvalidQuery`` ...) as JSON with a non-2xx status, so the
    body is returned whatever the status and ``OsrmBackend.parse`` judges its ``code``.
    """
    http = session or requests.Session()

    def fetch(url: str) -> Mapping[str, Any]:
        try:
            response = http.get(url, timeout=timeout, headers={"Accept": "application/json"})
        except requests.RequestException as exc:
            raise RoutingError(f"OSRM request failed: {type(exc).__name__}: {exc}") from exc
        try:
            body = response.json()
        except ValueError as exc:
            raise RoutingError(f"OSRM answered HTTP {response.status_code} without JSON") from exc
        if not isinstance(body, dict):
            raise RoutingError(f"OSRM answered HTTP {response.status_code} with a non-object body")
        return body

    return fetch


def route_from_dict(data: Mapping[str, Any]) -> Route:
    """The inverse of ``Route.to_dict`` (bounds are derived, not read)."""
    return Route(
        from_id=str(data["from"]),
        to_id=str(data["to"]),
        km=float(data["km"]),
        place_ids=tuple(data["place_ids"]),
        geometry={"type": "LineString", "coordinates": [list(c) for c in data["geometry"]["coordinates"]]},
        method=str(data["method"]),
        edge_ids=tuple(data.get("edge_ids") or ()),
    )


class RedisRouteCache:
    """Routes shared between processes in Redis, keyed by backend and ordered pair.

    The cache is best effort: when Redis fails the route is computed (and the failure logged).
    Errors of the backend are not cached.
    """

    def __init__(self, backend: RoutingBackend, redis: Redis, backend_key: str, ttl: int) -> None:
        self.backend = backend
        self.redis = redis
        self.prefix = f"questions:route:{backend_key}"
        self.ttl = ttl

    def key(self, from_id: str, to_id: str) -> str:
        return f"{self.prefix}:{from_id}:{to_id}"

    def route(self, from_id: str, to_id: str) -> Route:
        key = self.key(from_id, to_id)
        try:
            raw = self.redis.get(key)
        except RedisError as exc:
            log.warning("route cache read failed: %s", exc)
            raw = None
        if raw is not None:
            try:
                return route_from_dict(json.loads(raw))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("route cache entry %s unreadable: %s", key, exc)
        route = self.backend.route(from_id, to_id)
        try:
            self.redis.set(key, json.dumps(route.to_dict()), ex=self.ttl)
        except RedisError as exc:
            log.warning("route cache write failed: %s", exc)
        return route


def backend_key(config: RoutingConfig) -> str:
    """``osrm-<digest of url and profile>``: a different server or profile never shares entries."""
    digest = hashlib.sha256(f"{config.osrm_url}|{config.osrm_profile}".encode()).hexdigest()[:16]
    return f"osrm-{digest}"


def build_routing(config: RoutingConfig, redis: Redis | None) -> tuple[RoutingBackend, str]:
    """The routing the service uses, and a sentence saying how distances are made.

    * ``estimate``: the pure estimate, memoised per ordered pair in process (it is deterministic and
      takes well under a millisecond, so Redis would only add a round trip).
    * ``osrm``: OSRM first (memoised in process and in Redis per backend + ordered pair); when OSRM
      fails or has no car route (car-free Vlieland, Schiermonnikoog) the estimate answers, and the
      route's ``method`` says which one did.
    """
    estimate = CachedRouting(EstimateBackend())
    if config.backend == "estimate":
        return estimate, "estimate"
    assert config.osrm_url is not None
    osrm: RoutingBackend = OsrmBackend(requests_fetch(config.osrm_timeout), config.osrm_url, config.osrm_profile)
    if redis is not None:
        osrm = RedisRouteCache(osrm, redis, backend_key(config), config.cache_ttl)
    return FallbackRouting(CachedRouting(osrm), estimate), "osrm"
