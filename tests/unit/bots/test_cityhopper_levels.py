"""CityHopper bot levels (services/bots/domain/games/cityhopper.py; issue 18 item 3).

Every level returns one of the listed legal moves, the same rng gives the same move, ``rules`` beats
``random`` clearly, and ``rules`` games end in a reasonable number of moves (uniformly random
answers make random games last thousands of moves, CH-17).

The in-process arena here also measures the levels (win rates with 95 % Wilson intervals, game
lengths, move times)::

    .venv/bin/python -m tests.unit.bots.test_cityhopper_levels strong rules 100 40

plays 100 seeds twice (seats swapped) of ``strong`` against ``rules`` with a budget of 40 races a move.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from services.bots.domain.budget import Budget, fixed_budget
from services.bots.domain.games.cityhopper import LEVELS, distances
from services.bots.domain.levels import choose
from services.games.domain.play import apply_move, open_game
from services.games.engines.base import GameConfig
from services.games.engines.cityhopper.engine import CityHopperEngine
from services.games.service_layer.selfplay import seeds_for

ENGINE = CityHopperEngine()


@dataclass
class Game:
    winner: int | None
    moves: int
    seconds: dict[str, list[float]] = field(default_factory=dict)
    answers: list[bool] = field(default_factory=list)


def play(levels: Sequence[str], seed: int, playouts: int = 20, max_moves: int = 3000) -> Game:
    """One game in process (self-play's question provider), seat i played by ``levels[i]``."""
    config = GameConfig(num_players=len(levels), options={})
    seeds = seeds_for(seed)
    provider = ENGINE.selfplay_provider()
    progress, _ = open_game(ENGINE, config, seeds, None, provider)
    rngs = [random.Random(seed * 7919 + i) for i in range(len(levels))]
    game = Game(None, 0)
    while ENGINE.outcome(progress.state) is None and game.moves < max_moves:
        seat = ENGINE.to_move(progress.state)[0]
        legal = ENGINE.legal_moves(progress.state, seat)
        body = {"view": ENGINE.view(progress.state, seat)}
        began = time.perf_counter()
        move = choose("cityhopper", levels[seat], body, legal, seat, rngs[seat], fixed_budget(playouts))
        game.seconds.setdefault(levels[seat], []).append(time.perf_counter() - began)
        assert move in legal
        for event in apply_move(ENGINE, progress, seat, move, seeds, None, provider):
            if event.get("type") == "QuestionAnswered" and levels[int(event["seat"])] != "random":
                game.answers.append(bool(event["correct"]))
        game.moves += 1
    outcome = ENGINE.outcome(progress.state)
    game.winner = None if outcome is None else outcome.ranks.index(1)
    return game


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def head_to_head(
    a: str, b: str, seeds: int, playouts: int = 20, first_seed: int = 1, progress: bool = False
) -> dict[str, Any]:
    """``a`` against ``b`` over ``seeds`` seeds, each played twice with the seats swapped."""
    wins = unfinished = 0
    lengths: list[int] = []
    seconds: dict[str, list[float]] = {}
    answers: list[bool] = []
    for k in range(first_seed, first_seed + seeds):
        for levels, mine in (((a, b), 0), ((b, a), 1)):
            g = play(levels, k, playouts)
            wins += g.winner == mine
            unfinished += g.winner is None
            lengths.append(g.moves)
            answers += g.answers
            for level, ts in g.seconds.items():
                seconds.setdefault(level, []).extend(ts)
        if progress:
            print(f"seed {k}: {a} won {wins} of {len(lengths)}", flush=True)
    n = 2 * seeds
    lengths.sort()

    def pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0

    return {
        "games": n,
        "wins": wins,
        "rate": wins / n,
        "ci95": wilson(wins, n),
        "unfinished": unfinished,
        "moves_p50": lengths[n // 2],
        "moves_p90": lengths[int(0.9 * n)],
        "moves_max": lengths[-1],
        "right_answers": sum(answers) / max(1, len(answers)),
        "ms": {lv: (1000 * pct(ts, 0.5), 1000 * pct(ts, 0.99)) for lv, ts in seconds.items()},
    }


# --- tests ----------------------------------------------------------------------------------------


def _positions(seed: int, players: int) -> list[tuple[dict[str, Any], list[dict[str, Any]], int]]:
    """(view, legal moves, seat) along a game of mixed rules/random play."""
    seeds = seeds_for(seed)
    provider = ENGINE.selfplay_provider()
    progress, _ = open_game(ENGINE, GameConfig(num_players=players, options={}), seeds, None, provider)
    rng = random.Random(seed)
    out = []
    for _ in range(400):
        if ENGINE.outcome(progress.state) is not None:
            break
        seat = ENGINE.to_move(progress.state)[0]
        legal = ENGINE.legal_moves(progress.state, seat)
        view = ENGINE.view(progress.state, seat)
        out.append((view, legal, seat))
        level = "rules" if rng.random() < 0.7 else "random"
        apply_move(
            ENGINE,
            progress,
            seat,
            choose("cityhopper", level, {"view": view}, legal, seat, rng, fixed_budget(1)),
            seeds,
            None,
            provider,
        )
    return out


POSITIONS = [p for seed, n in ((11, 2), (12, 3), (13, 4)) for p in _positions(seed, n)]


@pytest.mark.parametrize("level", ["random", "rules"])
def test_every_level_returns_a_listed_legal_move(level: str) -> None:
    kinds = set()
    for view, legal, seat in POSITIONS:
        move = LEVELS[level]({"view": view}, legal, seat, random.Random(1), fixed_budget(4))
        assert move in legal
        kinds.add(move["type"])
    assert {"roll", "move", "answer"} <= kinds


def test_strong_returns_a_listed_legal_move_and_is_repeatable() -> None:
    multi = [p for p in POSITIONS if len(p[1]) > 1][::6]
    assert len(multi) > 30
    for view, legal, seat in multi:
        a = LEVELS["strong"]({"view": view}, legal, seat, random.Random(5), fixed_budget(6))
        b = LEVELS["strong"]({"view": view}, legal, seat, random.Random(5), fixed_budget(6))
        assert a in legal
        assert a == b


def test_strong_stops_at_its_time_budget() -> None:
    view, legal, seat = next(p for p in POSITIONS if p[0]["phase"] == "MOVE" and len(p[1]) > 2)
    clock = iter(range(10_000))
    budget = Budget(max_iterations=10**9, max_seconds=3.0, now=lambda: float(next(clock)))
    assert LEVELS["strong"]({"view": view}, legal, seat, random.Random(2), budget) in legal
    assert next(clock) < 10  # a few clock reads: it stopped after about three rounds


def test_the_same_rng_gives_the_same_rules_move() -> None:
    for view, legal, seat in POSITIONS[::5]:
        a = LEVELS["rules"]({"view": view}, legal, seat, random.Random(9), fixed_budget(1))
        b = LEVELS["rules"]({"view": view}, legal, seat, random.Random(9), fixed_budget(1))
        assert a == b


def test_rules_walks_the_shortest_route_to_its_owned_end_city() -> None:
    """CH-10/CH-42: with an owned end city, the chosen edge is on a shortest route to it."""
    checked = 0
    for view, legal, seat in POSITIONS:
        me = view["players"][seat]
        owned = [c["city"] for c in me["end_cities"] if view["owners"].get(c["city"]) == seat]
        here = me["position"].get("city")
        if (
            view["phase"] != "MOVE"
            or len(legal) < 2
            or not owned
            or "edge" in me["position"]
            or "airport" in me["position"]
        ):
            continue
        if any(view["owners"].get(c) not in (None, seat) for c in distances()):  # tolls may detour
            continue
        move = LEVELS["rules"]({"view": view}, legal, seat, random.Random(1), fixed_budget(1))
        if move["type"] != "move":
            continue
        from services.games.engines.cityhopper.board import WALKS

        w = WALKS[move["edge"]]
        far = w.other(here)
        best = min(
            WALKS[m["edge"]].steps + min(distances()[WALKS[m["edge"]].other(here)][t] for t in owned)
            for m in legal
            if m["type"] == "move"
        )
        assert w.steps + min(distances()[far][t] for t in owned) <= best + 1  # boat fares weigh a little
        checked += 1
    assert checked > 0


def test_rules_beats_random_clearly_and_rules_games_end() -> None:
    result = head_to_head("rules", "random", seeds=8)
    assert result["unfinished"] == 0
    assert result["wins"] >= 14  # of 16
    own = head_to_head("rules", "rules", seeds=8)
    assert own["unfinished"] == 0
    assert own["moves_max"] < 400


if __name__ == "__main__":  # pragma: no cover - the measurement, see the module docstring
    a, b, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    playouts = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    print(a, "vs", b, head_to_head(a, b, n, playouts, first, progress=True), flush=True)


def test_strong_race_counts_the_turns_the_rules_decide() -> None:
    """What ``strong`` scores a move by: the turns its pawn still needs in a race with the ``rules``
    choices. With sixes and right answers, an owned last end city 4 steps away is played away in the
    next turn (CH-42, CH-43, CH-47); unowned and unpaid it takes longer (CH-38: EUR 15 first), as it
    does from far away or after a wrong answer (CH-16); and the chance to finish first falls as the
    turns it needs grow."""
    from services.bots.domain.games.cityhopper import win_chance
    from services.bots.domain.games.cityhopper_race import Luck, Pawn, Race

    def turns(city: str, money: int, owned: bool, right: bool = True) -> float:
        luck = Luck(random.Random(0), rolls=[6] * 60, right=[right] + [True] * 200)
        pawn = Pawn(city, 0, money, ["leiden"], {"leiden"} if owned else set(), 0, [], [], 0)
        return Race({}, 0).finish(pawn, luck)

    assert turns("amsterdam", 0, True) == 1
    assert turns("amsterdam", 0, False) > 1
    assert turns("amsterdam", 20, False) < turns("amsterdam", 0, False)
    assert turns("groningen", 0, True) > turns("amsterdam", 0, True)
    assert turns("amsterdam", 0, True, right=False) == 2
    opponent = [[3.0, 4.0, 5.0]]
    assert win_chance(2, opponent) == 1.0
    assert win_chance(3, opponent) == 2 / 3
    assert win_chance(5, opponent) == 0.0
