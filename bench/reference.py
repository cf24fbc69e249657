"""Issue 19: every figure as a ratio to a reference measured in the same run, in interleaved rounds.

- POST move (Tally, the bench game) at 1, 8 and 32 clients, without and with an ``Idempotency-Key``,
  against a bare reference endpoint (``bench/support/reference_app.py``: Flask, one INSERT and one RQ
  enqueue) under the same server (``BENCH_SERVER``: the production waitress by default, or gunicorn;
  ``bench/common.py``); wrk is the load generator (``bench/support/move.lua``), one
  connection per wrk thread, each playing its own game; the three alternate in short slices.
- A raw single-row INSERT (one statement, its own transaction) and the event store's append, with 1
  and 8 writers (processes).
- Rebuilding a 10,000-event game from PostgreSQL without snapshots (and with them) against the
  ``eventsourcing`` library's reconstruct of as many events (``.bench-venv``, bench only).
- Move latency at version 5,000 against version 10.

The load average is printed at the start and before each part. Run: ``make bench`` (all modules)
or ``.venv/bin/python -m bench.run reference``; POST move: ``BENCH_SLICES`` (default 24) rounds of
``BENCH_SLICE_SECONDS`` (default 1) per mode and client count; move latency: ``BENCH_LATENCY_SLICES``
(default 24) rounds of ``BENCH_LATENCY_MOVES`` (default 40) moves at each version; the other parts: ``BENCH_SECONDS``
(default 5) per run, ``BENCH_ROUNDS`` (default 3); ``BENCH_REFERENCE_PARTS`` (comma-separated, default all:
``post_move,latency,writes,rebuild``) runs only those parts, e.g. ``BENCH_REFERENCE_PARTS=post_move``
for the POST move / reference ratios alone; ``BENCH_CLIENTS`` (default ``1,8,32``) the wrk connection
counts of that part (the targets are judged at the three defaults)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import requests

from bench.common import (
    CpuMeter,
    bench_backends,
    load_average,
    server_kind,
    server_label,
    start_server,
    wait_until_up,
)

ROOT = Path(__file__).resolve().parents[1]
LUA = Path(__file__).parent / "support" / "move.lua"
PEER = Path(__file__).parent / "support" / "peer_eventsourcing.py"
SECONDS = float(os.environ.get("BENCH_SECONDS") or 5)
ROUNDS = int(os.environ.get("BENCH_ROUNDS") or 3)
# POST move: rounds of short runs per client count (a multiple of 3: each mode runs first, second and
# third equally often); wrk's -d takes whole seconds
SLICES = int(os.environ.get("BENCH_SLICES") or 24)
SLICE_SECONDS = int(os.environ.get("BENCH_SLICE_SECONDS") or 1)
# move latency by version: rounds of a few moves at each version, alternating which goes first
LATENCY_SLICES = int(os.environ.get("BENCH_LATENCY_SLICES") or 24)
LATENCY_MOVES = int(os.environ.get("BENCH_LATENCY_MOVES") or 40)
CLIENTS = tuple(int(c) for c in (os.environ.get("BENCH_CLIENTS") or "1,8,32").split(","))  # wrk connections
PARTS = {p.strip() for p in (os.environ.get("BENCH_REFERENCE_PARTS") or "post_move,latency,writes,rebuild").split(",")}
LONG = 1_000_000  # Tally length: the benchmark's games never end



class Games:
    """Tally games over HTTP, each with its two players' tokens."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.admin = requests.Session()
        self.admin.headers["Authorization"] = "Bearer bench"

    def player(self, name: str) -> tuple[str, str]:
        body = requests.post(self.base + "/v1/players", json={"display_name": name}, timeout=10).json()
        return body["id"], body["token"]

    def new(self) -> dict[str, Any]:
        (a, ta), (b, tb) = self.player("a"), self.player("b")
        r = self.admin.post(
            self.base + "/v1/games", json={"game_type": "tally", "seats": [a, b], "options": {"length": LONG}},
            timeout=10,
        )
        return {"id": r.json()["id"], "tokens": [ta, tb]}

    def write_file(self, games: list[dict[str, Any]], path: Path) -> None:
        write_games_file(self.admin, self.base, games, path)


def write_games_file(session: requests.Session, base: str, games: list[dict[str, Any]], path: Path) -> None:
    """``bench/support/move.lua``'s GAMES_FILE: per game "id token0 token1 version seat_to_move", as now."""
    lines = []
    for g in games:
        now = session.get(f"{base}/v1/games/{g['id']}", timeout=10).json()
        lines.append(f"{g['id']} {g['tokens'][0]} {g['tokens'][1]} {now['version']} {now['to_move'][0]}")
    path.write_text("\n".join(lines) + "\n")


def wrk(url: str, clients: int, mode: str, games_file: Path, max_requests: int = 0, seconds: float = SECONDS) -> dict[str, Any]:
    env = dict(os.environ, GAMES_FILE=str(games_file), MODE=mode, MAX_REQUESTS=str(max_requests),
               RUN_ID=uuid.uuid4().hex[:12])
    out = subprocess.run(
        ["wrk", "-t", str(clients), "-c", str(clients), "-d", f"{max(1, round(seconds))}s", "--latency", "-s", str(LUA), url],
        env=env, capture_output=True, text=True, timeout=seconds + 120, check=True,
    ).stdout
    line = [x for x in out.splitlines() if x.startswith("{")][-1]
    return dict(json.loads(line))


def http_rounds(games_url: str, ref_url: str, work: Path, pids: dict[str, int], meter: CpuMeter) -> dict[str, Any]:
    """At each client count, ``SLICES`` rounds of ``SLICE_SECONDS`` wrk runs of every mode; the modes'
    order turns by one each round (ref, move, key; then move, key, ref; ...), so no mode always runs
    right after the same other. This shared machine's speed moves by 10-15 % within seconds; many short
    slices, alternated, spread that over every mode alike, where 3 rounds of 5 s left it in the ratios
    (docs/benchmarks.md, 2026-12-06 morning). The figures: ``_summary``."""
    games = Games(games_url)
    pools = {(mode, c): [games.new() for _ in range(c)] for mode in ("move", "key") for c in CLIENTS}
    ref_file = work / "ref.txt"
    ref_file.write_text("\n".join("x t t 0 0" for _ in range(max(CLIENTS))) + "\n")
    loads: dict[int, list[float]] = {}
    out: dict[str, Any] = {"slices": SLICES, "slice_seconds": SLICE_SECONDS,
                           "load_average_before_each_client_count": loads}
    modes = ["ref", "move", "key"]
    for c in CLIENTS:
        loads[c] = load_average()
        runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
        for r in range(SLICES):
            for mode in modes[r % 3:] + modes[:r % 3]:
                if mode == "ref":
                    result = meter.measure(pids["ref"], partial(wrk, ref_url, c, "ref", ref_file, seconds=SLICE_SECONDS))
                else:
                    path = work / f"{mode}-{c}.txt"
                    games.write_file(pools[(mode, c)], path)
                    result = meter.measure(pids["games"], partial(wrk, games_url, c, mode, path, seconds=SLICE_SECONDS))
                runs[mode].append(result)
        out[f"clients_{c}"] = _summary(runs["ref"], runs["move"], runs["key"])
    return out


def _summary(ref: list[dict[str, Any]], move: list[dict[str, Any]], key: list[dict[str, Any]]) -> dict[str, Any]:
    """One client count's figures from its modes' slices (paired by round). Each mode's rate is its
    requests over its time, all slices together (what "moves/s over the run" means), and a ratio is of
    those; beside it the median and quartiles of the rounds' own ratios show the spread. Latency
    percentiles come from each mode's merged histogram (every request of its slices); CPU per request
    (its server's and PostgreSQL's) is each mode's total CPU over its total requests."""
    ratio = [m["per_s"] / r["per_s"] for m, r in zip(move, ref, strict=True)]
    key_ratio = [k["per_s"] / m["per_s"] for k, m in zip(key, move, strict=True)]
    by_mode = {"ref": ref, "move": move, "key": key}
    rate = {name: _rate(runs) for name, runs in by_mode.items()}
    latency = {name: _percentiles(runs) for name, runs in by_mode.items()}
    cpu = {name: _cpu_per_request(runs) for name, runs in by_mode.items()}
    return {
        "reference_per_s": rate["ref"],
        "move_per_s": rate["move"],
        "move_with_key_per_s": rate["key"],
        "ratio_move_to_reference": round(rate["move"] / rate["ref"], 3),
        "ratio_move_to_reference_rounds": {"median": _median(ratio), "quartiles": _quartiles(ratio)},
        "ratio_move_with_key_to_move": round(rate["key"] / rate["move"], 3),
        "ratio_move_with_key_to_move_rounds": {"median": _median(key_ratio), "quartiles": _quartiles(key_ratio)},
        "reference_p50_ms": latency["ref"]["p50_ms"],
        "move_p50_ms": latency["move"]["p50_ms"],
        "reference_p99_ms": latency["ref"]["p99_ms"],
        "move_p99_ms": latency["move"]["p99_ms"],
        "move_with_key_p99_ms": latency["key"]["p99_ms"],
        "ratio_move_p99_to_reference_p99": round(latency["move"]["p99_ms"] / latency["ref"]["p99_ms"], 3),
        # CPU per request, the server's + PostgreSQL's (ms): the cost beside the noisier rate
        "cpu_ms_per_request": {"reference": cpu["ref"], "move": cpu["move"], "move_with_key": cpu["key"]},
        "ratio_move_with_key_to_move_cpu_per_request": round(cpu["key"] / cpu["move"], 3),
        "errors": sum(x["errors"] for x in ref + move + key),
        "requests": {"reference": sum(r["requests"] for r in ref), "move": sum(m["requests"] for m in move),
                     "move_with_key": sum(k["requests"] for k in key)},
        "slices_per_s": {"reference": [r["per_s"] for r in ref], "move": [m["per_s"] for m in move],
                         "move_with_key": [k["per_s"] for k in key]},
    }


def _rate(runs: list[dict[str, Any]]) -> float:
    """Requests per second over all of ``runs``."""
    return round(sum(r["requests"] for r in runs) / sum(r["duration_s"] for r in runs), 1)


def _percentiles(runs: list[dict[str, Any]]) -> dict[str, float]:
    """p50 and p99 (ms) of every request of ``runs``: their wrk latency histograms merged."""
    merged: dict[int, int] = {}
    for run in runs:
        for value, count in run["latency_us"]:
            merged[value] = merged.get(value, 0) + count
    total = sum(merged.values())
    out, seen, ordered = {}, 0, sorted(merged.items())
    wanted = [("p50_ms", 0.50), ("p99_ms", 0.99)]
    for value, count in ordered:
        seen += count
        while wanted and seen >= wanted[0][1] * total:
            out[wanted.pop(0)[0]] = round(value / 1000, 2)
    return out


def _cpu_per_request(runs: list[dict[str, Any]]) -> float:
    """ms of CPU (server + PostgreSQL) per request over all of ``runs``."""
    spent = sum(r["server_cpu_s"] + r["postgres_cpu_s"] for r in runs)
    return round(spent * 1000 / max(1, sum(r["requests"] for r in runs)), 3)


def _quartiles(values: list[float]) -> list[float]:
    if len(values) < 2:
        return [round(values[0], 3)] * 2
    q1, _, q3 = statistics.quantiles(values, n=4)
    return [round(q1, 3), round(q3, 3)]


def latency_by_version(games_url: str, db_url: str, work: Path) -> dict[str, Any]:
    """c=1 moves at version ~10 (a new game each round) against version ~5,000 (one long game, played in
    process), in ``LATENCY_SLICES`` rounds of ``LATENCY_MOVES`` moves each; which of the two runs first
    alternates by round. The ratio is the median of the rounds' own p50 ratios (each round's two slices
    are seconds apart, so the machine's drift cancels within the pair), with their quartiles; beside it
    each side's p50 and p99 from its merged wrk histograms (every move of its slices). Three rounds of
    300 moves, early always first, gave 1.125, 1.006 and 0.863 within 10 minutes on one machine
    (docs/benchmarks.md, 2026-12-06 midday): the machine's speed drifting between two blocks, not the
    version."""
    games = Games(games_url)
    long_game = games.new()
    _play_in_process(db_url, long_game["id"], 5_000)

    def run(name: str, game: dict[str, Any], moves: int, seconds: float) -> dict[str, Any]:
        """``moves`` moves, then wrk idles until ``seconds`` have passed (its threads stop, its clock not)."""
        path = work / f"{name}.txt"
        games.write_file([game], path)
        return wrk(games_url, 1, "move", path, max_requests=moves, seconds=seconds)

    run("late", long_game, 5, 1)  # this worker's cache, warm
    early_v: list[dict[str, Any]] = []
    late_v: list[dict[str, Any]] = []
    for r in range(LATENCY_SLICES):
        fresh = games.new()
        run("early", fresh, 5, 1)
        sides = [("early", fresh, early_v), ("late", long_game, late_v)]
        for name, game, into in sides if r % 2 == 0 else sides[::-1]:
            into.append(run(name, game, LATENCY_MOVES, 1))
    early, late = _percentiles(early_v), _percentiles(late_v)
    rounds = [b["p50_ms"] / a["p50_ms"] for a, b in zip(early_v, late_v, strict=True)]
    return {
        "slices": LATENCY_SLICES,
        "moves_per_slice": LATENCY_MOVES,
        "around_v10": early,
        "around_v5000": late,
        "ratio_v5000_to_v10_p50": _median(rounds),
        "ratio_v5000_to_v10_p50_rounds_quartiles": _quartiles(rounds),
        "ratio_v5000_to_v10_p50_merged": round(late["p50_ms"] / early["p50_ms"], 3),
    }


def _service(db_url: str) -> Any:
    from bench.support.tally import Tally
    from services.games.adapters.postgres import UnitOfWork
    from services.games.engines.registry import Registry
    from services.games.service_layer.handlers import GamesService
    from shared.db import make_pool

    return GamesService(Registry([Tally()]), UnitOfWork(make_pool(db_url, max_size=2)))


def _play_in_process(db_url: str, game_id: str, until_version: int) -> None:
    from shared.auth import Identity

    svc = _service(db_url)
    table = svc._read_table(game_id)
    while table.version < until_version:
        seat = table.progress.state.moves % 2
        svc.make_move(Identity(player_id=table.seats[seat]), game_id, {"type": "add"}, table.version, None)
        table = svc._read_table(game_id)
    svc.uow.pool.close()


def rebuild(db_url: str) -> dict[str, Any]:
    """A 10,000-event Tally game rebuilt by a fresh service (no cached table), with the snapshots the
    service keeps and without them; the eventsourcing peer's reconstruct of 10,000 events."""
    from bench.support.tally import Tally
    from services.games.service_layer.cache import TableCache
    from shared.auth import Identity, PlayerDirectory

    svc = _service(db_url)
    seats = [PlayerDirectory(svc.uow.pool).register(f"r{k}")[0] for k in range(2)]
    game_id = svc.create_game(Identity(admin=True), {"game_type": "tally", "seats": seats, "options": {"length": LONG}})["id"]
    _play_in_process(db_url, game_id, 10_000)
    assert Tally  # the registry of _service

    def timed() -> float:
        samples = []
        for _ in range(5):
            svc.cache = TableCache()
            started = time.perf_counter()
            with svc.uow.read() as repo:
                table = svc.load(repo, game_id)
            samples.append(time.perf_counter() - started)
        assert table.version >= 10_000
        return round(statistics.median(samples) * 1000, 2)

    out_json = json_decoding(db_url, game_id)
    with_snapshots = timed()
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("DELETE FROM games.snapshots WHERE stream_id = %s", (game_id,))
    without = timed()
    version = svc._read_table(game_id).version
    svc.uow.pool.close()
    peer: dict[str, Any] = {"error": "no .bench-venv (python3 -m venv .bench-venv && .bench-venv/bin/pip install 'eventsourcing[postgres]')"}
    python = ROOT / ".bench-venv" / "bin" / "python"
    if python.exists():
        done = subprocess.run([str(python), str(PEER), db_url, str(version)], capture_output=True, text=True, timeout=600)
        peer = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {"error": done.stderr[-500:]}
    out = {"events": version, "without_snapshots_ms": without, "with_snapshots_ms": with_snapshots, "eventsourcing": peer,
           "json": out_json}
    if "reconstruct_ms" in peer:
        out["ratio_without_snapshots_to_eventsourcing"] = round(without / peer["reconstruct_ms"], 3)
    return out


def json_decoding(db_url: str, game_id: str) -> dict[str, Any]:
    """Fetching a 10,000-event stream's payload and metadata columns: decoded by the standard library,
    by orjson (what the services use, shared/db.py), and not decoded (as text), to choose the decoder."""
    import psycopg.types.json

    out: dict[str, Any] = {}
    query = "SELECT payload, metadata FROM games.events WHERE stream_id = %s ORDER BY version"
    for label, loads, text in (("stdlib_json_ms", json.loads, False), ("orjson_ms", None, False), ("undecoded_text_ms", None, True)):
        with psycopg.connect(db_url) as conn:
            if loads is not None:
                psycopg.types.json.set_json_loads(loads, conn)
            samples = []
            for _ in range(5):
                started = time.perf_counter()
                conn.execute(query.replace("payload, metadata", "payload::text, metadata::text") if text else query, (game_id,)).fetchall()
                samples.append(time.perf_counter() - started)
        out[label] = round(statistics.median(samples) * 1000, 1)
    return out


def _writer(args: tuple[str, str, int, float]) -> int:
    """One writer process: appends (or raw inserts) for ``seconds``; returns how many."""
    db_url, kind, worker, seconds = args
    from shared.db import make_pool
    from shared.eventstore.model import NewEvent
    from shared.eventstore.postgres import PostgresEventStore

    payload = {"seat": worker % 2, "player_id": "0f0e1c2a-1111-4c4c-9d9d-123456789abc", "move": {"type": "add"}}
    done, deadline = 0, time.perf_counter() + seconds
    if kind == "raw":
        with psycopg.connect(db_url, autocommit=True) as conn:
            while time.perf_counter() < deadline:
                conn.execute(
                    "INSERT INTO public.bench_raw (stream_id, version, payload) VALUES (%s, %s, %s::jsonb)",
                    (f"raw-{worker}", done + 1, json.dumps(payload)),
                )
                done += 1
        return done
    pool = make_pool(db_url, max_size=1)
    store = PostgresEventStore(pool, "games")
    stream, prev = f"append-{worker}-{uuid.uuid4().hex}", None
    while time.perf_counter() < deadline:
        prev = store.append(stream, done, [NewEvent("Added", payload)], prev_hash=prev)[-1].hash
        done += 1
    pool.close()
    return done


def writes(db_url: str) -> dict[str, Any]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.bench_raw (id BIGSERIAL PRIMARY KEY, stream_id TEXT, version INT, payload JSONB)")
    seconds = SECONDS
    rates: dict[str, list[float]] = {}
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(8) as pool:
        pool.map(_writer, [(db_url, "raw", w, 0.2) for w in range(8)])  # the processes, started
        for _ in range(ROUNDS):
            for writers in (1, 8):
                for kind in ("raw", "append"):
                    counts = pool.map(_writer, [(db_url, kind, w, seconds) for w in range(writers)])
                    rates.setdefault(f"{kind}_{writers}", []).append(sum(counts) / seconds)
    out: dict[str, Any] = {"note": "append: the event store bound to a pool, one event per append, predecessor hash known (as the games service passes it)"}
    for writers in (1, 8):
        raw, append = rates[f"raw_{writers}"], rates[f"append_{writers}"]
        out[f"writers_{writers}"] = {
            "raw_insert_per_s": _median(raw),
            "append_events_per_s": _median(append),
            "ratio_append_to_raw": _median([a / r for a, r in zip(append, raw, strict=True)]),
        }
    return out


def targets(out: dict[str, Any]) -> dict[str, Any]:
    """Issue 19's targets against this run's figures (only the parts that ran): each True or False."""
    met: dict[str, Any] = {}
    if "post_move" in out:
        moves = {c: out["post_move"][f"clients_{c}"] for c in CLIENTS}
        met["post_move_ge_0.85_of_reference"] = {c: m["ratio_move_to_reference"] >= 0.85 for c, m in moves.items()}
        met["post_move_p99_le_1.5_of_reference_p99"] = {
            c: m["ratio_move_p99_to_reference_p99"] <= 1.5 for c, m in moves.items()
        }
        met["idempotency_key_within_5_percent"] = {
            c: abs(m["ratio_move_with_key_to_move"] - 1) <= 0.05 for c, m in moves.items()
        }
        met["idempotency_key_within_5_percent_cpu_per_move"] = {
            c: abs(m["ratio_move_with_key_to_move_cpu_per_request"] - 1) <= 0.05 for c, m in moves.items()
        }
    if "move_latency_by_version" in out:
        met["latency_v5000_le_1.1_of_v10"] = out["move_latency_by_version"]["ratio_v5000_to_v10_p50"] <= 1.1
    if "writes" in out:
        met["append_ge_0.6_of_raw_insert"] = {
            w: out["writes"][f"writers_{w}"]["ratio_append_to_raw"] >= 0.6 for w in (1, 8)
        }
    if "rebuild" in out:
        rebuilt = out["rebuild"]
        if "ratio_without_snapshots_to_eventsourcing" in rebuilt:
            met["rebuild_le_0.4_of_eventsourcing"] = rebuilt["ratio_without_snapshots_to_eventsourcing"] <= 0.4
        met["rebuild_with_snapshots_le_5_ms"] = rebuilt["with_snapshots_ms"] <= 5
    return met


def _median(values: Any) -> float:
    return round(statistics.median(list(values)), 3)


def main() -> dict[str, Any]:
    out: dict[str, Any] = {"load_average_at_start": load_average(), "cpus": os.cpu_count()}
    if shutil.which("wrk") is None:
        return {**out, "error": "wrk is not installed (apt-get install wrk)"}
    with bench_backends() as (db_url, redis_url, _), tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        from bench.support.reference_app import TABLE

        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(TABLE)
        env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=redis_url, ADMIN_TOKEN="bench", LOG_LEVEL="WARNING",
                   RATE_LIMITS="off")
        kind = server_kind()
        games_server, games_url = start_server("bench.support.tally_app:app", env, kind)
        ref_server, ref_url = start_server("bench.support.reference_app:app", env, kind)
        try:
            wait_until_up(games_url + "/readyz")
            wait_until_up(ref_url + "/")
            out["server"] = f"{server_label(kind)}, both apps; wrk on the same 2 cores"
            if "post_move" in PARTS:
                pids = {"games": games_server.pid, "ref": ref_server.pid}
                out["post_move"] = http_rounds(games_url, ref_url, work, pids, CpuMeter(db_url))
            if "latency" in PARTS:
                out["move_latency_by_version"] = latency_by_version(games_url, db_url, work)
        finally:
            for server in (games_server, ref_server):
                server.terminate()
                server.wait(10)
        if "writes" in PARTS:
            out["load_average_before_writes"] = load_average()
            out["writes"] = writes(db_url)
        if "rebuild" in PARTS:
            out["load_average_before_rebuild"] = load_average()
            out["rebuild"] = rebuild(db_url)
    out["targets"] = targets(out)
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
