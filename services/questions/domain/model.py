"""Pure rules of the question service: pack versions, stable ids and the bank's identity."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A fixed namespace so ids derived from a game request are the same in every process.
NAMESPACE = uuid.UUID("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")
CONSUMER = "questions.QuestionRequested"


@dataclass(frozen=True)
class PackVersion:
    """One stored version of a pack (its rows are in ``data``)."""

    id: str
    version: int
    declared_version: str
    title: str
    licence: str
    attribution: str
    sample: bool
    content_hash: str
    question_count: int
    source_format: str
    created_at: str

    def ref(self) -> dict[str, str]:
        """What a served question records about its pack: ``{id, version, hash}``."""
        return {"id": self.id, "version": str(self.version), "hash": self.content_hash}

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "version": self.version,
            "declared_version": self.declared_version,
            "title": self.title,
            "licence": self.licence,
            "attribution": self.attribution,
            "sample": self.sample,
            "hash": self.content_hash,
            "question_count": self.question_count,
            "source_format": self.source_format,
            "created_at": self.created_at,
        }


def bank_key(current: Sequence[PackVersion]) -> tuple[tuple[str, int, str], ...]:
    """Identity of the current bank: it changes exactly when a pack gets a new version."""
    return tuple(sorted((p.id, p.version, p.content_hash) for p in current))


def reply_message_id(request_message_id: str) -> str:
    """The ``QuestionDrawn`` message id answering one ``QuestionRequested`` message."""
    return str(uuid.uuid5(NAMESPACE, f"reply/{request_message_id}"))


def with_version(data: Mapping[str, Any], version: int) -> dict[str, Any]:
    """The pack data with the header's version set to the stored version number."""
    header = dict(data["pack"])
    header["version"] = str(version)
    return {"pack": header, "questions": list(data["questions"])}
