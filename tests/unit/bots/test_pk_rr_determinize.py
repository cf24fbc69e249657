"""determinize for Paardenkoppen and ROPARUN (issue 18.3): a sampled state never contradicts the seat.

Positions come from seeded random self-play over every variant; at each of them, for the seat to
move, several sampled states must show that seat exactly its real view and list exactly its real
legal moves, keep every engine invariant, and still differ in the hidden cards.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import Engine, GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import seeds_for

ENGINES = default_registry()


def _positions(engine: Engine[Any], config: GameConfig, seed: int, every: int) -> list[tuple[Any, int]]:
    """(state, seat to move) at every ``every``-th move of one random self-played game."""
    seeds = seeds_for(seed)
    provider = engine.selfplay_provider()
    progress, _ = open_game(engine, config, seeds, None, provider)
    chooser = random.Random(seed)
    out: list[tuple[Any, int]] = []
    moves = 0
    while engine.outcome(progress.state) is None and moves < 3000:
        seat = engine.to_move(progress.state)[0]
        if moves % every == 0:
            out.append((progress.state, seat))
        apply_move(
            engine,
            progress,
            seat,
            chooser.choice(engine.legal_moves(progress.state, seat)),
            seeds,
            None,
            provider,
        )
        moves += 1
    return out


def _hidden(game_type: str, state: Any, seat: int) -> Counter[str]:
    if game_type == "paardenkoppen":
        return Counter(f"{s}:{c}" for s, hand in enumerate(state.hands) if s != seat for c in hand)
    return Counter(
        [f"{s}:{c}" for s, hand in enumerate(state.hands) if s != seat for c in hand]
        + [f"stock:{i}:{c}" for i, c in enumerate(state.stock)]
        + [f"down:{c}" for c in state.discard_down]
    )


@pytest.mark.parametrize("game_type", ["paardenkoppen", "roparun"])
def test_sampled_states_show_the_seat_its_real_view_and_moves(game_type: str) -> None:
    engine = ENGINES.get(game_type)
    checked = 0
    differing = 0
    for k, config in enumerate(engine.variants()):
        for state, seat in _positions(engine, config, seed=100 + k, every=7):
            real_view = engine.view(state, seat)
            real_moves = engine.legal_moves(state, seat)
            rng = random.Random(checked)
            samples = [engine.determinize(real_view, seat, rng) for _ in range(3)]
            for sampled in samples:
                assert engine.view(sampled, seat) == real_view
                assert engine.legal_moves(sampled, seat) == real_moves
                assert engine.invariants(sampled) == []
                # the sample is a real position: the seat's listed moves can all be decided on it
                for move in real_moves[:5]:
                    engine.decide(sampled, seat, move)
            if len({repr(sorted(_hidden(game_type, s, seat).items())) for s in samples}) > 1:
                differing += 1
            checked += 1
    assert checked > 100
    assert differing > checked // 2  # the hidden cards really are re-dealt


@pytest.mark.parametrize("game_type", ["paardenkoppen", "roparun"])
def test_same_rng_same_sample_and_the_real_hidden_cards_are_never_read(game_type: str) -> None:
    engine = ENGINES.get(game_type)
    config = engine.variants()[0]
    for state, seat in _positions(engine, config, seed=7, every=11)[:30]:
        view = engine.view(state, seat)
        a = engine.determinize(view, seat, random.Random(5))
        b = engine.determinize(view, seat, random.Random(5))
        assert engine.full_view(a) == engine.full_view(b)
        # the sampled hidden cards are the real hidden cards, re-dealt (same multiset of cards)
        real = sorted(c.split(":")[-1] for c in _hidden(game_type, state, seat).elements())
        got = sorted(c.split(":")[-1] for c in _hidden(game_type, a, seat).elements())
        assert got == real
