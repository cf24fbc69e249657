"""Drive an engine: open a game, apply moves, and settle chance from the committed seed.

Pure: the seed material comes in as arguments; nothing here touches I/O, clocks or ``random``.
The same functions serve the live service, replay, the audit and the offline verifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.games.engines.base import (
    CHANCE_EVENT,
    Engine,
    Event,
    ExternalRequest,
    GameConfig,
    IllegalMove,
    Move,
    chance_event,
    external_event,
)
from shared.fairness import derive


class NotYourTurn(IllegalMove):
    """The seat is not among those to move (HTTP 403, not a rules violation)."""


@dataclass(frozen=True)
class SeedMaterial:
    """What chance values are derived from (see ``shared.fairness``)."""

    server_seed: bytes
    game_id: str
    client_seeds: tuple[str, ...]

    def values(self, counter: int, kind: str, n: int, sides: int) -> list[int]:
        return derive(self.server_seed, self.game_id, self.client_seeds, counter, kind, n, sides)


@dataclass
class Progress:
    """A state plus the number of chance events so far (the next chance counter)."""

    state: Any
    chance_count: int = 0


Observer = Callable[[Progress], None]
# answers an external request in process (self-play); the live service answers through queues instead
ExternalProvider = Callable[[ExternalRequest], dict[str, Any]]


def settle_chance(
    engine: Engine[Any],
    progress: Progress,
    seeds: SeedMaterial,
    observe: Observer | None = None,
    provider: ExternalProvider | None = None,
) -> list[Event]:
    """Resolve every pending chance request, folding each ``ChanceResolved`` event; with a
    ``provider``, also answer external requests in process (``ExternalResolved``)."""
    events: list[Event] = []
    while True:
        request = engine.chance_request(progress.state)
        if request is not None:
            values = seeds.values(progress.chance_count, request.kind, request.n, request.sides)
            events += fold(engine, progress, [chance_event(request, progress.chance_count, values)], observe)
            continue
        external = engine.external_request(progress.state) if provider is not None else None
        if external is None or provider is None:
            return events
        events += fold(engine, progress, [external_event(external, provider(external))], observe)


def open_game(
    engine: Engine[Any],
    config: GameConfig,
    seeds: SeedMaterial,
    observe: Observer | None = None,
    provider: ExternalProvider | None = None,
) -> tuple[Progress, list[Event]]:
    """Initial state, opening events and the first chance outcomes."""
    progress = Progress(engine.initial_state(config))
    events = fold(engine, progress, engine.opening_events(config), observe)
    events += settle_chance(engine, progress, seeds, observe, provider)
    return progress, events


def fold(
    engine: Engine[Any], progress: Progress, events: Iterable[Event], observe: Observer | None = None
) -> list[Event]:
    """Apply events in order; ``observe`` (if given) sees the progress after each one."""
    out = []
    for event in events:
        progress.state = engine.evolve(progress.state, event)
        if event.get("type") == CHANCE_EVENT:
            progress.chance_count += 1
        out.append(event)
        if observe is not None:
            observe(progress)
    return out


def apply_move(
    engine: Engine[Any],
    progress: Progress,
    seat: int,
    move: Move,
    seeds: SeedMaterial,
    observe: Observer | None = None,
    provider: ExternalProvider | None = None,
) -> list[Event]:
    """Decide and fold a move, then settle chance. Raises ``IllegalMove`` and changes nothing."""
    if seat not in engine.to_move(progress.state):
        raise NotYourTurn("TURN", "not_your_turn", f"seat {seat} is not to move now")
    decided = engine.decide(progress.state, seat, move)
    events = fold(engine, progress, decided, observe)
    events += settle_chance(engine, progress, seeds, observe, provider)
    return events


def replay(engine: Engine[Any], config: GameConfig, events: Sequence[Event]) -> Progress:
    """Rebuild a state from its recorded events (never re-rolls)."""
    progress = Progress(engine.initial_state(config))
    fold(engine, progress, events)
    return progress


class InvalidSetup(ValueError):
    """A prescribed chance outcome does not fit what the game asked for."""


@dataclass(frozen=True)
class PrescribedSeeds(SeedMaterial):
    """Seed material whose first chance events come from a recorded setup (an admin's physical deal)."""

    setup: tuple[tuple[int, ...], ...] = ()

    def values(self, counter: int, kind: str, n: int, sides: int) -> list[int]:
        if counter >= len(self.setup):
            return super().values(counter, kind, n, sides)
        values = list(self.setup[counter])
        fits = (
            (kind == "shuffle" and sorted(values) == list(range(n)))
            or (kind == "dice" and len(values) == n and all(1 <= v <= sides for v in values))
            or (kind == "pick" and len(values) == 1 and 0 <= values[0] < n)
        )
        if not fits:
            raise InvalidSetup(f"setup[{counter}] does not fit a {kind} of n={n} (sides={sides})")
        return values
