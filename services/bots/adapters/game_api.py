"""The bots' HTTP client of the public games API: one bot, its own bearer token, documented endpoints only.

It can read the game (its own seat's view: the server answers a token with that token's seat), its
legal moves, and post a move. There is no way here to read events, another seat or the state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

# (method, url, token) of every request, for whoever wants to know what a bot read (tests, debugging)
Recorder = Callable[[str, str, str], None]


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    retry_after: float | None = None


class GameApi:
    def __init__(
        self, base_url: str, token: str, timeout: float = 10.0, recorder: Recorder | None = None
    ) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.recorder = recorder
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.http.headers["User-Agent"] = "speltafel-bots"

    def _call(self, method: str, path: str, **kw: Any) -> Answer:
        url = self.base + path
        if self.recorder is not None:
            self.recorder(method, url, self.token)
        r = self.http.request(method, url, timeout=self.timeout, **kw)
        try:
            body = r.json()
        except ValueError:
            body = None
        retry = r.headers.get("Retry-After")
        return Answer(r.status_code, body, float(retry) if retry and retry.isdigit() else None)

    def game(self, game_id: str) -> Answer:
        """``GET /v1/games/{id}``: the bot seat's view."""
        return self._call("GET", f"/v1/games/{game_id}")

    def legal_moves(self, game_id: str) -> Answer:
        """``GET /v1/games/{id}/legal-moves``: the bot seat's legal moves now."""
        return self._call("GET", f"/v1/games/{game_id}/legal-moves")

    def move(self, game_id: str, move: dict[str, Any], expected_version: int, key: str) -> Answer:
        """``POST /v1/games/{id}/moves`` with ``expected_version`` and an ``Idempotency-Key``."""
        return self._call(
            "POST",
            f"/v1/games/{game_id}/moves",
            json={"move": move, "expected_version": expected_version},
            headers={"Idempotency-Key": key},
        )
