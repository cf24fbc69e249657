"""The canonical encoding of an event, before and after issue 19's "cache the canonical encoding used for
the hash": what the store spends encoding the events of a move.

Before: the standard library's canonical JSON of the whole envelope for the hash, then orjson again for
the payload and for the metadata ``jsonb`` parameters of the INSERT (three encodings). After
(``shared.eventstore.sealing.seal_encoded``): the payload and the metadata encoded once each by
``shared.canonical.canonical_bytes``; the hash is taken over the envelope assembled around those bytes
and the same bytes are the INSERT's parameters.

The corpus is real: one seeded random game of every engine (each move a ``MoveMade`` and the engine's
events, as the games service stores them), with the metadata the store fills in. Every event's hash is checked
to be the same every way. ``once_stdlib`` (encoded once, by the standard library only) says what the
caching alone is worth, without orjson. Rounds are interleaved (before, after, before, ...); the figure is the median
of the rounds' ratios. Run: ``.venv/bin/python -m bench.run encoding`` (``BENCH_ROUNDS``, default 5)."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
import uuid
from typing import Any

from bench.common import load_average
from shared.canonical import canonical_bytes, canonical_json, event_hash_encoded
from shared.eventstore.model import NewEvent
from shared.eventstore.sealing import complete_metadata
from shared.jsoncodec import dumps as _json_dumps

ROUNDS = int(os.environ.get("BENCH_ENCODING_ROUNDS") or os.environ.get("BENCH_ROUNDS") or 5)
PASSES = 20  # passes over the corpus per round

Item = tuple[str, str, int, str, dict[str, Any], dict[str, Any]]  # prev, stream, version, type, payload, metadata


def before(prev: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> tuple[str, bytes, bytes]:
    """The code path as it was: the envelope for the hash, then the two jsonb parameters."""
    body = json.dumps(
        {"prev": prev, "stream_id": stream_id, "version": version, "type": type_, "payload": payload,
         "metadata": metadata},
        sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
    )
    return hashlib.sha256(body.encode()).hexdigest(), _json_dumps(payload), _json_dumps(metadata)


def after(prev: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> tuple[str, bytes, bytes]:
    payload_json, metadata_json = canonical_bytes(payload), canonical_bytes(metadata)
    return event_hash_encoded(prev, stream_id, version, type_, payload_json, metadata_json), payload_json, metadata_json


def once_stdlib(prev: str, stream_id: str, version: int, type_: str, payload: Any, metadata: Any) -> tuple[str, bytes, bytes]:
    """Encoded once but by the standard library only: what the caching alone is worth."""
    payload_json, metadata_json = canonical_json(payload).encode(), canonical_json(metadata).encode()
    return event_hash_encoded(prev, stream_id, version, type_, payload_json, metadata_json), payload_json, metadata_json


def corpus() -> tuple[list[Item], int, dict[str, int]]:
    """(events, moves, events per game type) of one seeded random game per engine (its first variant),
    stored as the games service stores a move: ``MoveMade`` and the events the engine made of it."""
    import random

    from services.games.domain.play import apply_move, open_game
    from services.games.engines.registry import default_registry
    from services.games.service_layer.selfplay import seeds_for

    items: list[Item] = []
    moves, per_game = 0, {}
    for engine in default_registry().all():
        config, chooser, seeds = engine.variants()[0], random.Random(19), seeds_for(19)
        provider = engine.selfplay_provider()
        progress, log = open_game(engine, config, seeds, None, provider)
        events: list[tuple[str, dict[str, Any]]] = [(str(e["type"]), dict(e)) for e in log]
        players = [str(uuid.uuid4()) for _ in range(config.num_players)]
        while engine.outcome(progress.state) is None and len(events) < 5_000:
            seat = chooser.choice(engine.to_move(progress.state))
            move = chooser.choice(engine.selfplay_moves(progress.state, seat))
            events.append(("MoveMade", {"seat": seat, "player_id": players[seat], "move": move}))
            events += [(str(e["type"]), dict(e)) for e in apply_move(engine, progress, seat, move, seeds, None, provider)]
            moves += 1
        stream_id, prev = str(uuid.uuid4()), "0" * 64
        for version, (type_, payload) in enumerate(events, start=1):
            actor = players[payload["seat"]] if type_ == "MoveMade" else None
            metadata = complete_metadata(NewEvent(type_, payload, {"actor": actor, "correlation_id": stream_id}))
            items.append((prev, stream_id, version, type_, payload, metadata))
            prev = before(prev, stream_id, version, type_, payload, metadata)[0]
        per_game[engine.game_type] = len(events)
    return items, moves, per_game


def _time(encode: Any, items: list[Item]) -> float:
    started = time.perf_counter()
    for _ in range(PASSES):
        for item in items:
            encode(*item)
    return time.perf_counter() - started


def main() -> dict[str, Any]:
    load = load_average()
    items, moves, per_game = corpus()
    for item in items:  # the same hash both ways, and the stored values the same
        old, new = before(*item), after(*item)
        assert old[0] == new[0] == once_stdlib(*item)[0], item
        assert json.loads(old[1]) == json.loads(new[1]) and json.loads(old[2]) == json.loads(new[2])
    samples: dict[str, list[float]] = {"before": [], "after": [], "once_stdlib": []}
    for _ in range(ROUNDS):
        for name, encode in (("before", before), ("after", after), ("once_stdlib", once_stdlib)):
            samples[name].append(_time(encode, items))
    count = len(items) * PASSES
    per_event = {name: round(statistics.median(s) / count * 1e6, 2) for name, s in samples.items()}
    ratios = [a / b for a, b in zip(samples["after"], samples["before"], strict=True)]
    stdlib_ratios = [a / b for a, b in zip(samples["once_stdlib"], samples["before"], strict=True)]
    return {
        "load_average_at_start": load,
        "load_average_at_end": load_average(),
        "corpus": {"events": len(items), "moves": moves, "events_per_game_type": per_game},
        "before_us_per_event": per_event["before"],
        "after_us_per_event": per_event["after"],
        "before_us_per_move": round(per_event["before"] * len(items) / max(moves, 1), 2),
        "after_us_per_move": round(per_event["after"] * len(items) / max(moves, 1), 2),
        "ratio_after_to_before": round(statistics.median(ratios), 3),
        "once_stdlib_us_per_event": per_event["once_stdlib"],
        "ratio_once_stdlib_to_before": round(statistics.median(stdlib_ratios), 3),
        "rounds": ROUNDS,
        "note": "encoding for the hash and the INSERT's payload/metadata parameters; hashes identical",
    }


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
