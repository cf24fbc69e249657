"""One module per game type, each exposing ``LEVELS: dict[str, Level]``.

A level is ``(view, moves, seat, rng, budget) -> move``: ``view`` is the seat's view exactly as
``GET /v1/games/{id}`` returns it to the bot's token (the whole answer: ``game_id``, ``version``,
``seats``, ``view`` ...), ``moves`` the ``moves`` of ``GET /v1/games/{id}/legal-moves``; it returns
one of ``moves`` (unchanged). See ``services.bots.domain.levels``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from services.bots.domain.budget import Budget

View = dict[str, Any]
Move = dict[str, Any]
Level = Callable[[View, list[Move], int, random.Random, Budget], Move]


def uniform(view: View, moves: list[Move], seat: int, rng: random.Random, budget: Budget) -> Move:
    """The ``random`` level of every game but HopPaa: a uniformly random legal move."""
    return rng.choice(moves)
