"""How long a bot may think: an iteration and a time budget, with the clock passed in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """A think budget for one move.

    ``now`` is a clock in seconds (the caller passes e.g. ``time.monotonic``; tests pass a fake), so
    the level code stays pure. A search stops at whichever limit comes first.
    """

    max_iterations: int
    max_seconds: float
    now: Callable[[], float]

    def start(self) -> float:
        """The clock reading a search measures its ``max_seconds`` from."""
        return self.now()

    def exhausted(self, started: float, iterations: int) -> bool:
        """True once ``iterations`` reached ``max_iterations`` or ``max_seconds`` have passed."""
        return iterations >= self.max_iterations or self.now() - started >= self.max_seconds

    def out_of_time(self, started: float) -> bool:
        """True once ``max_seconds`` have passed since ``started``: checked inside a playout and between
        the candidates of a round, so one long playout or a wide round cannot overrun the budget."""
        return self.now() - started >= self.max_seconds


def fixed_budget(max_iterations: int = 1000, max_seconds: float = 1.0) -> Budget:
    """A budget whose clock never moves: only ``max_iterations`` limits it (deterministic tests)."""
    return Budget(max_iterations=max_iterations, max_seconds=max_seconds, now=lambda: 0.0)
