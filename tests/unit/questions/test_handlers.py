"""The questions service layer with the in-memory unit of work (no PostgreSQL, no Redis)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.questions.service_layer.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    PackRejected,
    UnsupportedMediaType,
)
from services.questions.service_layer.handlers import InvalidMessage, QuestionsService
from shared.cityhopper.questions import export_csv, sample_pack
from shared.cityhopper.roads import CachedRouting, EstimateBackend
from tests.unit.questions.fakes import FakeUnitOfWork


@pytest.fixture
def svc() -> QuestionsService:
    s = QuestionsService(FakeUnitOfWork(), CachedRouting(EstimateBackend()), new_selector=lambda: 4)
    s.ensure_sample_pack()
    return s


def message(body: dict[str, Any], message_id: str = "m-1") -> dict[str, Any]:
    return {"message_id": message_id, "type": "QuestionRequested", "body": body}


REQUEST = {"game_id": "g", "request_no": 1, "city": "utrecht", "category": 4, "yellow_city": None, "selector": 0}


def test_sample_pack_loads_once(svc: QuestionsService) -> None:
    assert svc.ensure_sample_pack() is None
    (pack,) = svc.list_packs()
    assert pack["sample"] is True and pack["latest_version"] == 1


def test_question_requested_replies_through_the_outbox_once(svc: QuestionsService) -> None:
    reply = svc.handle_question_requested(message(REQUEST))
    assert reply is not None and reply["question"]["category"] == "FLAG"
    uow = svc.uow
    assert isinstance(uow, FakeUnitOfWork)
    (out,) = uow.state.outbox
    assert (out.queue, out.job) == ("games", "services.games.entrypoints.jobs.handle_message")
    assert out.message["type"] == "QuestionDrawn" and out.message["body"] == reply
    assert svc.handle_question_requested(message(REQUEST)) is None  # redelivery
    again = svc.handle_question_requested(message({**REQUEST, "category": 5}, "m-2"))  # resent
    assert again == reply and len(uow.state.outbox) == 2
    assert out.message["message_id"] != uow.state.outbox[1].message["message_id"]


@pytest.mark.parametrize(
    "msg",
    [
        {"type": "QuestionRequested", "body": REQUEST},
        {"message_id": "x", "type": "GameFinished", "body": REQUEST},
        {"message_id": "x", "type": "QuestionRequested", "body": {**REQUEST, "city": "atlantis"}},
    ],
)
def test_invalid_messages_raise(svc: QuestionsService, msg: dict[str, Any]) -> None:
    with pytest.raises(InvalidMessage):
        svc.handle_question_requested(msg)
    assert svc.uow.state.outbox == []  # type: ignore[attr-defined]


def test_bad_pack_imports_nothing(svc: QuestionsService) -> None:
    data = sample_pack().to_data()
    data["pack"]["id"] = "mine"
    data["questions"][1]["city"] = "atlantis"
    with pytest.raises(PackRejected) as info:
        svc.import_pack(json.dumps(data).encode(), "application/json")
    assert info.value.rows == [{"row": 1, "field": "city", "message": "unknown place id 'atlantis'"}]
    assert [p["id"] for p in svc.list_packs()] == ["speltafel-sample"]
    with pytest.raises(UnsupportedMediaType):
        svc.import_pack(b"x", "application/xml")


def test_csv_import_versions_and_export(svc: QuestionsService) -> None:
    stored = svc.import_pack(export_csv(sample_pack()).encode(), "text/csv")
    assert stored["version"] == 2 and stored["hash"] == sample_pack().content_hash
    text, media = svc.export_pack("speltafel-sample", 2, "csv")
    assert media.startswith("text/csv") and text == export_csv(sample_pack()).replace(
        "speltafel-sample,1,", "speltafel-sample,2,"
    )
    with pytest.raises(NotFound):
        svc.export_pack("speltafel-sample", 3, "json")


def test_draw_answer_and_errors(svc: QuestionsService) -> None:
    d = svc.draw({"city": "utrecht", "category": "FLAG"})
    assert d["selector"] == 4 and "key" not in d["question"]
    with pytest.raises(InvalidRequest) as info:
        svc.answer(d["question_id"], {"colours": ["red"]})
    assert info.value.field == "colours"
    assert svc.answer(d["question_id"], {"colours": ["wit", "rood"]})["correct"] is True
    with pytest.raises(Conflict):
        svc.answer(d["question_id"], {"colours": ["white", "red"]})
    with pytest.raises(InvalidRequest) as info:
        svc.draw({"city": "utrecht", "category": 0})
    assert info.value.field == "category"
    with pytest.raises(InvalidRequest) as info:
        svc.distance("utrecht", "nowhere")
    assert info.value.field == "to"


def test_bank_is_cached_until_a_pack_changes(svc: QuestionsService) -> None:
    first = svc.bank()
    assert svc.bank() is first
    svc.import_pack(json.dumps(sample_pack().to_data()).encode(), "application/json")
    second = svc.bank()
    assert second is not first and {q["pack"]["version"] for q in second} == {"2"}
