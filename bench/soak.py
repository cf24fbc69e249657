"""A soak of the whole stack (issue 19: "Queue consumers keep up"): moves at a steady rate for
``BENCH_SOAK_SECONDS`` (default 600) on short Tally games, one finishing every few seconds, so that
``GameFinished`` flows through the outbox, the relay and RQ to the ratings and matchmaking consumers,
while every service's ``/metrics`` gauges (outbox pending / oldest age / unconfirmed / failing per
service, RQ queue depth / failed / scheduled jobs per queue) are sampled every few seconds.

The stack is what ``make run`` starts (``speltafel run``: the four services under waitress, one RQ
worker per queue, the outbox relay, the tickers, the stream gateway and the gateway) on a fresh database
and Redis database 14 (``bench.common.bench_backends``). The load client is one asyncio + uvloop process
(``bench/support/soak_load.py``) pacing the moves; at a steady rate far below its own capacity it is not
what limits the stack (its CPU time is reported).

The rate: ``BENCH_SOAK_RATE`` (moves/s) if set; else ``BENCH_SOAK_FRACTION`` (default 0.5) of the POST
move rate ``reference`` measured at 8 clients in the same ``make bench`` run (the games service alone
under the reference benchmark's server, saturated: the whole stack shares the same two cores); else 100 moves/s. ``BENCH_SOAK_GAMES``
(default 8) games are played at once; each is ``rate x BENCH_SOAK_FINISH_EVERY`` (default 3 s) moves long,
so one game finishes about every 3 s. Samples every ``BENCH_SOAK_SAMPLE_SECONDS`` (default 5).

Reported per gauge: start, end and max of the samples and the least-squares slope per minute; a gauge is
``flat`` when its slope is at most ``BENCH_SOAK_FLAT_PER_MIN`` (default 1.0: rows, jobs or seconds of age
gained per minute; a backlog that grows by more than one message or one second of lag a minute over the
soak is not keeping up), or when the fitted line rises less than ``BENCH_SOAK_FLAT_FLOOR`` (default 5)
over the whole soak (in a short run one blip of two unconfirmed rows is not a trend; over 600 s the slope
decides). Besides the gauges, ``games_finished_not_rated`` (finished games the ratings
service has not rated yet, counted in the database) is sampled too. The soak starts once the backlog of
the set-up (the players' registrations) is empty; after it the consumers get up to 60 s to drain, and
the finished games are counted against the games the ratings service rated."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import requests

from bench.common import ROOT, bench_backends, free_port, load_average

SECONDS = float(os.environ.get("BENCH_SOAK_SECONDS") or 600)
SAMPLE_S = float(os.environ.get("BENCH_SOAK_SAMPLE_SECONDS") or 5)
FRACTION = float(os.environ.get("BENCH_SOAK_FRACTION") or 0.5)
FIXED_RATE = 100.0
GAMES = int(os.environ.get("BENCH_SOAK_GAMES") or 8)
FINISH_EVERY_S = float(os.environ.get("BENCH_SOAK_FINISH_EVERY") or 3)
FLAT_PER_MIN = float(os.environ.get("BENCH_SOAK_FLAT_PER_MIN") or 1.0)
FLAT_FLOOR = float(os.environ.get("BENCH_SOAK_FLAT_FLOOR") or 5.0)
DRAIN_S = 60.0
ADMIN = "bench-soak-admin"
SERVICES = ("games", "matchmaking", "questions", "ratings")
GAUGE = re.compile(r'^speltafel_gauge\{[^}]*name="([^"]+)"[^}]*\}\s+(\S+)$')


def rate_from(previous: dict[str, Any] | None) -> tuple[float, str]:
    if os.environ.get("BENCH_SOAK_RATE"):
        return float(os.environ["BENCH_SOAK_RATE"]), "BENCH_SOAK_RATE"
    try:
        measured = float((previous or {})["reference"]["post_move"]["clients_8"]["move_per_s"])
    except (KeyError, TypeError, ValueError):
        return FIXED_RATE, "fixed (no reference figure in this run)"
    return round(measured * FRACTION, 1), f"{FRACTION:g} x reference's POST move at 8 clients ({measured:g}/s)"


def gauges(urls: dict[str, str]) -> dict[str, float]:
    """One sample: each service's outbox gauges (``<service>.outbox_*``) and the queue gauges (the same
    Redis for all, taken from the games service)."""
    out: dict[str, float] = {}
    for service, url in urls.items():
        try:
            text = requests.get(url + "/metrics", timeout=5).text
        except requests.RequestException:
            continue
        for line in text.splitlines():
            match = GAUGE.match(line)
            if not match:
                continue
            name, value = match.group(1), float(match.group(2))
            if name.startswith("outbox_"):
                out[f"{service}.{name}"] = value
            elif service == "games":
                out[name] = value
    return out


def slope_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per minute."""
    n = len(points)
    if n < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / var * 60


def summarise(samples: list[tuple[float, dict[str, float]]]) -> dict[str, dict[str, Any]]:
    names = sorted({name for _, values in samples for name in values})
    out = {}
    for name in names:
        points = [(t, values[name]) for t, values in samples if name in values]
        slope = slope_per_min(points)
        rise = slope * (points[-1][0] - points[0][0]) / 60  # what the fitted line gains over the soak
        out[name] = {"start": points[0][1], "end": points[-1][1], "max": max(v for _, v in points),
                     "slope_per_min": round(slope, 3), "flat": slope <= FLAT_PER_MIN or rise < FLAT_FLOOR}
    return out


def _start_stack(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    return subprocess.Popen([sys.executable, "-m", "services.cli", "run"], env=env, cwd=ROOT, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _wait_healthy(urls: dict[str, str], stack: subprocess.Popen[bytes], log: Path, timeout: float = 240) -> None:
    waiting, deadline = dict(urls), time.monotonic() + timeout
    while waiting and time.monotonic() < deadline and stack.poll() is None:
        for name, url in list(waiting.items()):
            try:
                if requests.get(url + "/healthz", timeout=1).status_code == 200:
                    del waiting[name]
            except requests.RequestException:
                pass
        time.sleep(0.5)
    if waiting:
        raise RuntimeError(f"not answering: {sorted(waiting)}; {log.read_text()[-2000:]}")


def _stop_stack(stack: subprocess.Popen[bytes]) -> None:
    if stack.poll() is None:
        stack.send_signal(signal.SIGTERM)  # the launcher stops its children, then itself
        try:
            stack.wait(90)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)  # its own process group (start_new_session)
            stack.wait(10)


def _children_cpu_s() -> float:
    """User + system CPU seconds of this process's children that have ended (the load client)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _counts(db_url: str) -> dict[str, int]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        finished = conn.execute("SELECT count(*) FROM games.games WHERE status = 'finished'").fetchone()
        rated = conn.execute("SELECT count(*) FROM ratings.games WHERE status = 'rated'").fetchone()
    return {"games_finished": int(finished[0]) if finished else 0, "games_rated": int(rated[0]) if rated else 0}


def _drain(urls: dict[str, str], seconds: float) -> float | None:
    """Seconds until no outbox row is pending or unconfirmed and every queue is empty (None: not within
    ``seconds``)."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        now = gauges(urls)
        backlog = sum(v for k, v in now.items() if k.endswith(("outbox_pending", "outbox_unconfirmed"))
                      or k.startswith("queue_depth_"))
        if now and backlog == 0:
            return round(time.monotonic() - started, 1)
        time.sleep(1)
    return None


def soak(urls: dict[str, str], db_url: str, rate: float, length: int) -> dict[str, Any]:
    base = urls["games"]
    players = []
    for k in range(2 * GAMES + 2):
        body = requests.post(base + "/v1/players", json={"display_name": f"soak{k}"}, timeout=30).json()
        players.append([body["id"], body["token"]])
    settled_s = _drain(urls, DRAIN_S)  # the players' PlayerRegistered messages, relayed and consumed
    args = {"url": base, "admin": ADMIN, "seconds": SECONDS, "rate": rate, "games": GAMES, "length": length,
            "players": players, "report": max(SAMPLE_S, 10)}
    cpu_before = _children_cpu_s()
    client = subprocess.Popen([sys.executable, "-m", "bench.support.soak_load"], cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert client.stdin is not None and client.stdout is not None
    client.stdin.write(json.dumps(args) + "\n")
    client.stdin.flush()
    client.stdin.close()
    started = time.monotonic()
    samples: list[tuple[float, dict[str, float]]] = []
    loads: list[list[float]] = []
    progress: list[dict[str, Any]] = []
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(client.stdout or ()), daemon=True)  # type: ignore[arg-type]
    reader.start()
    shown = 0
    while client.poll() is None:
        at = time.monotonic() - started
        counts = _counts(db_url)
        samples.append((at, gauges(urls) | {"games_finished_not_rated": counts["games_finished"] - counts["games_rated"]}))
        loads.append(load_average())
        if len(lines) > shown:
            shown = len(lines)
            print(f"bench soak: {lines[shown - 1].strip()} load {loads[-1]}", file=sys.stderr)
        time.sleep(max(0.0, SAMPLE_S - (time.monotonic() - started - at)))
    client.wait()
    client_cpu = round(_children_cpu_s() - cpu_before, 1)
    reader.join(10)
    progress += [json.loads(x) for x in lines if x.strip()]
    final = next((p for p in progress if p.get("final")), {"error": "the load client printed no result"})
    drained_s = _drain(urls, DRAIN_S)  # the consumers get up to DRAIN_S to empty what the soak left
    summary = summarise(samples)
    growing = sorted(name for name, s in summary.items() if not s["flat"])
    return {
        "client": {k: v for k, v in final.items() if k != "final"},
        "client_cpu_s": client_cpu,
        "progress_every_10s": [{k: p[k] for k in ("t", "moves_per_s", "games_finished", "errors", "behind_s")}
                               for p in progress if not p.get("final")],
        "samples": len(samples),
        "load_average_during": {"min_1m": min(x[0] for x in loads), "max_1m": max(x[0] for x in loads),
                                "mean_1m": round(sum(x[0] for x in loads) / len(loads), 2)} if loads else {},
        "gauges": summary,
        "growing": growing,
        "verdict": "flat" if not growing else "growing",
        # the stack (or the machine) could not keep the pace when the client's schedule slipped
        "rate_held": float(final.get("moves_per_s") or 0) >= 0.95 * rate,
        "settled_before_s": settled_s,
        "drained_after_s": drained_s,
        "after_drain": _counts(db_url),
    }


def main(previous: dict[str, Any] | None = None) -> dict[str, Any]:
    rate, source = rate_from(previous)
    length = max(10, round(rate * FINISH_EVERY_S))
    out: dict[str, Any] = {"load_average_at_start": load_average(), "cores": os.cpu_count(), "seconds": SECONDS,
                           "target_moves_per_s": rate, "rate_from": source, "games_at_once": GAMES,
                           "game_length_moves": length, "sample_every_s": SAMPLE_S,
                           "flat_threshold_per_min": FLAT_PER_MIN,
                           "flat_floor": FLAT_FLOOR}
    print(f"bench soak: {SECONDS:g} s at {rate:g} moves/s ({source}); load average {out['load_average_at_start']}",
          file=sys.stderr)
    logs = ROOT / ".data" / "bench" / "soak"
    logs.mkdir(parents=True, exist_ok=True)
    with bench_backends() as (db_url, redis_url, _), tempfile.TemporaryDirectory() as data:
        ports = {name: free_port() for name in SERVICES}
        env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=redis_url, ADMIN_TOKEN=ADMIN, LOG_LEVEL="WARNING",
                   RATE_LIMITS="off", SPELTAFEL_EXTRA_ENGINES="bench.support.tally:Tally", SPELTAFEL_HOST="127.0.0.1",
                   SPELTAFEL_DATA_DIR=data, LOG_DIR=str(logs), SPELTAFEL_PORT=str(free_port()),
                   STREAMS_PORT=str(free_port()), **{f"{n.upper()}_PORT": str(p) for n, p in ports.items()})
        for name in SERVICES:
            env.pop(f"{name.upper()}_URL", None)  # the launcher derives them from the ports
        if env.get("HTTP_CPUS", "").strip():  # `HTTP_CPUS=0 make bench`: here only the games service stays on
            env.setdefault("HTTP_CPUS_GAMES", env.pop("HTTP_CPUS"))  # them (all five servers on one would starve)
        urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
        stack = _start_stack(env, logs / "launcher.out")
        try:
            _wait_healthy(urls, stack, logs / "launcher.out")
            out |= soak(urls, db_url, rate, length)
        finally:
            _stop_stack(stack)
    out["load_average_at_end"] = load_average()
    out["setup"] = ("`speltafel run` (4 services under waitress, 5 RQ workers, relay, tickers, streams, gateway) on a "
                    "fresh database; one asyncio + uvloop client process pacing Tally moves; every service's "
                    "/metrics sampled")
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
