"""Where the live service applies the length guard (``domain/length.py``): to the engine events one
command produced (a move, an external answer, with the chance they settled)."""

from __future__ import annotations

from typing import Any

from services.games.domain import length
from services.games.domain.play import Progress
from services.games.domain.table import Table
from services.games.engines.base import Engine, Event, Outcome
from services.games.service_layer.core import Pending


def guarded(
    engine: Engine[Any], table: Table, produced: list[Event], after: Progress
) -> tuple[list[Pending], Outcome | None]:
    """The events to record for ``produced`` (folded from ``table``'s state into ``after``) and the outcome to finish
    with, if any: the game's own, or the adjudication when the events would pass the table's maximum
    (then they are cut there and ``GameAdjudicated`` follows the ones kept)."""
    assert table.progress is not None
    start = Progress(table.progress.state, table.progress.chance_count)
    kept, progress, cut = length.guard(engine, table.max_length, start, produced, after)
    events = [Pending(e["type"], e) for e in kept]
    if not cut or table.max_length is None:
        return events, engine.outcome(progress.state)
    payload, outcome = length.adjudication(engine, table.max_length, progress.state)
    return [*events, Pending(length.ADJUDICATED, payload)], outcome
