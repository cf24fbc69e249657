"""Flat determinized Monte Carlo at the root, over ``search.SearchGame`` (Paardenkoppen, ROPARUN).

Each iteration samples one state the seat cannot tell apart from the real one
(``engine.determinize(view, seat, rng)``) and plays *every* candidate move out on that same sample
(common random numbers: the candidates are compared on the same hidden cards), with the game's
playout policy for every seat until its cut-off; the move with the best mean reward wins. With few
iterations and several opponents this spends the budget on the bot's own decision instead of a tree
over everybody's moves, which is what the ISMCTS of ``search.py`` does. Each playout counts as one
iteration of the budget. Time is checked before every playout move: a round the time cuts short is
dropped, and with no full round the first candidate is played (callers list their best guess first).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.search import OutOfTime, SearchGame, play, playout, stopper
from services.games.engines.base import Move


def flat_search(
    game: SearchGame,
    view: Mapping[str, Any],
    moves: list[Move],
    seat: int,
    rng: random.Random,
    budget: Budget,
) -> tuple[Move, list[float], int]:
    """(best move, mean reward per move, playouts) after flat Monte Carlo within ``budget``."""
    if len(moves) == 1:
        return moves[0], [0.0], 0
    engine = game.engine
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    started = budget.start()
    stop = stopper(budget, started)
    done = 0
    while not budget.exhausted(started, done):
        sample = engine.determinize(view, seat, rng)
        rewards: list[float] = []
        try:
            for move in moves:
                end = playout(game, sample, play(engine, sample, seat, move), rng, stop)
                rewards.append(game.evaluate(sample, end)[seat])
        except OutOfTime:
            break  # an unfinished round is dropped: the moves are compared on the same samples
        for k, reward in enumerate(rewards):
            totals[k] += reward
            counts[k] += 1
        done += len(moves)
    if done == 0:  # not one round within the time: the first candidate (the caller's best guess)
        return moves[0], [0.0] * len(moves), 0
    means = [t / c for t, c in zip(totals, counts, strict=True)]
    best = max(range(len(moves)), key=lambda k: means[k])
    return moves[best], means, done
