"""HTTP adapters to the ratings and games services (stdlib urllib, short timeouts, tolerant parsing).

Neither service's code is imported; only their documented HTTP APIs are used. When a service does
not answer (or answers something unexpected) the adapters fall back instead of failing the use case:
ratings to mu=25, sigma=25/3 and the local win-probability formula; the audit to a note. The game
types (what a ticket or league is checked against) have no fallback: None, and the use case answers 503.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

from services.matchmaking.adapters.ports import GamesPort, RatingsPort, local_probabilities
from services.matchmaking.domain.matching import Rating

log = logging.getLogger(__name__)
DEFAULT_RATINGS_URL = "http://127.0.0.1:8004"
DEFAULT_GAMES_URL = "http://127.0.0.1:8001"


class ServiceUnavailable(Exception):
    pass


def _request(url: str, body: dict[str, Any] | None = None, timeout: float = 2.0) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET")
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # the configured service URL
            return json.loads(resp.read().decode() or "null")
    except urllib.error.HTTPError as exc:
        raise ServiceUnavailable(f"{url} answered {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ServiceUnavailable(f"{url}: {exc}") from None


def _post_checked(url: str, body: dict[str, Any], timeout: float) -> tuple[int, Any]:
    """(status, JSON answer) of a POST whose 422 is an answer, not a failure; ServiceUnavailable otherwise."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    req.add_header("Accept", "application/json, application/problem+json")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # the configured service URL
            return 200, json.loads(resp.read().decode() or "null")
    except urllib.error.HTTPError as exc:
        if exc.code != 422:
            raise ServiceUnavailable(f"{url} answered {exc.code}") from None
        try:
            return 422, json.loads(exc.read().decode() or "null")
        except ValueError:
            raise ServiceUnavailable(f"{url} answered 422 without JSON") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise ServiceUnavailable(f"{url}: {exc}") from None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _find_rating(document: Any, pool: str) -> Rating | None:
    """Accepts {"ratings": [{"pool", "mu", "sigma"}]}, a bare list of those, or {pool: {"mu", "sigma"}}."""
    entries: Any = document
    if isinstance(document, dict):
        for key in ("ratings", "items", "pools"):
            if key in document:
                entries = document[key]
                break
    if isinstance(entries, dict):
        entry = entries.get(pool)
        entries = [dict(entry, pool=pool)] if isinstance(entry, dict) else []
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, dict) and entry.get("pool") == pool:
            mu, sigma = _number(entry.get("mu")), _number(entry.get("sigma"))
            if mu is not None and sigma is not None:
                return Rating(mu, sigma)
    return None


class HttpRatings(RatingsPort):
    def __init__(self, base_url: str | None = None, timeout: float = 2.0) -> None:
        self.base = (base_url or os.environ.get("RATINGS_URL") or DEFAULT_RATINGS_URL).rstrip("/")
        self.timeout = timeout

    def rating(self, pool: str, player_id: str) -> tuple[Rating, str]:
        url = f"{self.base}/v1/players/{urllib.parse.quote(player_id, safe='')}/ratings"
        try:
            found = _find_rating(_request(url, timeout=self.timeout), pool)
        except ServiceUnavailable as exc:
            log.warning("ratings service unavailable, default rating used: %s", exc)
            return Rating(), "default"
        return (found, "ratings") if found else (Rating(), "default")

    def predict(self, pool: str, teams: Sequence[Sequence[str]], ratings: dict[str, Rating]) -> list[float]:
        body = {"pool": pool, "teams": [list(t) for t in teams]}
        try:
            answer = _request(f"{self.base}/v1/predict", body, timeout=self.timeout)
        except ServiceUnavailable as exc:
            log.warning("ratings predict unavailable, local formula used: %s", exc)
            return local_probabilities(teams, ratings)
        probs = answer.get("probabilities") if isinstance(answer, dict) else answer
        if isinstance(probs, list) and len(probs) == len(teams):
            values = [_number(p) for p in probs]
            if all(v is not None for v in values):
                return [float(v) for v in values if v is not None]
        return local_probabilities(teams, ratings)


class HttpGames(GamesPort):
    """``game_types`` is cached for ``game_types_ttl`` seconds (``MATCHMAKING_GAME_TYPES_TTL``, default
    60): every ticket and league is checked against it, and the game types change only with a deploy.
    A failed fetch is not cached, and an expired copy is not used: the caller answers 503."""

    def __init__(self, base_url: str | None = None, timeout: float = 5.0, game_types_ttl: float | None = None) -> None:
        self.base = (base_url or os.environ.get("GAMES_URL") or DEFAULT_GAMES_URL).rstrip("/")
        self.timeout = timeout
        ttl = game_types_ttl if game_types_ttl is not None else os.environ.get("MATCHMAKING_GAME_TYPES_TTL")
        self.game_types_ttl = float(ttl) if ttl not in (None, "") else 60.0
        self._types: tuple[float, list[dict[str, Any]]] | None = None  # (fetched at, monotonic; answer)
        self._lock = threading.Lock()

    def audit(self, game_id: str) -> dict[str, Any]:
        url = f"{self.base}/v1/games/{urllib.parse.quote(game_id, safe='')}/audit"
        try:
            report = _request(url, timeout=self.timeout)
        except ServiceUnavailable as exc:
            return {"available": False, "error": str(exc)}
        if not isinstance(report, dict):
            return {"available": False, "error": "the audit answer was not a JSON object"}
        return {"available": True, **report}

    def game_types(self) -> list[dict[str, Any]] | None:
        with self._lock:
            cached = self._types
            if cached is not None and time.monotonic() - cached[0] < self.game_types_ttl:
                return cached[1]
            try:
                answer = _request(f"{self.base}/v1/game-types", timeout=self.timeout)
            except ServiceUnavailable as exc:
                log.warning("games service unavailable for game types: %s", exc)
                return None
            if not isinstance(answer, list):
                return None
            types = [t for t in answer if isinstance(t, dict)]
            self._types = (time.monotonic(), types)
            return types

    def check_tables(
        self, game_type: str, counts: Sequence[int], options: dict[str, Any], clock: dict[str, Any] | None,
        timeout_policy: str | None,
    ) -> dict[str, Any] | None:
        body: dict[str, Any] = {"game_type": game_type, "player_counts": list(counts), "options": options}
        body |= {k: v for k, v in (("clock", clock), ("timeout_policy", timeout_policy)) if v is not None}
        try:
            status, answer = _post_checked(f"{self.base}/v1/game-types/table-checks", body, self.timeout)
        except ServiceUnavailable as exc:
            log.warning("games service unavailable for a table check: %s", exc)
            return None
        if not isinstance(answer, dict):
            return None
        if status == 200:
            return {"ok": True, **answer}
        errors = answer.get("errors")
        field = next(iter(errors), None) if isinstance(errors, dict) else None
        return {"ok": False, "field": field, "detail": answer.get("detail"), "rule": answer.get("rule")}
