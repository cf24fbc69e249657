"""What the ratings use cases need from storage (PostgreSQL in adapters/postgres.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.ratings.domain.rating import Adjustment, Rating


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    status: str
    pool: str | None
    finished_position: int | None


@dataclass(frozen=True)
class HistoryRow:
    """One stored adjustment, in the order rebuilds compare them."""

    player_id: str
    seq: int
    game_id: str
    side: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    finished_position: int


class RatingsRepository(ABC):
    """Reads and writes of the ratings schema inside one transaction."""

    # -- writing -----------------------------------------------------------------------
    @abstractmethod
    def lock(self) -> None:
        """Serialize rating writers for the rest of the transaction (ratings depend on order)."""

    @abstractmethod
    def consume_once(self, consumer: str, message_id: str) -> bool: ...

    @abstractmethod
    def game(self, game_id: str) -> GameRecord | None: ...

    @abstractmethod
    def save_game(
        self,
        game_id: str,
        status: str,
        *,
        game_type: str | None = None,
        pool: str | None = None,
        reason: str | None = None,
        players: Sequence[str] = (),
        finished_position: int | None = None,
        finished_at: datetime | None = None,
    ) -> None:
        """Insert or update the game's row (fields given as None keep their stored value)."""

    @abstractmethod
    def append_received(self, game_id: str, event_type: str, payload: dict[str, Any]) -> int:
        """Store a received message as an event of the game's stream; returns its position."""

    @abstractmethod
    def ratings(self, pool: str, players: Sequence[str]) -> dict[str, Rating]: ...

    @abstractmethod
    def record_adjustments(self, pool: str, adjustments: Sequence[Adjustment], position: int) -> None:
        """RatingAdjusted events, current ratings and history for one rated game."""

    @abstractmethod
    def replace_pool(
        self,
        pool: str,
        adjustments: Sequence[tuple[int, Adjustment]],
        games: int,
        reason: str,
        cause: str | None,
    ) -> int:
        """A new epoch of the pool: PoolRecomputed and the adjustments again; returns the epoch."""

    @abstractmethod
    def save_name(self, player_id: str, display_name: str, name_version: int) -> bool:
        """Keep the player's display name if ``name_version`` is newer than the stored one."""

    # -- reading -----------------------------------------------------------------------
    @abstractmethod
    def names(self, player_ids: Sequence[str]) -> dict[str, str]:
        """Display names of those players that have one (from PlayerRegistered / PlayerRenamed)."""

    @abstractmethod
    def finished_count(self) -> int:
        """How many GameFinished messages the log holds (a progress bar's total)."""

    @abstractmethod
    def finished_log(self) -> Iterator[tuple[int, Mapping[str, Any]]]:
        """Every received GameFinished body with its position, in log order."""

    @abstractmethod
    def voided_games(self) -> set[str]: ...

    @abstractmethod
    def stored_pools(self) -> list[str]: ...

    @abstractmethod
    def pool_state(self, pool: str) -> tuple[dict[str, Rating], list[HistoryRow]]:
        """Current ratings and all history rows of a pool (ordered by player and seq)."""

    @abstractmethod
    def pool_summaries(self) -> dict[str, dict[str, Any]]: ...

    @abstractmethod
    def leaderboard(
        self,
        pool: str,
        limit: int,
        offset: int,
        include_provisional: bool,
        provisional_sigma: float,
        include_bots: bool = True,
    ) -> tuple[list[dict[str, Any]], int]: ...

    @abstractmethod
    def save_bot_level(self, player_id: str, level: str) -> None:
        """Flag the player as a bot of ``level`` (from its PlayerRegistered message)."""

    @abstractmethod
    def bot_levels(self, player_ids: Sequence[str]) -> dict[str, str]:
        """player id -> bot level, for those of ``player_ids`` that are bots."""

    @abstractmethod
    def player_ratings(self, player_id: str) -> list[dict[str, Any]]: ...

    @abstractmethod
    def player_history(self, player_id: str, pool: str | None = None) -> list[dict[str, Any]]: ...


class UnitOfWork(ABC):
    @abstractmethod
    def begin(self) -> AbstractContextManager[RatingsRepository]:
        """One transaction: commits on success, rolls back on error."""

    @abstractmethod
    def read(self) -> AbstractContextManager[RatingsRepository]: ...
