"""CityHopper ``determinize``: a sampled state never contradicts the seat's view (issue 18).

Property: over positions from real games (every seat that is to move, and a bystander), for several
samples each, ``engine.view(sampled, seat) == view`` and the sampled state has the same legal moves
(as a set for a FLAG question, whose answer order follows the hidden selector); the sampled state
keeps the engine's invariants, and the hidden end cards really vary between samples."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.games.domain.play import apply_move, open_game
from services.games.engines.base import GameConfig
from services.games.engines.cityhopper.engine import CityHopperEngine
from services.games.engines.cityhopper.state import State
from services.games.service_layer.selfplay import seeds_for

ENGINE = CityHopperEngine()


def positions(seed: int, players: int, levels: tuple[str, ...], every: int = 3) -> Iterator[State]:
    """States along one game played by ``rules``/``random`` bots (every ``every``-th move)."""
    seeds = seeds_for(seed)
    provider = ENGINE.selfplay_provider()
    progress, _ = open_game(ENGINE, GameConfig(num_players=players, options={}), seeds, None, provider)
    rng = random.Random(seed)
    for k in range(3000):
        if ENGINE.outcome(progress.state) is not None:
            return
        if k % every == 0:
            yield progress.state
        seat = ENGINE.to_move(progress.state)[0]
        legal = ENGINE.legal_moves(progress.state, seat)
        level = levels[seat % len(levels)]
        move = choose(
            "cityhopper",
            level,
            {"view": ENGINE.view(progress.state, seat)},
            legal,
            seat,
            rng,
            fixed_budget(1),
        )
        apply_move(ENGINE, progress, seat, move, seeds, None, provider)


def _key(moves: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(m, sort_keys=True) for m in moves)


def test_a_sampled_state_shows_the_seat_exactly_its_view_and_moves() -> None:
    checked = 0
    phases: set[str] = set()
    for seed, players, levels in ((1, 2, ("rules", "random")), (2, 4, ("random",)), (3, 3, ("rules",))):
        for state in positions(seed, players, levels):
            viewers = set(ENGINE.to_move(state)) | {(state.active + 1) % players}
            for seat in sorted(viewers):
                view = ENGINE.view(state, seat)
                real_moves = ENGINE.legal_moves(state, seat)
                for k in range(3):
                    sampled = ENGINE.determinize(view, seat, random.Random(k))
                    assert ENGINE.view(sampled, seat) == view
                    moves = ENGINE.legal_moves(sampled, seat)
                    q = state.question or {}
                    if (q.get("question") or {}).get("category") == "FLAG":
                        assert _key(moves) == _key(real_moves)
                    else:
                        assert moves == real_moves
                    assert ENGINE.to_move(sampled) == ENGINE.to_move(state)
                    assert ENGINE.invariants(sampled) == []
                    checked += 1
            phases.add(state.phase)
    assert checked > 300
    assert {"AWAIT_ROLL", "MOVE", "QUESTION", "PURCHASE"} <= phases


def test_others_hidden_end_cities_are_sampled_and_own_cards_kept() -> None:
    state = next(s for s in positions(5, 3, ("rules",)) if s.turn_no > 5)
    view = ENGINE.view(state, 0)
    mine = [c.city for c in state.players[0].end_cards]
    seen: set[tuple[str, ...]] = set()
    for k in range(20):
        sampled = ENGINE.determinize(view, 0, random.Random(k))
        assert [c.city for c in sampled.players[0].end_cards] == mine
        others = tuple(c.city for p in sampled.players[1:] for c in p.end_cards)
        # no city is on two cards, nor both on a card and in the blue deck (CH-4)
        every = [c.city for p in sampled.players for c in p.end_cards] + sampled.blue
        assert len(every) == len(set(every)) == 82
        seen.add(others)
    assert len(seen) > 10


def test_the_same_rng_gives_the_same_sample() -> None:
    state = next(s for s in positions(7, 2, ("rules",)) if s.turn_no > 3)
    view = ENGINE.view(state, 1)
    a = ENGINE.full_view(ENGINE.determinize(view, 1, random.Random(42)))
    b = ENGINE.full_view(ENGINE.determinize(view, 1, random.Random(42)))
    assert a == b
