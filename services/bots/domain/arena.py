"""Games between bot levels, in process (issue 18, "Measure").

``play_game`` plays one whole game: the game's chance comes from a seed through ``shared.fairness``
(the host's scheme), each seat's bot has its own ``random.Random`` seeded from its own seed, and every
bot chooses from exactly what the API would give its token: the body ``{"game_type", "seat", "view"}``
with ``view`` = ``engine.view(state, seat)`` after a JSON round trip, and ``legal_moves(state, seat)``.
So a bot sees its own seat only. Moves go through ``decide``/``evolve`` like any other; a game that
does not end within ``max_moves`` stops and is reported unfinished.

Pure: the clock used to time moves is passed in (``clock``; default a clock that never moves).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.levels import choose as choose_level
from services.games.engines.base import (
    Engine,
    GameConfig,
    Move,
    Outcome,
    chance_event,
    external_event,
)
from services.games.engines.registry import default_registry
from shared.fairness import derive

Chooser = Callable[[str, str, dict[str, Any], list[Move], int, random.Random, Budget], Move]

ENGINES = default_registry()


@dataclass(frozen=True)
class Bot:
    level: str
    seed: int


@dataclass
class ArenaResult:
    game_type: str
    num_players: int
    levels: list[str]
    outcome: Outcome | None
    moves: int
    # (seat, level, seconds) for every decision a bot was asked for (more than one legal move)
    timings: list[tuple[int, str, float]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def winners(self) -> list[int]:
        """Seats ranked first (a team's seats together)."""
        if self.outcome is None:
            return []
        return [s for s, r in enumerate(self.outcome.ranks) if r == 1]


class _Chance:
    """The host's chance scheme: values derived from the game seed, counted per event."""

    def __init__(self, game_seed: int) -> None:
        self.server_seed = hashlib.sha256(f"arena:{game_seed}".encode()).digest()
        self.game_id = f"arena-{game_seed}"
        self.counter = 0

    def settle(self, engine: Engine[Any], state: Any) -> Any:
        provider = engine.selfplay_provider()
        while True:
            request = engine.chance_request(state)
            if request is not None:
                values = derive(
                    self.server_seed, self.game_id, (), self.counter, request.kind, request.n, request.sides
                )
                state = engine.evolve(state, chance_event(request, self.counter, values))
                self.counter += 1
                continue
            external = engine.external_request(state) if provider is not None else None
            if external is None or provider is None:
                return state
            state = engine.evolve(state, external_event(external, provider(external)))


def play_game(
    game_type: str,
    config: GameConfig,
    game_seed: int,
    bots: list[Bot],
    budget: Callable[[str], Budget],
    choose: Chooser = choose_level,
    max_moves: int = 20_000,
    clock: Callable[[], float] = lambda: 0.0,
) -> ArenaResult:
    """One game, seat ``s`` played by ``bots[s]`` with ``budget(level)`` per move."""
    engine = ENGINES.get(game_type)
    if len(bots) != config.num_players:
        raise ValueError(f"{len(bots)} bots for {config.num_players} seats")
    config = GameConfig(config.num_players, engine.normalize_options(config.num_players, config.options))
    chance = _Chance(game_seed)
    state = engine.initial_state(config)
    for event in engine.opening_events(config):
        state = engine.evolve(state, event)
    state = chance.settle(engine, state)
    rngs = [random.Random(b.seed) for b in bots]
    result = ArenaResult(game_type, config.num_players, [b.level for b in bots], None, 0)
    while engine.outcome(state) is None and result.moves < max_moves:
        seats = engine.to_move(state)
        if not seats:
            break  # nothing can move (an external request without a provider): unfinished
        seat = seats[0]
        legal = engine.legal_moves(state, seat)
        if len(legal) == 1:
            move = legal[0]
        else:
            body = {
                "game_type": game_type,
                "seat": seat,
                "view": json.loads(json.dumps(engine.view(state, seat))),
            }
            level = bots[seat].level
            started = clock()
            move = choose(
                game_type, level, body, json.loads(json.dumps(legal)), seat, rngs[seat], budget(level)
            )
            result.timings.append((seat, level, clock() - started))
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
        state = chance.settle(engine, state)
        result.moves += 1
    result.outcome = engine.outcome(state)
    return result
