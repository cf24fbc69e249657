"""Random self-play: plays legal moves to the end, checks invariants after every event, and
compares a replay of the finished log with the live result.

The move chooser uses ``random.Random`` seeded by the caller; it is a test driver, not rules
code, and chance inside the game still comes from the seed scheme.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from services.games.domain.play import (
    ExternalProvider,
    Progress,
    SeedMaterial,
    apply_move,
    open_game,
    replay,
)
from services.games.engines.base import Engine, Event, GameConfig


@dataclass
class SelfPlayReport:
    games: int = 0
    moves: int = 0
    events: int = 0
    errors: int = 0
    invariant_failures: int = 0
    replay_mismatches: int = 0
    unfinished: int = 0
    moves_per_s: float = 0.0
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["failures"] = self.failures[:20]
        return out

    @property
    def ok(self) -> bool:
        return not (self.errors or self.invariant_failures or self.replay_mismatches or self.unfinished)


def seeds_for(game_seed: int) -> SeedMaterial:
    server_seed = hashlib.sha256(f"selfplay:{game_seed}".encode()).digest()
    return SeedMaterial(server_seed, f"selfplay-{game_seed}", ())


def play_one(
    engine: Engine[Any],
    config: GameConfig,
    game_seed: int,
    report: SelfPlayReport,
    max_moves: int = 100_000,
    check_every_event: bool = True,
    provider: ExternalProvider | None = None,
) -> list[Event]:
    """Plays one game; records problems in ``report``; returns the event log."""
    chooser = random.Random(game_seed)
    seeds = seeds_for(game_seed)
    label = f"{engine.game_type} n={config.num_players} seed={game_seed}"
    try:
        observe = (lambda p: _check(engine, p, report, label)) if check_every_event else None
        progress, log = open_game(engine, config, seeds, observe, provider)
        moves = 0
        while engine.outcome(progress.state) is None:
            seats = engine.to_move(progress.state)
            if not seats:
                raise RuntimeError("no seat to move but the game is not over")
            seat = chooser.choice(seats)
            legal = engine.selfplay_moves(progress.state, seat)
            if not legal:
                raise RuntimeError(f"seat {seat} is to move but has no legal move")
            move = chooser.choice(legal)
            log.extend(apply_move(engine, progress, seat, move, seeds, observe, provider))
            moves += 1
            if moves >= max_moves:
                report.unfinished += 1
                report.failures.append(f"{label}: not finished after {max_moves} moves")
                break
        report.moves += moves
        report.events += len(log)
        rebuilt = replay(engine, config, log)
        if engine.full_view(rebuilt.state) != engine.full_view(progress.state) or engine.outcome(
            rebuilt.state
        ) != engine.outcome(progress.state):
            report.replay_mismatches += 1
            report.failures.append(f"{label}: replay differs from live state")
        return log
    except Exception as exc:
        report.errors += 1
        report.failures.append(f"{label}: {type(exc).__name__}: {exc}")
        return []
    finally:
        report.games += 1


def _check(engine: Engine[Any], progress: Progress, report: SelfPlayReport, label: str) -> None:
    problems = engine.invariants(progress.state)
    if problems:
        report.invariant_failures += 1
        report.failures.append(f"{label}: {'; '.join(problems)}")


def selfplay(
    engine: Engine[Any],
    config: GameConfig,
    games: int,
    seed: int,
    check_every_event: bool = True,
    provider: ExternalProvider | None = None,
) -> SelfPlayReport:
    report = SelfPlayReport()
    provider = provider or engine.selfplay_provider()
    started = time.perf_counter()
    for k in range(games):
        play_one(
            engine,
            config,
            seed * 1_000_003 + k,
            report,
            check_every_event=check_every_event,
            provider=provider,
        )
    elapsed = time.perf_counter() - started
    report.moves_per_s = round(report.moves / elapsed, 1) if elapsed > 0 else 0.0
    return report
