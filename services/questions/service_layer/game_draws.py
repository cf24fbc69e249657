"""The questions service's queue side: a game's ``QuestionRequested`` (draw, record, reply ``QuestionDrawn``
through the outbox) and the end of a game (``GameFinished`` / ``GameAborted``), and which questions are
"in play": from a game's draw until that game asks its next question or ends. Practice draws leave
questions in play aside and practice answers to a copy of one are refused (``QuestionsService``), so
the public API never reveals the key a running game waits on."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from services.questions.domain.model import CONSUMER, reply_message_id
from services.questions.domain.ports import UnitOfWork
from shared.cityhopper.provider import (
    REPLY_TYPE,
    REQUEST_TYPE,
    QuestionRequest,
    RequestError,
    draw_for_request,
    parse_request,
    reply_body,
)
from shared.cityhopper.roads import RoutingBackend
from shared.messages import outbox_for

log = logging.getLogger(__name__)
GAME_ENDED = ("GameFinished", "GameAborted")
ENDED_CONSUMER = "questions.GameEnded"


class InvalidMessage(ValueError):
    """A queue message the service cannot serve (a bug on the sender's side): the job fails visibly."""


class GameDraws:
    """Mixed into ``QuestionsService``, which provides the unit of work, routing, ids and the bank."""

    uow: UnitOfWork
    routing: RoutingBackend
    _new_id: Callable[[], str]

    def bank(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def handle_message(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        """One routed message: ``QuestionRequested`` or the end of a game."""
        if message.get("type") in GAME_ENDED:
            self.handle_game_ended(message)
            return None
        return self.handle_question_requested(message)

    def handle_question_requested(self, message: Mapping[str, Any]) -> dict[str, Any] | None:
        """Draw for a game's ``QuestionRequested`` and reply ``QuestionDrawn`` through the outbox, in
        the transaction that records the draw. Idempotent: the same message id does nothing again;
        the same (game_id, request_no) is answered with the recorded question. The game's earlier
        questions leave play (it asks a new one only once the last is answered). Returns the reply
        body, or None for a message already processed."""
        message_id = _message_id(message)
        if message.get("type") != REQUEST_TYPE:
            raise InvalidMessage(f"questions consumes {REQUEST_TYPE}, not {message.get('type')!r}")
        try:
            request = parse_request(message.get("body"))
        except RequestError as exc:
            raise InvalidMessage(f"{REQUEST_TYPE} {message_id}: {exc}") from exc
        with self.uow.read() as repo:
            existing = repo.draw_for_request(request.game_id, request.request_no)
        row: dict[str, Any] | None = None
        if existing is None:  # draw outside the transaction: OSRM may take a while
            question_id = self._new_id()  # random: nobody can compute a game's question id
            reply = draw_for_request(self.bank(), request, self.routing, question_id=question_id)
            row = _request_row(request, message_id, reply)
        else:
            reply = _reply_from_row(request, existing)
        with self.uow.begin() as repo:
            if not repo.consume_once(CONSUMER, message_id):
                return None
            if row is not None and not repo.add_draw(row):  # a concurrent retry recorded it first
                recorded = repo.draw_for_request(request.game_id, request.request_no)
                assert recorded is not None
                reply = _reply_from_row(request, recorded)
            repo.close_game_draws(request.game_id, before_request_no=request.request_no)
            repo.add_outbox(outbox_for(REPLY_TYPE, reply_message_id(message_id), reply))
        return reply

    def handle_game_ended(self, message: Mapping[str, Any]) -> int:
        """``GameFinished`` / ``GameAborted``: the game's questions leave play. Idempotent; returns how many
        were still in play (0 for a game that never asked one, e.g. any other game type)."""
        message_id = _message_id(message)
        body = message.get("body")
        game_id = body.get("game_id") if isinstance(body, Mapping) else None
        if not isinstance(game_id, str) or not game_id:
            raise InvalidMessage(f"{message.get('type')} {message_id}: the body has no game_id")
        with self.uow.begin() as repo:
            if not repo.consume_once(ENDED_CONSUMER, message_id):
                return 0
            return repo.close_game_draws(game_id)

    def in_play(self) -> set[str]:
        """Source ids of the questions running games wait on."""
        with self.uow.read() as repo:
            return repo.in_play_sources()


def _message_id(message: Mapping[str, Any]) -> str:
    message_id = message.get("message_id")
    if not isinstance(message_id, str) or not message_id:
        raise InvalidMessage("message_id must be a non-empty string")
    return message_id


def _request_row(request: QuestionRequest, message_id: str, reply: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": reply["question"]["id"],
        "game_id": request.game_id,
        "request_no": request.request_no,
        "message_id": message_id,
        "city": request.city,
        "requested_category": request.category,
        "yellow_city": request.yellow_city,
        "selector": request.selector,
        "question": reply["question"],
        "generated": reply["generated"],
        "reason": reply["reason"],
    }


def _reply_from_row(request: QuestionRequest, row: Mapping[str, Any]) -> dict[str, Any]:
    if (row["city"], row["requested_category"]) != (request.city, request.category):
        log.warning(
            "game %s request %s repeated with different content; answering with the recorded question",
            request.game_id,
            request.request_no,
        )
    return reply_body(request, row["question"], row["generated"], row["reason"])
