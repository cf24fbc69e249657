"""Take one bot turn through the public API: read the seat's view and legal moves, choose, post.

Answers: 201 done (the next turn comes as its own message); 409 (stale version, or a same-key request
still running) re-read and try again; 422 (the server refused the move) log and re-read, and after
that play the ``random`` level; 503/429/5xx or no answer: ``RetryLater`` (the queue retries the job).
A turn that is no longer the bot's (the game moved on, ended, or the seat is not to move) is done.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from services.bots.adapters.game_api import Answer, GameApi
from services.bots.domain.budget import Budget
from services.bots.domain.levels import choose

log = logging.getLogger(__name__)


class RetryLater(Exception):
    """The games service is unavailable or busy; the job is retried later (RQ Retry)."""


class GiveUp(Exception):
    """The games service refused the bot for good (e.g. 401: its token is not valid)."""


class InvalidTurn(ValueError):
    """A BotTurnStarted body without the fields a turn needs."""


@dataclass(frozen=True)
class Turn:
    game_id: str
    game_type: str
    seat: int
    player_id: str
    level: str
    version: int

    @classmethod
    def from_body(cls, body: Any) -> Turn:
        try:
            return cls(
                str(body["game_id"]),
                str(body["game_type"]),
                int(body["seat"]),
                str(body["player_id"]),
                str(body["level"]),
                int(body["version"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidTurn(f"BotTurnStarted body lacks a field: {exc}") from None


def bot_rng(seed: int, game_id: str, version: int) -> random.Random:
    """The bot's randomness for one decision: its own seed, the game and the version (never the game's seed)."""
    return random.Random(f"{seed}:{game_id}:{version}")


@dataclass
class BotPlayer:
    api_for: Callable[[str], GameApi]  # player id -> a client with that bot's token
    seed_for: Callable[[str], int]  # player id -> the bot's own seed
    budget: Callable[[], Budget]
    attempts: int = 6

    def take_turn(self, turn: Turn) -> str:
        """What happened: ``moved``, ``not_to_move``, ``ended`` or ``gave_up``."""
        try:
            return self._take_turn(turn)
        except GiveUp as exc:
            log.warning("bot %s gave up its turn in %s: %s", turn.player_id, turn.game_id, exc)
            return "gave_up"

    def _take_turn(self, turn: Turn) -> str:
        api = self.api_for(turn.player_id)
        fallback = False
        for _ in range(self.attempts):
            game = _ok(api.game(turn.game_id))
            if game.get("status") != "running":
                return "ended"
            if game.get("your_seat") != turn.seat or turn.seat not in (game.get("to_move") or []):
                return "not_to_move"
            legal = _ok(api.legal_moves(turn.game_id))
            moves = legal.get("moves") or []
            version = int(legal["version"])
            if not moves:
                return "not_to_move"
            if version != game.get("version"):
                continue  # the game moved between the two reads
            rng = bot_rng(self.seed_for(turn.player_id), turn.game_id, version)
            level = "random" if fallback else turn.level
            try:
                move = choose(turn.game_type, level, game, moves, turn.seat, rng, self.budget())
            except Exception:
                log.exception(
                    "bot %s (%s) failed to choose in %s; playing random", turn.player_id, level, turn.game_id
                )
                move = choose(turn.game_type, "random", game, moves, turn.seat, rng, self.budget())
            key = f"bot:{turn.game_id}:{version}:{turn.seat}" + (":random" if fallback else "")
            answer = api.move(turn.game_id, move, version, key)
            if answer.status == 201:
                log.info(
                    "bot %s played %s in %s at version %s",
                    turn.player_id,
                    move.get("type"),
                    turn.game_id,
                    version,
                )
                return "moved"
            if answer.status == 409:
                continue
            if answer.status == 422:
                log.warning(
                    "bot %s: move %s refused in %s: %s", turn.player_id, move, turn.game_id, answer.body
                )
                fallback = True
                continue
            _ok(answer)  # 5xx/429 -> RetryLater; other 4xx -> GiveUp
            return "gave_up"
        log.warning(
            "bot %s gave up its turn in %s after %s attempts", turn.player_id, turn.game_id, self.attempts
        )
        return "gave_up"


def _ok(answer: Answer) -> dict[str, Any]:
    if answer.status == 429 or answer.status >= 500:
        raise RetryLater(f"games answered {answer.status}")
    if answer.status >= 400 or not isinstance(answer.body, dict):
        raise GiveUp(f"games answered {answer.status}: {answer.body}")
    return answer.body


def guarded(call: Callable[[], str]) -> str:
    """Connection problems are retried later, like a 503."""
    try:
        return call()
    except requests.RequestException as exc:
        raise RetryLater(f"games did not answer: {exc}") from exc
