"""The level interface: one entry point, ``choose``, for every game type and level.

``choose(game_type, level, view, moves, seat, rng, budget)`` returns one of ``moves``:

- ``view`` is the seat's view exactly as ``GET /v1/games/{id}`` answers the bot's own token (the
  whole body: ``game_id``, ``game_type``, ``version``, ``seats``, ``view`` ...);
- ``moves`` is the ``moves`` list of ``GET /v1/games/{id}/legal-moves`` for that token (non-empty);
- ``seat`` is the bot's seat, ``rng`` the bot's own ``random.Random`` (seeded from the bot's seed,
  the game id and the version, never from the game's seed), ``budget`` its think budget.

Each game type has a module ``services.bots.domain.games.<game_type>`` exposing
``LEVELS: dict[str, Level]``. Levels, weakest first, are ``LEVEL_ORDER``. A level a game does not
(yet) implement falls back to the next lower one it does (``strong`` → ``rules`` → ``random``), and
``random`` (a uniformly random legal move; HopPaa: uniform among the sensible moves) always exists.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level, uniform

LEVEL_ORDER: tuple[str, ...] = ("random", "rules", "strong")
GAME_TYPES: tuple[str, ...] = ("klapper", "roparun", "paardenkoppen", "hoppaa", "cityhopper")


class UnknownLevel(ValueError):
    """A level name outside ``LEVEL_ORDER``."""


class UnknownGame(ValueError):
    """A game type without a bot module."""


class BadChoice(RuntimeError):
    """A level returned something that is not one of the listed moves (a bug in the level)."""


def _module(game_type: str) -> ModuleType:
    if game_type not in GAME_TYPES:
        raise UnknownGame(game_type)
    return importlib.import_module(f"services.bots.domain.games.{game_type}")


def levels_of(game_type: str) -> dict[str, Level]:
    """The levels a game implements itself (before fallback)."""
    table: dict[str, Level] = dict(getattr(_module(game_type), "LEVELS", {}))
    table.setdefault("random", uniform)
    return table


def resolve(game_type: str, level: str) -> tuple[str, Level]:
    """The level actually played for ``level``: itself, or the next lower one the game has."""
    if level not in LEVEL_ORDER:
        raise UnknownLevel(level)
    table = levels_of(game_type)
    for name in reversed(LEVEL_ORDER[: LEVEL_ORDER.index(level) + 1]):
        if name in table:
            return name, table[name]
    raise AssertionError("random always exists")  # pragma: no cover


def choose(
    game_type: str,
    level: str,
    view: dict[str, Any],
    moves: list[dict[str, Any]],
    seat: int,
    rng: random.Random,
    budget: Budget,
) -> dict[str, Any]:
    """One of ``moves``, chosen by ``level`` (or its fallback) for ``seat``."""
    if not moves:
        raise ValueError("no legal move to choose from")
    _, play = resolve(game_type, level)
    if len(moves) == 1:
        return moves[0]
    move = play(view, moves, seat, rng, budget)
    if move not in moves:
        raise BadChoice(f"{game_type}/{level} chose {move!r}, not a listed move")
    return move
