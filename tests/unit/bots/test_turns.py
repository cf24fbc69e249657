"""How the bots worker answers the games API's answers (issue 18): 201 done, 409 re-read, 422 log and
re-read (then the random level), 503/429 retry later via the queue, no longer its turn: done."""

from __future__ import annotations

from typing import Any

import pytest

from services.bots.adapters.game_api import Answer
from services.bots.domain.budget import fixed_budget
from services.bots.service_layer.turns import BotPlayer, RetryLater, Turn, bot_rng

GAME = "5b0f1d0e-0000-4000-8000-000000000001"
MOVES = [{"type": "play_card", "card": c} for c in ("AS", "KS", "QS")]


class ScriptedApi:
    """Answers as the games API would, from a script of move answers; records every call."""

    def __init__(self, move_answers: list[Answer], version: int = 7, to_move: list[int] | None = None) -> None:
        self.move_answers = list(move_answers)
        self.version = version
        self.to_move = [1] if to_move is None else to_move
        self.calls: list[tuple[str, Any]] = []

    def game(self, game_id: str) -> Answer:
        self.calls.append(("game", game_id))
        body = {"status": "running", "version": self.version, "your_seat": 1, "to_move": self.to_move, "view": {}}
        return Answer(200, body)

    def legal_moves(self, game_id: str) -> Answer:
        self.calls.append(("legal", game_id))
        return Answer(200, {"version": self.version, "seat": 1, "moves": MOVES if 1 in self.to_move else []})

    def move(self, game_id: str, move: dict[str, Any], expected_version: int, key: str) -> Answer:
        self.calls.append(("move", (move, expected_version, key)))
        answer = self.move_answers.pop(0)
        if answer.status == 409:
            self.version += 1  # someone else moved first
        return answer


def player(api: ScriptedApi) -> BotPlayer:
    return BotPlayer(api_for=lambda _: api, seed_for=lambda _: 99, budget=lambda: fixed_budget(10))  # type: ignore[arg-type,return-value]


TURN = Turn(GAME, "klapper", 1, "bot-player", "rules", 7)


def moves_posted(api: ScriptedApi) -> list[tuple[Any, ...]]:
    return [c[1] for c in api.calls if c[0] == "move"]


def test_a_turn_posts_one_listed_move_with_the_version_and_an_idempotency_key() -> None:
    api = ScriptedApi([Answer(201, {})])
    assert player(api).take_turn(TURN) == "moved"
    [(move, version, key)] = moves_posted(api)
    assert move in MOVES and version == 7 and key == f"bot:{GAME}:7:1"


def test_a_409_rereads_and_plays_at_the_new_version() -> None:
    api = ScriptedApi([Answer(409, {"code": "stale_version"}), Answer(201, {})])
    assert player(api).take_turn(TURN) == "moved"
    assert [v for _, v, _ in moves_posted(api)] == [7, 8]


def test_a_422_rereads_and_falls_back_to_the_random_level() -> None:
    api = ScriptedApi([Answer(422, {"rule": "KL-1"}), Answer(201, {})])
    assert player(api).take_turn(TURN) == "moved"
    keys = [k for _, _, k in moves_posted(api)]
    assert keys == [f"bot:{GAME}:7:1", f"bot:{GAME}:7:1:random"]  # a new key: a different request


@pytest.mark.parametrize("status", [503, 429, 502])
def test_an_unavailable_games_service_means_retry_later(status: int) -> None:
    api = ScriptedApi([Answer(status, {}, retry_after=5)])
    with pytest.raises(RetryLater):
        player(api).take_turn(TURN)


def test_a_turn_that_is_no_longer_the_bots_is_done_without_a_move() -> None:
    api = ScriptedApi([], to_move=[2])
    assert player(api).take_turn(TURN) == "not_to_move"
    assert moves_posted(api) == []


def test_the_bots_randomness_is_its_own_seed_game_and_version() -> None:
    assert bot_rng(1, GAME, 7).random() == bot_rng(1, GAME, 7).random()
    assert bot_rng(1, GAME, 7).random() != bot_rng(2, GAME, 7).random()
    assert bot_rng(1, GAME, 7).random() != bot_rng(1, GAME, 8).random()
