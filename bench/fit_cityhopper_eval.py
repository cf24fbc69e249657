"""Refit the weights of ``services.bots.domain.games.cityhopper.evaluate`` (issue 18, ``strong``).

Plays ``FIT_GAMES`` (default 1500) seeded ``rules`` v ``rules`` CityHopper games in process (the
arena's chance scheme), records ``features`` of both seats at every turn start with who won, and fits
a logistic regression (Newton's method) of "seat 0 wins" on the difference of the two seats' features
and who is on move. Prints the weights and the held-out log-loss (a fifth of the positions); the
module's ``EVAL_WEIGHTS`` and ``EVAL_ON_MOVE`` are that output, rounded.

Run: ``nice -n 10 .venv/bin/python -m bench.fit_cityhopper_eval`` (about a minute of CPU per 1,000 games).
"""

from __future__ import annotations

import json
import math
import os
import random
from concurrent.futures import ProcessPoolExecutor

from services.bots.domain.arena import ENGINES, _Chance
from services.bots.domain.games.cityhopper import EVAL_WEIGHTS, features, rules_move
from services.games.engines.base import GameConfig
from services.games.engines.cityhopper.state import AWAIT_ROLL

Row = tuple[list[float], float]


def positions(seed: int) -> list[Row]:
    """(features of seat 0 minus seat 1, with the on-move sign first; 1.0 if seat 0 won) per turn start."""
    engine = ENGINES.get("cityhopper")
    config = GameConfig(2, engine.normalize_options(2, {}))
    chance = _Chance(seed)
    state = engine.initial_state(config)
    for event in engine.opening_events(config):
        state = engine.evolve(state, event)
    state = chance.settle(engine, state)
    rngs = [random.Random(7 * seed + i) for i in range(2)]
    xs: list[list[float]] = []
    last_turn = None
    for _ in range(5000):
        if engine.outcome(state) is not None:
            break
        if state.phase == AWAIT_ROLL and state.turn_no != last_turn:
            last_turn = state.turn_no
            a, b = features(state, 0), features(state, 1)
            xs.append([1.0 if state.active == 0 else -1.0, *(x - y for x, y in zip(a, b, strict=True))])
        seat = engine.to_move(state)[0]
        legal = engine.legal_moves(state, seat)
        view = json.loads(json.dumps(engine.view(state, seat)))
        move = legal[0] if len(legal) == 1 else rules_move(view, legal, seat, rngs[seat])
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
        state = chance.settle(engine, state)
    outcome = engine.outcome(state)
    if outcome is None:
        return []
    won = 1.0 if outcome.ranks[0] == 1 else 0.0
    return [(x, won) for x in xs]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def _p(w: list[float], x: list[float]) -> float:
    z = sum(a * b for a, b in zip(w, x, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(rows: list[Row], steps: int = 8) -> list[float]:
    d = len(rows[0][0])
    w = [0.0] * d
    for _ in range(steps):
        h = [[1e-6 * (i == j) for j in range(d)] for i in range(d)]
        g = [0.0] * d
        for x, y in rows:
            p = _p(w, x)
            for j in range(d):
                g[j] += (y - p) * x[j]
                for k in range(d):
                    h[j][k] += p * (1 - p) * x[j] * x[k]
        w = [a + b for a, b in zip(w, _solve(h, g), strict=True)]
    return w


def log_loss(w: list[float], rows: list[Row]) -> float:
    total = 0.0
    for x, y in rows:
        p = min(max(_p(w, x), 1e-9), 1 - 1e-9)
        total -= math.log(p if y else 1 - p)
    return total / len(rows)


def main() -> None:
    games = int(os.environ.get("FIT_GAMES", "1500"))
    with ProcessPoolExecutor(2) as pool:
        rows = [r for game in pool.map(positions, range(games), chunksize=8) for r in game]
    random.Random(1).shuffle(rows)
    test, train = rows[: len(rows) // 5], rows[len(rows) // 5 :]
    w = fit(train)
    names = ["on_move", *(name for name, _ in EVAL_WEIGHTS)]
    print(
        json.dumps(
            {"positions": len(rows), "weights": dict(zip(names, (round(x, 4) for x in w), strict=True))}
        )
    )
    print(f"held-out log-loss {log_loss(w, test):.3f} (a coin: {math.log(2):.3f})")


if __name__ == "__main__":
    main()
