"""The level interface: dispatch, fallback, validity, and HopPaa's sensible ``random`` level."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.bots.domain.budget import Budget, fixed_budget
from services.bots.domain.hoppaa_sensible import sensible_moves
from services.bots.domain.levels import (
    GAME_TYPES,
    LEVEL_ORDER,
    BadChoice,
    UnknownGame,
    UnknownLevel,
    choose,
    resolve,
)
from services.games.domain.play import apply_move, open_game
from services.games.engines.base import GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import seeds_for

ENGINES = default_registry()


def _config(game_type: str) -> GameConfig:
    engine = ENGINES.get(game_type)
    return engine.variants()[0]


def _play(game_type: str, level: str, seed: int, max_moves: int = 5000) -> tuple[int, bool, int]:
    """Plays a whole game in process, every seat a bot of ``level``; (moves, finished, hopPaa mismatches)."""
    engine = ENGINES.get(game_type)
    config = _config(game_type)
    seeds = seeds_for(seed)
    provider = engine.selfplay_provider()
    progress, _ = open_game(engine, config, seeds, None, provider)
    rng = random.Random(seed)
    moves = 0
    while engine.outcome(progress.state) is None and moves < max_moves:
        seat = engine.to_move(progress.state)[0]
        legal = engine.legal_moves(progress.state, seat)
        body: dict[str, Any] = {"game_type": game_type, "view": engine.view(progress.state, seat)}
        move = choose(game_type, level, body, legal, seat, rng, fixed_budget(50))
        assert move in legal
        apply_move(engine, progress, seat, move, seeds, None, provider)
        moves += 1
    return moves, engine.outcome(progress.state) is not None, 0


def test_every_game_has_every_level_after_fallback() -> None:
    for game_type in GAME_TYPES:
        for level in LEVEL_ORDER:
            played, fn = resolve(game_type, level)
            assert LEVEL_ORDER.index(played) <= LEVEL_ORDER.index(level)
            assert callable(fn)
    assert resolve("klapper", "random")[0] == "random"


def test_unknown_level_and_game_are_refused() -> None:
    with pytest.raises(UnknownLevel):
        resolve("klapper", "grandmaster")
    with pytest.raises(UnknownGame):
        resolve("chess", "random")


def test_a_level_that_returns_an_unlisted_move_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.bots.domain.games import klapper

    monkeypatch.setitem(klapper.LEVELS, "random", lambda v, m, s, r, b: {"type": "cheat"})
    with pytest.raises(BadChoice):
        choose(
            "klapper",
            "random",
            {},
            [{"type": "pass"}, {"type": "bid", "n": 1}],
            0,
            random.Random(0),
            fixed_budget(),
        )


def test_budget_stops_at_iterations_or_time() -> None:
    clock = iter([0.0, 0.5, 2.0])
    budget = Budget(max_iterations=10, max_seconds=1.0, now=lambda: next(clock))
    started = budget.start()
    assert not budget.exhausted(started, 3)
    assert budget.exhausted(started, 3)  # 2.0 s passed
    assert fixed_budget(5).exhausted(0.0, 5)


def test_same_seed_same_choice() -> None:
    moves = [{"type": "play_card", "card": c} for c in ("AS", "KS", "QS", "JS", "10S")]
    picks = {
        choose("klapper", "random", {}, moves, 0, random.Random(42), fixed_budget())["card"] for _ in range(5)
    }
    assert len(picks) == 1


@pytest.mark.parametrize("game_type", ["klapper", "paardenkoppen", "roparun", "hoppaa"])
def test_random_bots_finish_whole_games(game_type: str) -> None:
    moves, finished, _ = _play(game_type, "random", seed=3)
    assert finished, f"{game_type} not finished after {moves} moves"


def test_hoppaa_view_narrowing_matches_the_self_play_policy() -> None:
    """The ``random`` HopPaa bot sees only its view, yet narrows exactly as self-play does on the state."""
    engine = ENGINES.get("hoppaa")
    checked = 0
    for seed in range(4):
        config = engine.variants()[seed % len(engine.variants())]
        seeds = seeds_for(seed)
        progress, _ = open_game(engine, config, seeds, None, None)
        rng = random.Random(seed)
        for _ in range(400):
            if engine.outcome(progress.state) is not None:
                break
            seat = engine.to_move(progress.state)[0]
            legal = engine.legal_moves(progress.state, seat)
            expected = engine.selfplay_moves(progress.state, seat)
            got = sensible_moves({"view": engine.view(progress.state, seat)}, legal, seat)
            assert sorted(map(repr, got)) == sorted(map(repr, expected)), (seed, legal)
            checked += 1
            apply_move(engine, progress, seat, rng.choice(expected), seeds, None, None)
    assert checked > 200
