"""Fakes of the matchmaking ports for unit tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.matchmaking.adapters.ports import GamesPort, RatingsPort, local_probabilities
from services.matchmaking.domain.matching import Rating


class FakeRatings(RatingsPort):
    def __init__(self, ratings: dict[str, Rating] | None = None) -> None:
        self.ratings = ratings or {}
        self.predictions: list[tuple[str, list[list[str]]]] = []

    def rating(self, pool: str, player_id: str) -> tuple[Rating, str]:
        found = self.ratings.get(player_id)
        return (found, "ratings") if found else (Rating(), "default")

    def predict(self, pool: str, teams: Sequence[Sequence[str]], ratings: dict[str, Rating]) -> list[float]:
        self.predictions.append((pool, [list(t) for t in teams]))
        return local_probabilities(teams, {**ratings, **self.ratings})


class FakeGames(GamesPort):
    def __init__(self, report: dict[str, Any] | None = None) -> None:
        self.report = report

    def audit(self, game_id: str) -> dict[str, Any]:
        return {"available": True, **self.report} if self.report else {"available": False, "error": "down"}

    def game_types(self) -> list[dict[str, Any]] | None:
        return None

    def check_tables(
        self, game_type: str, counts: Sequence[int], options: dict[str, Any], clock: dict[str, Any] | None,
        timeout_policy: str | None,
    ) -> dict[str, Any] | None:
        return None
