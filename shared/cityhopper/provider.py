"""The question provider contract between a game and the question service, as pure functions.

A game asks for a question with a ``QuestionRequested`` message whose body is::

    {"game_id": str, "request_no": int >= 0, "city": place id,
     "category": 1..6 (the white die) or a category name (``grading.CATEGORIES``, any case),
     "yellow_city": place id | None, "selector": int (derived from the game's seed)}

and gets back a ``QuestionDrawn`` body::

    {"game_id", "request_no",
     "question": served question incl. "key", "reveal" and "pack" ({id, version, hash} or None),
     "generated": bool, "reason": str}

The question's ``id`` is opaque (chosen by the service, never derived from the game) and its
options are in an order that carries no information (``questions.present``); the source id is in
``reveal.source_id``. The ``selector`` is secret to the game's seats until the answer.

``draw_for_request`` builds that reply from the current bank (served questions) with the shared
``questions.draw``, so the question service and a game engine's in-process self-play pick exactly
the same question for the same bank, body and routing. Malformed bodies raise ``RequestError``
naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog import place_index
from .errors import CityHopperError
from .grading import CATEGORIES, CATEGORY_BY_DIE
from .questions import conceal, draw, game_selector
from .roads import RoutingBackend

REQUEST_TYPE = "QuestionRequested"
REPLY_TYPE = "QuestionDrawn"


class RequestError(CityHopperError):
    """A request body that cannot be served; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class QuestionRequest:
    """A validated ``QuestionRequested`` body."""

    game_id: str
    request_no: int
    city: str
    category: str
    yellow_city: str | None
    selector: int


def parse_category(value: object, field: str = "category") -> str:
    """The category name for a die face 1..6 or a category name (case-insensitive)."""
    if isinstance(value, bool):
        raise RequestError(field, "must be a die face 1..6 or a category name")
    if isinstance(value, int):
        name = CATEGORY_BY_DIE.get(value)
        if name is None:
            raise RequestError(field, f"die face {value} is not 1..6")
        return name
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return parse_category(int(text), field)
        upper = text.upper()
        if upper in CATEGORIES:
            return upper
    raise RequestError(field, f"must be a die face 1..6 or one of {', '.join(CATEGORIES)}")


def parse_place(value: object, field: str, optional: bool = False) -> str | None:
    """A known place id (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or value not in place_index():
        raise RequestError(field, f"unknown place id {value!r}")
    return value


def parse_selector(value: object, field: str = "selector") -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(field, "must be an integer")
    return value


def parse_request(body: object) -> QuestionRequest:
    """Validate a ``QuestionRequested`` body (module docstring); ``RequestError`` on the first problem."""
    if not isinstance(body, Mapping):
        raise RequestError("body", "must be an object")
    game_id = body.get("game_id")
    if not isinstance(game_id, str) or not game_id.strip():
        raise RequestError("game_id", "must be a non-empty string")
    request_no = body.get("request_no")
    if isinstance(request_no, bool) or not isinstance(request_no, int) or request_no < 0:
        raise RequestError("request_no", "must be a whole number >= 0")
    city = parse_place(body.get("city"), "city")
    assert city is not None
    return QuestionRequest(
        game_id=game_id,
        request_no=request_no,
        city=city,
        category=parse_category(body.get("category")),
        yellow_city=parse_place(body.get("yellow_city"), "yellow_city", optional=True),
        selector=parse_selector(body.get("selector")),
    )


def reply_body(
    request: QuestionRequest, question: Mapping[str, Any], generated: bool, reason: str
) -> dict[str, Any]:
    """The ``QuestionDrawn`` body for a request and its (drawn or recorded) question."""
    return {
        "game_id": request.game_id,
        "request_no": request.request_no,
        "question": dict(question),
        "generated": generated,
        "reason": reason,
    }


def draw_for_request(
    bank_questions: Sequence[Mapping[str, Any]],
    body: Mapping[str, Any] | QuestionRequest,
    routing: RoutingBackend | None = None,
    *,
    question_id: str,
) -> dict[str, Any]:
    """The ``QuestionDrawn`` body for a ``QuestionRequested`` body, drawn from ``bank_questions``
    (served questions, e.g. ``QuestionPack.served()``) with ``questions.draw``.

    The draw uses ``questions.game_selector(selector)``, so a practice draw with the game's
    selector does not serve the game's question, and the question is served under the opaque
    ``question_id`` (``questions.conceal``; the question service passes a random uuid) so its id
    says nothing about its answer."""
    request = body if isinstance(body, QuestionRequest) else parse_request(body)
    result = draw(
        bank_questions,
        request.city,
        request.category,
        game_selector(request.selector),
        request.yellow_city,
        routing,
    )
    return reply_body(request, conceal(result.question, question_id), result.generated, result.reason)
