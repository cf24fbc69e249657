"""Positions from seeded self-play, as a bot would meet them: (engine, state, seat, JSON view, legal moves)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import Engine, GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import seeds_for

ENGINES = default_registry()


def positions(
    game_type: str, seeds: range, max_moves: int = 400, every: int = 1, config: GameConfig | None = None
) -> Iterator[tuple[Engine[Any], Any, int, dict[str, Any], list[dict[str, Any]]]]:
    engine = ENGINES.get(game_type)
    variants = [config] if config is not None else engine.variants()
    for seed in seeds:
        cfg = variants[seed % len(variants)]
        material = seeds_for(seed)
        provider = engine.selfplay_provider()  # CityHopper's questions; None elsewhere
        progress, _ = open_game(engine, cfg, material, None, provider)
        rng = random.Random(seed)
        for k in range(max_moves):
            if engine.outcome(progress.state) is not None:
                break
            seat = engine.to_move(progress.state)[0]
            legal = engine.legal_moves(progress.state, seat)
            if k % every == 0:
                view = json.loads(json.dumps(engine.view(progress.state, seat)))
                yield engine, progress.state, seat, view, json.loads(json.dumps(legal))
            apply_move(
                engine,
                progress,
                seat,
                rng.choice(engine.selfplay_moves(progress.state, seat)),
                material,
                None,
                provider,
            )
