"""The length guard (issue 17.2): every game type with a ``LengthLimit`` ends within its documented
maximum. Pure: used by the live service, the audit and the offline verifier alike.

A table records its limit in ``GameCreated`` (``max_length``: option, unit, limit, rule) and shows it
among its options (``max_rounds`` …); the engine never sees that option (``Table.config`` drops it), so
no rule answer changes below the cap. The game may start at most ``limit`` units (rounds, deals, turns):
the event that would start unit ``limit + 1`` is not recorded, nor is anything after it; instead the
service records ``GameAdjudicated{rule, reason, unit, limit, reached, outcome}`` and then the usual
``GameFinished`` with that outcome, which comes from the engine's pure ``adjudicate(state)``. A game
that ends by its own rules at the same time simply ends by them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.games.domain.play import Progress, fold
from services.games.engines.base import (
    Engine,
    Event,
    InvalidOptions,
    LengthLimit,
    Outcome,
    chance_event,
)

ADJUDICATED = "GameAdjudicated"


def option_schema(limit: LengthLimit) -> dict[str, Any]:
    """The JSON Schema of the table option that sets the maximum."""
    return {
        "type": "integer" if limit.default is not None else ["integer", "null"],
        "minimum": limit.minimum,
        "maximum": limit.maximum,
        "default": limit.default,
        "description": limit.description,
    }


def options_schema(engine: Engine[Any]) -> dict[str, Any]:
    """The engine's options schema plus the length option (what ``GET /v1/game-types`` serves)."""
    schema = engine.options_schema()
    limit = engine.length_limit
    if limit is None:
        return schema
    out = copy.deepcopy(schema)
    out.setdefault("properties", {})[limit.option] = option_schema(limit)
    return out


def describe(engine: Engine[Any]) -> dict[str, Any] | None:
    """``max_length`` of ``GET /v1/game-types``: unit, default, bounds, option and rule."""
    return engine.length_limit.as_dict() if engine.length_limit is not None else None


def split_options(
    engine: Engine[Any], num_players: int, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the table's options, its ``max_length`` record): the engine normalizes its own options, the
    length option is checked here (``InvalidOptions`` naming it) and added with its default."""
    limit = engine.length_limit
    if limit is None or not isinstance(options, Mapping):
        return engine.normalize_options(num_players, options), None
    rest = {k: v for k, v in options.items() if k != limit.option}
    normalized = engine.normalize_options(num_players, rest)
    value = options.get(limit.option, limit.default)
    if value is None and limit.default is None:  # the spec sets no limit (HopPaa, HP-46) and none was asked for
        return normalized, None
    if isinstance(value, bool) or not isinstance(value, int) or not limit.minimum <= value <= limit.maximum:
        raise InvalidOptions(
            limit.option, f"must be an integer from {limit.minimum} to {limit.maximum} ({limit.unit})", limit.rule
        )
    floor = engine.length_floor(normalized)
    if value < floor:
        raise InvalidOptions(limit.option, f"must be at least {floor} with these options", limit.rule)
    record = {"option": limit.option, "unit": limit.unit, "limit": value, "rule": limit.rule}
    return {**normalized, limit.option: value}, record


def engine_options(options: Mapping[str, Any], max_length: Mapping[str, Any] | None) -> dict[str, Any]:
    """The table's options without the length option: what the engine is configured with."""
    option = (max_length or {}).get("option")
    return {k: v for k, v in options.items() if k != option}


def over(engine: Engine[Any], max_length: Mapping[str, Any] | None, state: Any) -> bool:
    """True when ``state`` has started more units than the table allows."""
    return max_length is not None and engine.length(state) > int(max_length["limit"])


def guard(
    engine: Engine[Any],
    max_length: Mapping[str, Any] | None,
    start: Progress,
    events: Sequence[Event],
    after: Progress | None = None,
) -> tuple[list[Event], Progress, bool]:
    """Cut ``events`` (one command's engine events, folded from ``start``) before the first event that
    would take the game past its maximum. Returns (events to record, the progress after them, cut?).
    ``after``: the progress with all of ``events`` folded, if the caller has it; since a length only
    grows, a game within its maximum there was within it all along, and nothing is folded again."""
    if after is not None and not over(engine, max_length, after.state):
        return list(events), after, False
    progress = Progress(start.state, start.chance_count)
    if max_length is None or engine.outcome(start.state) is not None:
        fold(engine, progress, events)
        return list(events), progress, False
    kept: list[Event] = []
    for event in events:
        trial = Progress(progress.state, progress.chance_count)
        fold(engine, trial, [event])
        if over(engine, max_length, trial.state) and engine.outcome(trial.state) is None:
            return kept, progress, True
        kept.append(event)
        progress = trial
    return kept, progress, False


def adjudication(
    engine: Engine[Any], max_length: Mapping[str, Any], state: Any
) -> tuple[dict[str, Any], Outcome]:
    """The ``GameAdjudicated`` payload and the outcome for a game stopped at its maximum."""
    outcome = engine.adjudicate(state)
    payload = {
        "rule": max_length["rule"],
        "reason": f"the game reached its maximum of {max_length['limit']} {max_length['unit']} ({max_length['rule']})",
        "unit": max_length["unit"],
        "limit": int(max_length["limit"]),
        "reached": engine.length(state),
        "outcome": outcome.as_dict(),
    }
    return payload, outcome


def crosses(
    engine: Engine[Any],
    max_length: Mapping[str, Any],
    progress: Progress,
    pending: Sequence[Event],
    chance_values: Callable[[int, str, int, int], list[int]] | None = None,
) -> bool:
    """Whether the game, at ``progress``, was exactly at its maximum: the next event it would record (the
    rest of a move's events, else the chance outcome it waits for) takes it past without ending it by
    the rules, exactly where ``guard`` cuts. (An external answer never starts a unit: engines count
    rounds, deals and turns on their own events and on chance.) ``chance_values``
    gives the values of that chance event (``(counter, kind, n, sides) -> values``); without it any
    well-formed values are used, since what a unit counts does not depend on them."""
    if engine.outcome(progress.state) is not None or over(engine, max_length, progress.state):
        return False
    if pending:
        nxt = pending[0]
    else:
        request = engine.chance_request(progress.state)
        if request is None:
            return False
        values = (
            chance_values(progress.chance_count, request.kind, request.n, request.sides)
            if chance_values is not None
            else _any_values(request.kind, request.n)
        )
        nxt = chance_event(request, progress.chance_count, values)
    trial = Progress(progress.state, progress.chance_count)
    try:
        fold(engine, trial, [nxt])
    except Exception:  # an event the engine refuses never starts a unit
        return False
    return over(engine, max_length, trial.state) and engine.outcome(trial.state) is None


def _any_values(kind: str, n: int) -> list[int]:
    if kind == "shuffle":
        return list(range(n))
    if kind == "dice":
        return [1] * n
    return [0]
