"""An in-memory unit of work for the questions service layer (the port's fake)."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from services.questions.domain.model import PackVersion
from services.questions.domain.ports import Repository, UnitOfWork
from shared.eventstore.model import OutboxMessage


class FakeState:
    def __init__(self) -> None:
        self.packs: list[tuple[PackVersion, dict[str, Any]]] = []
        self.draws: dict[str, dict[str, Any]] = {}
        self.outbox: list[OutboxMessage] = []
        self.processed: set[tuple[str, str]] = set()


class FakeRepository(Repository):
    def __init__(self, state: FakeState) -> None:
        self.s = state

    def current_packs(self) -> list[PackVersion]:
        latest: dict[str, PackVersion] = {}
        for p, _ in self.s.packs:
            latest[p.id] = p
        return sorted(latest.values(), key=lambda p: p.id)

    def list_versions(self, pack_id: str | None = None) -> list[PackVersion]:
        rows = [p for p, _ in self.s.packs if pack_id is None or p.id == pack_id]
        return sorted(rows, key=lambda p: (p.id, p.version))

    def pack_data(self, pack_id: str, version: int) -> Mapping[str, Any] | None:
        for p, data in self.s.packs:
            if (p.id, p.version) == (pack_id, version):
                return copy.deepcopy(data)
        return None

    def add_pack(
        self, data: Mapping[str, Any], content_hash: str, source_format: str, only_if_new: bool = False
    ) -> PackVersion | None:
        header = data["pack"]
        current = max((p.version for p, _ in self.s.packs if p.id == header["id"]), default=0)
        if only_if_new and current:
            return None
        p = PackVersion(
            header["id"], current + 1, header["version"], header["title"], header["licence"],
            header["attribution"], header["sample"], content_hash, len(data["questions"]), source_format,
            "2024-01-01T00:00:00+00:00",
        )
        self.s.packs.append((p, {"pack": {**header, "version": str(p.version)}, "questions": list(data["questions"])}))
        return p

    def add_draw(self, row: Mapping[str, Any]) -> bool:
        if row.get("game_id") is not None and self.draw_for_request(row["game_id"], row["request_no"]):
            return False
        self.s.draws[row["id"]] = {
            **{"game_id": None, "request_no": None, "message_id": None}, **copy.deepcopy(dict(row)),
            "answer": None, "correct": None, "reveal": None, "answered_at": None, "created_at": "now", "closed_at": None,
        }
        return True

    def get_draw(self, question_id: str, for_update: bool = False) -> dict[str, Any] | None:
        row = self.s.draws.get(question_id)
        return copy.deepcopy(row) if row else None

    def draw_for_request(self, game_id: str, request_no: int) -> dict[str, Any] | None:
        for row in self.s.draws.values():
            if (row["game_id"], row["request_no"]) == (game_id, request_no):
                return copy.deepcopy(row)
        return None

    def record_answer(
        self, question_id: str, answer: Mapping[str, Any], correct: bool, reveal: Mapping[str, Any]
    ) -> None:
        self.s.draws[question_id].update(answer=dict(answer), correct=correct, reveal=dict(reveal), answered_at="now")

    def close_game_draws(self, game_id: str, before_request_no: int | None = None) -> int:
        closed = 0
        for row in self.s.draws.values():
            if row["game_id"] == game_id and row.get("closed_at") is None and (
                    before_request_no is None or row["request_no"] < before_request_no):
                row["closed_at"] = "now"
                closed += 1
        return closed

    def in_play_sources(self) -> set[str]:
        return {str((row["question"].get("reveal") or {}).get("source_id")) for row in self.s.draws.values()
                if row["game_id"] is not None and row.get("closed_at") is None}

    def add_outbox(self, messages: list[OutboxMessage]) -> None:
        self.s.outbox.extend(messages)

    def consume_once(self, consumer: str, message_id: str) -> bool:
        if (consumer, message_id) in self.s.processed:
            return False
        self.s.processed.add((consumer, message_id))
        return True


class FakeUnitOfWork(UnitOfWork):
    """Commits by copying the working state back; an exception discards it (rollback)."""

    def __init__(self) -> None:
        self.state = FakeState()

    @contextmanager
    def begin(self) -> Iterator[Repository]:
        work = copy.deepcopy(self.state)
        yield FakeRepository(work)
        self.state = work
