"""Issue 19, item 3: the events' ``payload`` and ``metadata`` columns as ``jsonb`` (what the store uses)
against ``json`` (the text stored as sent, not converted), for the store's two hot paths.

Two schemas of one fresh database get the event store's own migration, one of them with ``JSONB``
replaced by ``JSON`` (so the same columns, defaults and four indexes). Then, in interleaved rounds:

- **append**: writer processes (1 and 8) each seal events with the store's own code
  (``shared.eventstore.sealing.seal_encoded``: canonical bytes, chain hash) and insert them one per
  autocommit statement, the store's INSERT with the type's cast, prepared; events per second;
- **read**: one stream of ``READ_EVENTS`` events fetched and decoded as the services decode them
  (``shared.db``'s loaders: orjson), what a rebuild without snapshots reads; milliseconds.

Each figure is ``json``'s over ``jsonb``'s (above 1 is faster for appends, below 1 for reads), the median
of the rounds' ratios. Run: ``.venv/bin/python -m bench.run columns`` (``BENCH_ROUNDS``, default 3;
``BENCH_COLUMNS_SECONDS``, default 5, per append round)."""

from __future__ import annotations

import multiprocessing
import os
import statistics
import time
import uuid
from typing import Any

import psycopg

from bench.common import bench_backends, load_average

ROUNDS = int(os.environ.get("BENCH_ROUNDS") or 3)
SECONDS = float(os.environ.get("BENCH_COLUMNS_SECONDS") or 5)
READ_EVENTS = 10_000
TYPES = {"jsonb": "JSONB", "json": "JSON"}
PAYLOAD = {
    "seat": 1,
    "player_id": "0f0e1c2a-1111-4c4c-9d9d-123456789abc",
    "move": {"type": "play", "card": "JD"},
    "hand_size": 7,
}


def _schema(conn: psycopg.Connection[Any], name: str, column_type: str) -> None:
    from shared.migrate import service_sets  # the store's own migration text

    folder = next(m.folder for m in service_sets(name) if m.name == "eventstore")
    text = (folder / "0001_eventstore.sql").read_text()
    conn.execute(f"CREATE SCHEMA {name}")
    conn.execute(text.replace("{schema}", name).replace("JSONB", column_type))


def _insert(schema: str) -> str:
    cast = "jsonb" if schema == "jsonb" else "json"
    return (
        f"INSERT INTO {schema}.events (stream_id, version, event_id, type, payload, metadata, prev_hash, hash)"
        f" VALUES (%s, %s, %s, %s, %s::text::{cast}, %s::text::{cast}, %s, %s) RETURNING version, position, tx_id::text"
    )


def _writer(args: tuple[str, str, int, float, str, int]) -> int:
    """One writer process: sealed appends for ``seconds`` (or ``count`` of them onto ``stream``)."""
    db_url, schema, worker, seconds, stream, count = args
    from shared.canonical import GENESIS_HASH
    from shared.eventstore.model import NewEvent
    from shared.eventstore.sealing import seal_encoded

    stream = stream or f"w{worker}-{uuid.uuid4().hex}"
    query, prev, done = _insert(schema), GENESIS_HASH, 0
    deadline = time.perf_counter() + seconds
    with psycopg.connect(db_url, autocommit=True, prepare_threshold=0) as conn:
        while (count and done < count) or (not count and time.perf_counter() < deadline):
            sealed = seal_encoded(0, stream, done + 1, NewEvent("CardPlayed", {**PAYLOAD, "n": done}), prev)
            event = sealed.event
            conn.execute(
                query,
                (
                    stream,
                    event.version,
                    event.metadata["event_id"],
                    event.type,
                    sealed.payload_json.decode(),
                    sealed.metadata_json.decode(),
                    event.prev_hash,
                    event.hash,
                ),
            ).fetchall()
            prev, done = event.hash, done + 1
    return done


def _read(db_url: str, schema: str, stream: str) -> float:
    import shared.db  # noqa: F401 - the services' json/jsonb loaders (orjson)

    with psycopg.connect(db_url) as conn:
        started = time.perf_counter()
        rows = conn.execute(
            f"SELECT payload, metadata FROM {schema}.events WHERE stream_id = %s ORDER BY version", (stream,)
        ).fetchall()
        elapsed = time.perf_counter() - started
    assert len(rows) == READ_EVENTS and isinstance(rows[-1][0], dict)
    return elapsed


def main() -> dict[str, Any]:
    out: dict[str, Any] = {"load_average_at_start": load_average()}
    with bench_backends() as (db_url, _, _backends):
        with psycopg.connect(db_url, autocommit=True) as conn:
            for name, column_type in TYPES.items():
                _schema(conn, name, column_type)
        rates: dict[str, list[float]] = {}
        reads: dict[str, list[float]] = {}
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(8) as pool:
            pool.map(_writer, [(db_url, "jsonb", w, 0.2, "", 0) for w in range(8)])  # the processes, started
            for schema in TYPES:
                pool.map(_writer, [(db_url, schema, 0, 0, "read-me", READ_EVENTS)])
            for r in range(ROUNDS):
                order = list(TYPES) if r % 2 == 0 else list(reversed(TYPES))
                for writers in (1, 8):
                    for schema in order:
                        counts = pool.map(
                            _writer, [(db_url, schema, w, SECONDS, "", 0) for w in range(writers)]
                        )
                        rates.setdefault(f"{schema}_{writers}", []).append(sum(counts) / SECONDS)
                for schema in order:
                    reads.setdefault(schema, []).append(
                        min(_read(db_url, schema, "read-me") for _ in range(3))
                    )
        for writers in (1, 8):
            b, j = rates[f"jsonb_{writers}"], rates[f"json_{writers}"]
            out[f"append_writers_{writers}"] = {
                "jsonb_per_s": round(statistics.median(b)),
                "json_per_s": round(statistics.median(j)),
                "ratio_json_to_jsonb": round(
                    statistics.median([y / x for x, y in zip(b, j, strict=True)]), 3
                ),
            }
        out[f"read_{READ_EVENTS}_events"] = {
            "jsonb_ms": round(statistics.median(reads["jsonb"]) * 1000, 1),
            "json_ms": round(statistics.median(reads["json"]) * 1000, 1),
            "ratio_json_to_jsonb": round(
                statistics.median([y / x for x, y in zip(reads["jsonb"], reads["json"], strict=True)]), 3
            ),
        }
    out["load_average_at_end"] = load_average()
    return out
