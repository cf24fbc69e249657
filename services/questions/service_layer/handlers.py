"""Use cases of the questions service: places, distances, the question bank, draws, answers and the
``QuestionRequested`` queue message. Pure CityHopper logic comes from ``shared.cityhopper``."""

from __future__ import annotations

import csv
import io
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

from services.questions.domain.model import (
    PackVersion,
    bank_key,
)
from services.questions.domain.ports import UnitOfWork
from services.questions.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    PackRejected,
    RoutingUnavailable,
    UnsupportedMediaType,
)
from services.questions.service_layer.game_draws import GameDraws, InvalidMessage
from shared.cityhopper import catalog, mapsvg
from shared.cityhopper.errors import GradingError, PackError, RoutingError, UnknownPlaceError
from shared.cityhopper.grading import grade, public_question
from shared.cityhopper.provider import (
    RequestError,
    parse_category,
    parse_place,
    parse_selector,
)
from shared.cityhopper.questions import (
    QuestionPack,
    RowError,
    conceal,
    draw,
    export_csv,
    export_json,
    import_csv,
    import_json,
    load_pack,
    sample_pack,
    served_question,
)
from shared.cityhopper.roads import ESTIMATE_METHOD, Route, RoutingBackend

log = logging.getLogger(__name__)

JSON_TYPES = ("application/json",)
CSV_TYPES = ("text/csv", "application/csv")
SELECTOR_RANGE = 1 << 31


def place_dict(p: catalog.Place) -> dict[str, Any]:
    return asdict(p)


class QuestionsService(GameDraws):
    def __init__(
        self,
        uow: UnitOfWork,
        routing: RoutingBackend,
        routing_name: str = "estimate",
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
        new_selector: Callable[[], int] = lambda: secrets.randbelow(SELECTOR_RANGE),
    ) -> None:
        self.uow = uow
        self.routing = routing
        self.routing_name = routing_name
        self._new_id = new_id
        self._new_selector = new_selector
        self._bank: tuple[tuple[tuple[str, int, str], ...], list[dict[str, Any]]] = ((), [])
        self._bank_lock = threading.Lock()

    # -- places ------------------------------------------------------------------------------
    def cities(self) -> list[dict[str, Any]]:
        return [place_dict(p) for p in catalog.places()]

    def city(self, place_id: str) -> dict[str, Any]:
        try:
            return place_dict(catalog.place(place_id))
        except UnknownPlaceError:
            raise NotFound(f"no place with id {place_id!r}", field="id") from None

    # -- distance ----------------------------------------------------------------------------
    def route(self, from_id: str, to_id: str) -> Route:
        for field, value in (("from", from_id), ("to", to_id)):
            if value not in catalog.place_index():
                raise InvalidRequest(f"unknown place id {value!r}", field=field)
        try:
            return self.routing.route(from_id, to_id)
        except RoutingError as exc:
            raise RoutingUnavailable(f"no route {from_id} -> {to_id}: {exc}") from exc

    def distance(self, from_id: str, to_id: str) -> dict[str, Any]:
        route = self.route(from_id, to_id)
        out = route.to_dict()
        out["estimate"] = route.method.startswith("estimate")
        out["method"] = route.method
        out["note"] = (
            "An estimate, not a measured road distance: " + ESTIMATE_METHOD
            if out["estimate"]
            else "Car route from an OSRM server, point to point between the places' points in cities.json."
        )
        return out

    def map_svg(self, from_id: str, to_id: str) -> str:
        route = self.route(from_id, to_id)
        return mapsvg.render_map(catalog.places(), catalog.board().edges, route)

    # -- the question bank -------------------------------------------------------------------
    def import_pack(self, body: bytes, content_type: str) -> dict[str, Any]:
        """Validate a pack (JSON or CSV) and store it as the next version of its id; nothing is stored
        when any row is bad (``PackRejected`` lists every problem)."""
        media = content_type.split(";")[0].strip().lower()
        if media not in JSON_TYPES + CSV_TYPES:
            raise UnsupportedMediaType(
                f"send the pack as application/json or text/csv, not {media or 'no content type'!r}",
                field="Content-Type",
            )
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(f"the body is not UTF-8 text: {exc}", field="body") from None
        fmt = "csv" if media in CSV_TYPES else "json"
        try:
            pack = import_csv(text) if fmt == "csv" else import_json(text)
        except csv.Error as exc:  # e.g. a field over the csv module's limit (128 KiB): the whole pack is refused
            line = _csv_error_line(text)
            row = {"row": line - 2 if line >= 2 else None, "field": "csv", "message": str(exc), "line": line}
            raise PackRejected(f"the CSV cannot be read at line {line}: {exc}; nothing was imported", [row]) from None
        except PackError as exc:
            rows = [_row_error(e, fmt) for e in exc.errors]
            bad = sorted({r["row"] for r in rows if r["row"] is not None})
            where = f"rows {', '.join(map(str, bad))}" if bad else "the pack header"
            raise PackRejected(
                f"the pack has {len(rows)} error(s) in {where}; nothing was imported", rows
            ) from None
        return self._store(pack, fmt)

    def _store(self, pack: QuestionPack, fmt: str, only_if_new: bool = False) -> dict[str, Any]:
        with self.uow.begin() as repo:
            stored = repo.add_pack(pack.to_data(), pack.content_hash, fmt, only_if_new)
        return stored.summary() if stored else {}

    def ensure_sample_pack(self) -> dict[str, Any] | None:
        """Load the bundled sample pack (marked ``sample``) when its id has no version yet."""
        stored = self._store(sample_pack(), "bundled", only_if_new=True)
        return stored or None

    def list_packs(self) -> list[dict[str, Any]]:
        with self.uow.read() as repo:
            versions = repo.list_versions()
        out: dict[str, dict[str, Any]] = {}
        for v in versions:  # ordered by id, version: the last one wins as "latest"
            entry = out.setdefault(v.id, {"versions": []})
            entry.update(v.summary())
            entry["versions"].append(_version_entry(v))
        for entry in out.values():
            entry["latest_version"] = entry.pop("version")
            entry["versions"] = entry.pop("versions")
        return list(out.values())

    def get_pack(self, pack_id: str) -> dict[str, Any]:
        with self.uow.read() as repo:
            versions = repo.list_versions(pack_id)
        if not versions:
            raise NotFound(f"no pack with id {pack_id!r}", field="pack_id")
        latest = versions[-1].summary()
        latest["latest_version"] = latest.pop("version")
        latest["versions"] = [_version_entry(v) for v in versions]
        return latest

    def export_pack(self, pack_id: str, version: int, fmt: str) -> tuple[str, str]:
        """``(text, media type)`` of one stored version as JSON or CSV (re-imports to the same hash)."""
        with self.uow.read() as repo:
            data = repo.pack_data(pack_id, version)
        if data is None:
            raise NotFound(f"pack {pack_id!r} has no version {version}", field="version")
        pack = load_pack(data)
        if fmt == "csv":
            return export_csv(pack), "text/csv; charset=utf-8"
        return export_json(pack), "application/json"

    def bank(self) -> list[dict[str, Any]]:
        """The served questions of the latest version of every pack (cached until a pack changes)."""
        with self.uow.read() as repo:
            current = repo.current_packs()
            key = bank_key(current)
            if key == self._bank[0]:
                return self._bank[1]
            questions: list[dict[str, Any]] = []
            for p in current:
                data = repo.pack_data(p.id, p.version)
                if data is not None:
                    ref = p.ref()
                    questions.extend(served_question(row, ref) for row in data["questions"])
        with self._bank_lock:
            self._bank = (key, questions)
        return questions

    # -- draws and answers --------------------------------------------------------------------
    def draw(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Draw a question for a player (HTTP): stored with its key, returned without it."""
        try:
            city = parse_place(body.get("city"), "city")
            category = parse_category(body.get("category"))
            yellow = parse_place(body.get("yellow_city"), "yellow_city", optional=True)
            raw_selector = body.get("selector")
            selector = self._new_selector() if raw_selector is None else parse_selector(raw_selector)
        except RequestError as exc:
            raise InvalidRequest(exc.message, field=exc.field) from None
        assert city is not None
        in_play = self.in_play()  # a question a running game waits on is not served for practice
        bank = [q for q in self.bank() if str(q.get("id")) not in in_play] if in_play else self.bank()
        try:
            result = draw(bank, city, category, selector, yellow, self.routing)
        except RoutingError as exc:
            raise RoutingUnavailable(str(exc)) from exc
        question_id = self._new_id()
        question = conceal(result.question, question_id)
        row = {
            "id": question_id,
            "city": city,
            "requested_category": category,
            "yellow_city": yellow,
            "selector": selector,
            "question": question,
            "generated": result.generated,
            "reason": result.reason,
        }
        with self.uow.begin() as repo:
            repo.add_draw(row)
        return {
            "question_id": question_id,
            "question": public_question(question),
            "generated": result.generated,
            "reason": result.reason,
            "requested_category": category,
            "selector": selector,
        }

    def get_question(self, question_id: str) -> dict[str, Any]:
        row = self._draw_row(question_id)
        out: dict[str, Any] = {
            "question_id": row["id"],
            "question": public_question(row["question"]),
            "generated": row["generated"],
            "reason": row["reason"],
            "requested_category": row["requested_category"],
            "selector": row["selector"],
            "answered": row["answered_at"] is not None,
        }
        if row["answered_at"] is not None:
            out.update(correct=row["correct"], reveal=row["reveal"], answered_at=row["answered_at"])
        return out

    def _draw_row(self, question_id: str) -> dict[str, Any]:
        if not _is_uuid(question_id):
            raise NotFound(f"no question with id {question_id!r}", field="question_id")
        with self.uow.read() as repo:
            row = repo.get_draw(question_id)
        if row is None:
            raise NotFound(f"no question with id {question_id!r}", field="question_id")
        _refuse_game_draw(row)
        return row

    def answer(self, question_id: str, answer: Mapping[str, Any]) -> dict[str, Any]:
        """Grade the one answer to a drawn question; returns ``correct`` and the reveal."""
        if not _is_uuid(question_id):
            raise NotFound(f"no question with id {question_id!r}", field="question_id")
        with self.uow.begin() as repo:
            row = repo.get_draw(question_id, for_update=True)
            if row is None:
                raise NotFound(f"no question with id {question_id!r}", field="question_id")
            _refuse_game_draw(row)
            if row["answered_at"] is not None:
                raise Conflict("this question has already been answered", field="question_id")
            # a bank question (authored; a generated one is made from the public places and distances)
            source = str((row["question"].get("reveal") or {}).get("source_id"))
            if not row["generated"] and source in repo.in_play_sources():
                raise Conflict(
                    "a running game is asking this question now: it is graded once that game has moved on "
                    "(draw another practice question meanwhile)",
                    field="question_id",
                )
            try:
                result = grade(row["question"], answer)
            except GradingError as exc:
                raise InvalidRequest(exc.message, field=exc.field) from None
            repo.record_answer(question_id, answer, result.correct, result.reveal)
        return {"question_id": question_id, "correct": result.correct, "reveal": result.reveal}


def _csv_error_line(text: str) -> int:
    """1-based line of the file where the csv module gives up."""
    reader = csv.reader(io.StringIO(text))
    try:
        for _ in reader:
            pass
    except csv.Error:
        return reader.line_num
    return reader.line_num


def _refuse_game_draw(row: Mapping[str, Any]) -> None:
    """A question drawn for a game is graded by the games service from the key in the game's log
    (CH-14), never through this public API: looking it up or answering it here is forbidden."""
    if row.get("game_id") is not None:
        raise Forbidden(
            "this question was drawn for a game; only the game's answering seat answers it, with an "
            "answer move to the games service (CH-14)",
            field="question_id",
        )


def _row_error(error: object, fmt: str) -> dict[str, Any]:
    if isinstance(error, RowError):
        out: dict[str, Any] = error.to_dict()
    else:
        out = {"row": None, "field": "pack", "message": str(error)}
    if fmt == "csv" and out["row"] is not None:
        out["line"] = out["row"] + 2  # 1-based line in the file, after the header line
    return out


def _version_entry(v: PackVersion) -> dict[str, Any]:
    return {
        "version": v.version,
        "declared_version": v.declared_version,
        "hash": v.content_hash,
        "question_count": v.question_count,
        "source_format": v.source_format,
        "created_at": v.created_at,
    }


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True

__all__ = ["InvalidMessage", "QuestionsService", "place_dict"]
