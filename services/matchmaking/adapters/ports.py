"""Ports of the matchmaking use cases: what they need from the ratings and games services."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from services.matchmaking.domain.matching import Rating, win_probabilities


class RatingsPort(ABC):
    """Ratings by pool. Implementations never raise for an unreachable service: they fall back."""

    @abstractmethod
    def rating(self, pool: str, player_id: str) -> tuple[Rating, str]:
        """The player's rating in ``pool`` and its source (``ratings`` or ``default``)."""

    @abstractmethod
    def predict(self, pool: str, teams: Sequence[Sequence[str]], ratings: dict[str, Rating]) -> list[float]:
        """Win probability per team; falls back to the local formula over ``ratings``."""


class GamesPort(ABC):
    @abstractmethod
    def audit(self, game_id: str) -> dict[str, Any]:
        """The games service's audit report, or {"available": False, "error": ...} when it does not answer."""

    @abstractmethod
    def game_types(self) -> list[dict[str, Any]] | None:
        """The hosted game types, or None when the games service does not answer."""

    @abstractmethod
    def check_tables(
        self, game_type: str, counts: Sequence[int], options: dict[str, Any], clock: dict[str, Any] | None,
        timeout_policy: str | None,
    ) -> dict[str, Any] | None:
        """What the games service would make of tables of ``counts`` players (``POST /v1/game-types/
        table-checks``): ``{"ok": True, "tables", "clock", "timeout_policy"}`` (normalized), or ``{"ok":
        False, "field", "detail", "rule"}`` (its 422), or None when it does not answer."""


def local_probabilities(teams: Sequence[Sequence[str]], ratings: dict[str, Rating]) -> list[float]:
    return win_probabilities([[ratings.get(p, Rating()) for p in team] for team in teams])
