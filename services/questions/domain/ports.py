"""Ports of the question service (abstract, pure): the repository of one transaction and the unit of work.

They live in domain/ so that adapters (below the service layer) can implement them."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from services.questions.domain.model import PackVersion
from shared.eventstore.model import OutboxMessage


class Repository(abc.ABC):
    """Reads and writes of the questions schema inside one transaction."""

    @abc.abstractmethod
    def current_packs(self) -> list[PackVersion]:
        """The latest version of every pack (the current bank)."""

    @abc.abstractmethod
    def list_versions(self, pack_id: str | None = None) -> list[PackVersion]:
        """Every stored version (of one pack), by pack id and version."""

    @abc.abstractmethod
    def pack_data(self, pack_id: str, version: int) -> Mapping[str, Any] | None:
        """``{"pack": header, "questions": rows}`` of one version."""

    @abc.abstractmethod
    def add_pack(
        self, data: Mapping[str, Any], content_hash: str, source_format: str, only_if_new: bool = False
    ) -> PackVersion | None:
        """Store the next version of ``data["pack"]["id"]``; with ``only_if_new`` only when the pack
        id has no version yet (returns None otherwise)."""

    @abc.abstractmethod
    def add_draw(self, row: Mapping[str, Any]) -> bool:
        """Record a drawn question; False when (game_id, request_no) was already recorded."""

    @abc.abstractmethod
    def get_draw(self, question_id: str, for_update: bool = False) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    def draw_for_request(self, game_id: str, request_no: int) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    def record_answer(
        self, question_id: str, answer: Mapping[str, Any], correct: bool, reveal: Mapping[str, Any]
    ) -> None: ...

    @abc.abstractmethod
    def close_game_draws(self, game_id: str, before_request_no: int | None = None) -> int:
        """Mark a game's questions as no longer in play (those before ``before_request_no``, or all);
        returns how many were open."""

    @abc.abstractmethod
    def in_play_sources(self) -> set[str]:
        """The source ids (bank row ids, or generated ids) of the questions running games wait on."""

    @abc.abstractmethod
    def add_outbox(self, messages: list[OutboxMessage]) -> None: ...

    @abc.abstractmethod
    def consume_once(self, consumer: str, message_id: str) -> bool:
        """True when ``message_id`` is new for ``consumer`` (and records it in this transaction)."""


class UnitOfWork(abc.ABC):
    @abc.abstractmethod
    def begin(self) -> AbstractContextManager[Repository]:
        """One transaction: commits on success, rolls back on error."""

    def read(self) -> AbstractContextManager[Repository]:
        return self.begin()

