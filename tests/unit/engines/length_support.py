"""Play a game in process with uniformly random legal moves until the length guard stops it (issue 17.2)."""

from __future__ import annotations

import random
from typing import Any

from services.games.domain import length
from services.games.domain.play import Progress, apply_move, open_game
from services.games.engines.base import Engine, Event, GameConfig
from services.games.service_layer.selfplay import seeds_for


def table_config(engine: Engine[Any], n: int, options: dict[str, Any]) -> tuple[GameConfig, dict[str, Any]]:
    """The engine's config and the table's ``max_length`` record, as the service makes them."""
    table_options, record = length.split_options(engine, n, options)
    assert record is not None
    return GameConfig(n, length.engine_options(table_options, record)), record


def play_to_the_cap(
    engine: Engine[Any], n: int, options: dict[str, Any], seed: int = 1
) -> tuple[Progress, list[Event], dict[str, Any]]:
    """(the progress where the guard cut, the events it did not record, the limit record)."""
    config, record = table_config(engine, n, options)
    seeds, chooser = seeds_for(seed), random.Random(seed)
    provider = engine.selfplay_provider()
    progress, _ = open_game(engine, config, seeds, None, provider)
    for _ in range(200_000):
        assert engine.outcome(progress.state) is None, "the game ended by its rules before the cap"
        seat = chooser.choice(engine.to_move(progress.state))
        move = chooser.choice(engine.legal_moves(progress.state, seat))
        start = Progress(progress.state, progress.chance_count)
        produced = apply_move(engine, progress, seat, move, seeds, None, provider)
        kept, at, cut = length.guard(engine, record, start, produced, progress)
        if cut:
            return at, produced[len(kept):], record
        assert kept == produced and at is progress
    raise AssertionError("never reached the cap")


def assert_stops_exactly_at_the_cap(engine: Engine[Any], n: int, options: dict[str, Any], seed: int = 1) -> Progress:
    at, dropped, record = play_to_the_cap(engine, n, options, seed)
    limit = int(record["limit"])
    assert engine.length(at.state) == limit and engine.outcome(at.state) is None
    assert dropped, "the guard cut before an event"
    assert length.crosses(engine, record, at, dropped)  # what the audit re-checks
    after = Progress(at.state, at.chance_count)
    from services.games.domain.play import fold

    fold(engine, after, dropped[:1])
    assert engine.length(after.state) == limit + 1
    payload, outcome = length.adjudication(engine, record, at.state)
    assert payload["rule"] == record["rule"] and payload["reached"] == limit
    assert outcome.as_dict() == payload["outcome"] and sorted(outcome.ranks)[0] == 1
    return at
