"""PostgreSQL adapter of the questions service: one repository per transaction (schema ``questions``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from services.questions.domain.model import PackVersion
from services.questions.domain.ports import Repository, UnitOfWork
from shared.eventstore.model import OutboxMessage
from shared.outbox import consume_once

SCHEMA = "questions"

_PACK_COLUMNS = (
    "id, version, declared_version, title, licence, attribution, sample, content_hash, question_count,"
    " source_format, created_at"
)
_DRAW_COLUMNS = (
    "id, game_id, request_no, message_id, city, requested_category, yellow_city, selector, question,"
    " generated, reason, answer, correct, reveal, answered_at, created_at"
)


def _pack(row: tuple[Any, ...]) -> PackVersion:
    return PackVersion(
        id=row[0],
        version=row[1],
        declared_version=row[2],
        title=row[3],
        licence=row[4],
        attribution=row[5],
        sample=row[6],
        content_hash=row[7],
        question_count=row[8],
        source_format=row[9],
        created_at=row[10].isoformat(),
    )


def _draw(row: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "id": str(row[0]),
        "game_id": row[1],
        "request_no": row[2],
        "message_id": row[3],
        "city": row[4],
        "requested_category": row[5],
        "yellow_city": row[6],
        "selector": int(row[7]),
        "question": row[8],
        "generated": row[9],
        "reason": row[10],
        "answer": row[11],
        "correct": row[12],
        "reveal": row[13],
        "answered_at": row[14].isoformat() if row[14] else None,
        "created_at": row[15].isoformat(),
    }


class PostgresRepository(Repository):
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def current_packs(self) -> list[PackVersion]:
        rows = self.conn.execute(
            f"SELECT DISTINCT ON (id) {_PACK_COLUMNS} FROM questions.packs ORDER BY id, version DESC"
        ).fetchall()
        return [_pack(r) for r in rows]

    def list_versions(self, pack_id: str | None = None) -> list[PackVersion]:
        if pack_id is None:
            rows = self.conn.execute(
                f"SELECT {_PACK_COLUMNS} FROM questions.packs ORDER BY id, version"
            ).fetchall()
        else:
            rows = self.conn.execute(
                f"SELECT {_PACK_COLUMNS} FROM questions.packs WHERE id = %s ORDER BY version", (pack_id,)
            ).fetchall()
        return [_pack(r) for r in rows]

    def pack_data(self, pack_id: str, version: int) -> Mapping[str, Any] | None:
        row = self.conn.execute(
            "SELECT data FROM questions.packs WHERE id = %s AND version = %s", (pack_id, version)
        ).fetchone()
        return row[0] if row else None

    def add_pack(
        self, data: Mapping[str, Any], content_hash: str, source_format: str, only_if_new: bool = False
    ) -> PackVersion | None:
        header = data["pack"]
        pack_id = header["id"]
        # one writer per pack id at a time, so versions are 1, 2, 3 ... without gaps or conflicts
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext('questions.packs'), hashtext(%s))", (pack_id,))
        latest = self.conn.execute(
            "SELECT coalesce(max(version), 0) FROM questions.packs WHERE id = %s", (pack_id,)
        ).fetchone()
        current = int(latest[0]) if latest else 0
        if only_if_new and current:
            return None
        version = current + 1
        stored = {"pack": {**header, "version": str(version)}, "questions": list(data["questions"])}
        row = self.conn.execute(
            "INSERT INTO questions.packs (id, version, declared_version, title, licence, attribution, sample,"
            " content_hash, question_count, source_format, data) VALUES"
            " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            f" RETURNING {_PACK_COLUMNS}",
            (
                pack_id,
                version,
                str(header["version"]),
                header["title"],
                header["licence"],
                header["attribution"],
                bool(header["sample"]),
                content_hash,
                len(stored["questions"]),
                source_format,
                Jsonb(stored),
            ),
        ).fetchone()
        assert row is not None
        return _pack(row)

    def add_draw(self, row: Mapping[str, Any]) -> bool:
        inserted = self.conn.execute(
            "INSERT INTO questions.drawn (id, game_id, request_no, message_id, city, requested_category,"
            " yellow_city, selector, question, generated, reason) VALUES"
            " (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING 1",
            (
                row["id"],
                row.get("game_id"),
                row.get("request_no"),
                row.get("message_id"),
                row["city"],
                row["requested_category"],
                row.get("yellow_city"),
                row["selector"],
                Jsonb(row["question"]),
                row["generated"],
                row["reason"],
            ),
        ).fetchone()
        return inserted is not None

    def get_draw(self, question_id: str, for_update: bool = False) -> dict[str, Any] | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self.conn.execute(
            f"SELECT {_DRAW_COLUMNS} FROM questions.drawn WHERE id = %s{lock}", (question_id,)
        ).fetchone()
        return _draw(row) if row else None

    def draw_for_request(self, game_id: str, request_no: int) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {_DRAW_COLUMNS} FROM questions.drawn WHERE game_id = %s AND request_no = %s",
            (game_id, request_no),
        ).fetchone()
        return _draw(row) if row else None

    def record_answer(
        self, question_id: str, answer: Mapping[str, Any], correct: bool, reveal: Mapping[str, Any]
    ) -> None:
        self.conn.execute(
            "UPDATE questions.drawn SET answer = %s, correct = %s, reveal = %s, answered_at = now()"
            " WHERE id = %s",
            (Jsonb(dict(answer)), correct, Jsonb(dict(reveal)), question_id),
        )

    def close_game_draws(self, game_id: str, before_request_no: int | None = None) -> int:
        closed = self.conn.execute(
            "UPDATE questions.drawn SET closed_at = now() WHERE game_id = %s AND closed_at IS NULL"
            " AND (%s::integer IS NULL OR request_no < %s::integer)",
            (game_id, before_request_no, before_request_no),
        )
        return int(closed.rowcount or 0)

    def in_play_sources(self) -> set[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT question->'reveal'->>'source_id' FROM questions.drawn"
            " WHERE game_id IS NOT NULL AND closed_at IS NULL"
        ).fetchall()
        return {str(r[0]) for r in rows if r[0] is not None}

    def add_outbox(self, messages: list[OutboxMessage]) -> None:
        for m in messages:
            self.conn.execute(
                "INSERT INTO questions.outbox (queue, job, message) VALUES (%s, %s, %s)",
                (m.queue, m.job, Jsonb(m.message)),
            )

    def consume_once(self, consumer: str, message_id: str) -> bool:
        with consume_once(self.conn, SCHEMA, consumer, message_id) as new:
            return new


class PostgresUnitOfWork(UnitOfWork):
    """``with uow.begin() as repo:`` one transaction on a pooled connection."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    @contextmanager
    def begin(self) -> Iterator[Repository]:
        with self.pool.connection() as conn, conn.transaction():
            yield PostgresRepository(conn)

    @contextmanager
    def read(self) -> Iterator[Repository]:
        with self.pool.connection() as conn:
            yield PostgresRepository(conn)
