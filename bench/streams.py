"""Live streams at scale (issue 19, item 4): 2,000 concurrent SSE viewers on one stream gateway process
(``speltafel streams``) while 8 clients make moves on 8 games (250 viewers each: both seats, the admin,
24 registered spectators and 223 anonymous ones), against the same 8 clients without viewers.

Every server is the process ``make run`` starts (``speltafel serve games`` under waitress, ``speltafel
streams``), on a fresh database. The 2,000 viewers are one compiled process (``bench/support/sse_viewers.c``,
one epoll loop, built with ``cc`` here; the asyncio client of ``bench/support/stream_load.py`` when there
is no compiler), so the client measuring the gateway costs the shared cores little. The movers of the
flat-out rounds are wrk (``bench/support/move.lua``, one connection per game), a compiled client like the
reference module's: the asyncio client used before 2026-12-05's night (``BENCH_STREAM_MOVERS=aiohttp``,
also taken when wrk is missing) used 3-5 times its CPU, all in one process that lost its share of the
cores to the viewers. The paced round's movers are that asyncio + uvloop client (aiohttp), which keeps
a schedule. The clients share the machine's cores with the servers, PostgreSQL and Redis, so the load
average at the start is printed with the figures. Rounds are interleaved: without
viewers, with, without, with, without (``BENCH_STREAM_FLAT_ROUNDS`` rounds with viewers, default 2: a
round without viewers moved by up to 30 % from the next one on a noisy machine, more than the 10 % the
target allows); the ratio is mean(with) / mean(without), each round's against its two neighbours beside
it, and the flat-out p99 is the worse round's. The movers go flat out in those rounds, and a
delivery's delay there is mostly its wait for a core. Each round reports the share of the cores' time
left idle (``idle_share_of_the_cores``): a round without viewers whose movers leave the cores idle, on
a VM whose idle CPUs halt (``machine.cpuidle_driver`` ``none``), runs slower for waking them, and the
ratio then says nothing of the viewers' cost (1.28-1.50 on such a machine, 2026-12-06 night, and 1.05
with idle-priority spinners keeping its CPUs awake; ``docs/benchmarks.md``): there the games process
spent twice the CPU per move without the viewers. So the module compares the games process's CPU per
move (``games_cpu_ms_per_move``); when the rounds without the viewers cost a move more than 10 % more
than the rounds with them, ``rounds_comparable`` is false, and a drop within the target is reported
as ``null`` (not shown) rather than true: such rounds can only make the drop look smaller, so a drop
past the target is still false. ``games_cpu_split_per_move`` says where that CPU went (user and system
ms, the threads' voluntary and involuntary context switches, per move; each round's ``servers_cpu_split``
has the same for every server): on 2026-12-07's nineteenth machine the rounds without the viewers took
the same user time a move, the extra was system time and twice the context switches (the threads
handing the GIL and their sockets back and forth across both CPUs, as far as the counts tell).
One more flat-out round runs without the viewers beside a process that only spins at the idle
scheduling class (``SCHED_IDLE``), the control: by its class it takes only CPU time nothing else wants,
so the movers should lose nothing to it. Where they lose to it what they lose to the
viewers (a VM whose scheduler keeps its tasks off a busy vCPU whatever that vCPU runs, 2026-12-06 late
night, ``docs/benchmarks.md``), the drop is the cost of any busy neighbour, not of the viewers' work:
``idle_priority_neighbour`` gives that round's ratio to the rounds without and the rounds with the viewers'
ratio to it. The target's verdict stays the drop against the rounds without. A last round opens the
viewers again with the movers paced at ``BENCH_STREAM_PACED_FRACTION`` (default 0.5) of the rate without
viewers, for the delivery latency of a machine that has cores to spare.

Reported: per-viewer completeness (every event after its ``Last-Event-ID`` exactly once, in order, up
to its game's final version), p50/p99 delivery latency (the time the client read the event's bytes
minus its ``recorded_at``, the games service's accept time; one machine, one clock), POST move
throughput with and without the viewers, and the stream process's reads (one per game and batch for
all its viewer classes, not per viewer)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import fmean
from typing import Any

import requests

from bench.common import (
    ROOT,
    bench_backends,
    cpu_seconds,
    free_port,
    idle_share,
    load_average,
    machine_cpu_s,
    process_cpu,
)
from bench.reference import write_games_file, wrk

MOVERS = 8
MOVER_CLIENT = os.environ.get("BENCH_STREAM_MOVERS") or ("wrk" if shutil.which("wrk") else "aiohttp")
VIEWERS = int(os.environ.get("BENCH_STREAM_VIEWERS") or 2000)
SECONDS = float(os.environ.get("BENCH_STREAM_SECONDS") or 20)
FLAT_ROUNDS = max(1, int(os.environ.get("BENCH_STREAM_FLAT_ROUNDS") or 2))  # flat-out rounds with viewers
PACED_FRACTION = float(os.environ.get("BENCH_STREAM_PACED_FRACTION") or 0.5)  # of the rate without viewers
ADMIN = "bench-admin"
ENGINE = "bench.support.tally:Tally"
NOTICED = "speltafel_stream_notice_batches_total"  # batches the gateway made from the notices' events (no read)


def _serve(command: list[str], env: dict[str, str], health: str, log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "services.cli", *command], env=env, cwd=ROOT,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(600):
        try:
            if requests.get(health, timeout=1).status_code == 200:
                return proc
        except requests.RequestException:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"{command} did not start: {log.read_text()[-2000:]}")


def _client(mode: str, args: dict[str, Any]) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-m", "bench.support.stream_load", mode], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(args) + "\n")
    proc.stdin.flush()
    return proc


def _viewer_client(streams: str, specs: list[dict[str, Any]], grace: float) -> tuple[subprocess.Popen[str], bool]:
    """The viewers' process: ``bench/support/sse_viewers.c`` compiled here (one epoll loop, a fraction of
    the Python client's CPU on the cores the servers share), else the asyncio client."""
    binary = ROOT / ".data" / "bench" / "sse_viewers"
    source = ROOT / "bench" / "support" / "sse_viewers.c"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc and (not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime):
        subprocess.run([cc, "-O2", "-o", str(binary), str(source)], check=False)
    if not binary.exists():
        return _client("viewers", {"streams_url": streams, "viewers": specs, "grace": grace}), False
    host, port = streams.removeprefix("http://").split(":")
    proc = subprocess.Popen([str(binary)], cwd=ROOT, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(f"{host} {port} {grace} {len(specs)}\n"
                     + "".join(f"{s['game']} {s['after']} {s['token'] or '-'}\n" for s in specs))
    proc.stdin.flush()
    return proc, True


def _idle_priority_neighbour() -> subprocess.Popen[bytes]:
    """A process that only spins, at the idle scheduling class (``SCHED_IDLE``): by the class's contract
    it takes only CPU time nothing else wants, shares no lock, socket or cache line with the servers."""
    spin = "import os\nos.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\nwhile True:\n    pass\n"
    return subprocess.Popen([sys.executable, "-c", spin])


def _children_cpu_s() -> float:
    """CPU seconds of this process's children that have been waited for (the load clients)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _result(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    assert proc.stdout is not None
    out, _ = proc.communicate(timeout=timeout)
    return dict(json.loads(out.strip().splitlines()[-1]))


def _player(base: str, name: str) -> tuple[str, str]:
    body = requests.post(base + "/v1/players", json={"display_name": name}, timeout=30).json()
    return body["id"], body["token"]


def _versions(base: str, games: list[dict[str, Any]]) -> dict[str, int]:
    return {g["id"]: requests.get(f"{base}/v1/games/{g['id']}", timeout=30).json()["version"] for g in games}


def _games_cpu_ms_per_move(round_: dict[str, Any]) -> float:
    return round(1000 * round_["servers_cpu_s"]["games"] / max(round_["moves"], 1), 2)


def _games_split_per_move(round_: dict[str, Any]) -> dict[str, float]:
    """Where the games process's CPU per move went: user and system ms, its threads' context switches."""
    split, moves = round_["servers_cpu_split"]["games"], max(round_["moves"], 1)
    return {"user_ms": round(1000 * split["user_s"] / moves, 3), "sys_ms": round(1000 * split["sys_s"] / moves, 3),
            "voluntary_switches": round(split["voluntary_switches"] / moves, 1),
            "involuntary_switches": round(split["involuntary_switches"] / moves, 1)}


def _reads(streams: str, counter: str = "speltafel_stream_reads_total") -> float:
    text = requests.get(streams + "/metrics", timeout=10).text
    return next((float(line.split()[-1]) for line in text.splitlines() if line.startswith(counter)), 0.0)


def _lag(streams: str) -> dict[str, Any]:
    """p50/p99 (bucket upper bounds) of the stream process's own lag histograms, from an event's
    recorded_at: to the notice that woke its batch (noticed), to its events in hand (read), to handed to
    the sockets (written); what the client measures beyond that is the sockets and the client itself."""
    text = requests.get(streams + "/metrics", timeout=10).text
    out: dict[str, Any] = {}
    for stage, prefix in (("noticed", 'speltafel_stream_stage_seconds_bucket{le="'),
                          ("read", 'speltafel_stream_stage_seconds_bucket{le="'),
                          ("written", 'speltafel_stream_lag_seconds_bucket{le="')):
        buckets = []
        for line in text.splitlines():
            if line.startswith(prefix.split("{")[0] + "{") and (stage == "written" or f'stage="{stage}"' in line):
                bound = line.split('le="', 1)[1].split('"', 1)[0]
                buckets.append((float(bound), float(line.split()[-1])))
        total = buckets[-1][1] if buckets else 0
        pick = lambda q, b=buckets, t=total: next((x for x, n in b if n >= q * t), float("inf")) * 1000  # noqa: E731
        if total:
            out[stage] = {"batches": int(total), "p50_ms_at_most": pick(0.5), "p99_ms_at_most": pick(0.99)}
    return out


def run(base: str, streams: str, pids: dict[str, int]) -> dict[str, Any]:
    games = []
    for k in range(MOVERS):
        (a, ta), (b, tb) = _player(base, f"a{k}"), _player(base, f"b{k}")
        r = requests.post(base + "/v1/games", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30,
                          json={"game_type": "tally", "seats": [a, b], "options": {"length": 10_000_000}})
        games.append({"id": r.json()["id"], "tokens": [ta, tb]})
    spectators = [_player(base, f"s{k}")[1] for k in range(24 * MOVERS)]
    movers = {"url": base, "seconds": SECONDS, "games": games}
    session = requests.Session()
    _result(_client("movers", movers | {"seconds": 2}), 120)  # warm-up

    def play(rate: float | None = None) -> dict[str, Any]:
        """One round of the 8 movers: flat out (``rate`` None) by wrk (``bench/support/move.lua``, one
        connection per game, as in ``bench/reference.py``) unless ``BENCH_STREAM_MOVERS=aiohttp``; paced
        by the asyncio client, which keeps a schedule (wrk has no pace). With the client's and the two
        servers' CPU seconds, and the share of the cores' time that was idle during the round (on a VM
        whose idle CPUs halt, a round that leaves the cores idle is slowed by waking them)."""
        before, machine_before = _children_cpu_s(), machine_cpu_s()
        split_before = {name: process_cpu(pid) for name, pid in pids.items()}
        if rate or MOVER_CLIENT != "wrk":
            result = _result(_client("movers", movers | ({"rate": rate} if rate else {})), SECONDS + 120)
            result["client"] = "asyncio + uvloop (aiohttp)"
        else:
            path = ROOT / ".data" / "bench" / "streams-games.txt"
            write_games_file(session, base, games, path)
            r = wrk(base, MOVERS, "move", path, seconds=SECONDS)
            made = r["requests"] - r["errors"]
            result = {"clients": MOVERS, "moves": made, "moves_per_s": round(made / r["duration_s"], 1),
                      "errors": r["errors"], "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"], "client": "wrk"}
        idle = idle_share(machine_before, machine_cpu_s())
        split = {name: {k: v - split_before[name][k] for k, v in process_cpu(pid).items()}
                 for name, pid in pids.items()}
        return result | {"client_cpu_s": round(_children_cpu_s() - before, 1),
                         "servers_cpu_s": {name: round(d["user_s"] + d["sys_s"], 1) for name, d in split.items()},
                         "idle_share_of_the_cores": idle,
                         "servers_cpu_split": {name: {k: round(v, 2) for k, v in d.items()}
                                               for name, d in split.items()}}

    rounds: dict[str, Any] = {"without_1": play()}

    def with_viewers(rate: float | None) -> dict[str, Any]:
        """One round of the movers (``rate``: paced at that many moves/s in all; None: flat out) with
        VIEWERS viewers opened just before it, each from its game's version then; the viewers' delivery."""
        start = _versions(base, games)
        specs = []
        for k in range(VIEWERS):
            game = games[k % MOVERS]
            slot = k // MOVERS  # 0, 1: the seats; 2: the admin; 3-26: registered spectators; then anonymous
            token = (game["tokens"][slot] if slot < 2 else ADMIN if slot == 2
                     else spectators[(slot - 3) * MOVERS + k % MOVERS] if slot < 27 else None)
            specs.append({"game": game["id"], "token": token, "after": start[game["id"]]})
        viewers, compiled = _viewer_client(streams, specs, 20)
        assert viewers.stdout is not None and viewers.stdin is not None
        opened_at = time.monotonic()
        ready = viewers.stdout.readline().strip()
        if ready != "ready":
            raise RuntimeError(f"the viewers did not open: {ready!r}")
        connect_s = time.monotonic() - opened_at
        reads_before = _reads(streams)
        noticed_before = _reads(streams, NOTICED)
        client_before = cpu_seconds(viewers.pid)
        moves = play(rate)
        cpu = moves["servers_cpu_s"] | {"viewer_client": round(cpu_seconds(viewers.pid) - client_before, 1)}
        reads = _reads(streams) - reads_before
        noticed = _reads(streams, NOTICED) - noticed_before
        finals = _versions(base, games)
        viewers.stdin.write("".join(f"{g} {v}\n" for g, v in finals.items()) + "stop\n" if compiled
                            else "stop " + json.dumps(finals) + "\n")
        viewers.stdin.flush()
        delivery = _result(viewers, 120)
        events = sum(finals[g] - start[g] for g in finals)
        return {
            "moves": moves,
            "viewers": delivery,
            "viewers_connect_s": round(connect_s, 1),
            "cpu_s_during_the_round": cpu,
            "stream_reads": {"reads": int(reads), "batches_from_notices": int(noticed), "events_recorded": events,
                             "reads_per_event": round(reads / max(events, 1), 2),
                             "viewer_events_delivered": delivery["events_delivered"]},
        }

    flat = []
    for k in range(1, FLAT_ROUNDS + 1):
        flat.append(with_viewers(None))
        rounds[f"with_viewers_{k}"] = flat[-1]["moves"]
        rounds[f"without_{k + 1}"] = play()
    lag = _lag(streams)  # the gateway's stages over the flat-out rounds (its histograms since it started)
    # the control: the movers flat out beside a process that should cost them nothing (it spins at the idle
    # scheduling class); what they lose here, they lose to any busy neighbour, not to the viewers' work
    neighbour = _idle_priority_neighbour()
    try:
        beside_round = rounds["beside_an_idle_priority_neighbour"] = play()
        neighbour_cpu_s = round(cpu_seconds(neighbour.pid), 1)
    finally:
        neighbour.kill()
        neighbour.wait()
    moved = {"without": [rounds[f"without_{k}"] for k in range(1, FLAT_ROUNDS + 2)],
             "with_viewers": [f["moves"] for f in flat]}

    def each(figure: Callable[[dict[str, Any]], Any]) -> dict[str, list[Any]]:
        return {kind: [figure(r) for r in rs] for kind, rs in moved.items()}

    rates = each(lambda r: r["moves_per_s"])
    without, watched = rates["without"], rates["with_viewers"]
    alone, with_viewers_mean = fmean(without), fmean(watched)
    beside = beside_round["moves_per_s"]
    per_round = [round(w / ((without[k] + without[k + 1]) / 2), 3) for k, w in enumerate(watched)]
    # the games process's CPU per move in each round: the viewers cost the gateway, not a move, so a round
    # without them that costs a move more than 10 % more (seen on a VM whose idle CPUs halt) is not a baseline
    cpu_per_move = each(_games_cpu_ms_per_move)
    comparable = fmean(cpu_per_move["without"]) <= 1.1 * fmean(cpu_per_move["with_viewers"])
    paced_rate = round(PACED_FRACTION * alone, 1)
    paced = with_viewers(paced_rate)
    flat_p99 = [f["viewers"]["delivery_latency"].get("p99_ms") for f in flat]
    p99 = {"flat_out": max(1e9 if v is None else v for v in flat_p99),
           "paced": paced["viewers"]["delivery_latency"].get("p99_ms", 1e9)}
    return {
        "flat_out": [{k: f[k] for k in ("viewers", "viewers_connect_s", "cpu_s_during_the_round", "stream_reads")}
                     for f in flat],
        "delivery_p99_ms": {"flat_out_rounds": flat_p99, "flat_out_worst": p99["flat_out"], "paced": p99["paced"]},
        "moves": rounds,
        "stream_process_lag": lag,
        "moves_per_s_ratio_with_viewers": round(with_viewers_mean / alone, 3),
        "moves_per_s_ratio_per_round": per_round,
        "idle_share_of_the_cores": each(lambda r: r["idle_share_of_the_cores"]),
        "games_cpu_ms_per_move": cpu_per_move,
        "games_cpu_split_per_move": each(_games_split_per_move),
        "rounds_comparable": comparable,
        "idle_priority_neighbour": {
            "moves_per_s_ratio_to_without": round(beside / alone, 3),
            "neighbour_cpu_s": neighbour_cpu_s,
            "moves_per_s_ratio_with_viewers_to_beside_it": round(with_viewers_mean / beside, 3),
        },
        "paced": {"target_moves_per_s": paced_rate, "fraction_of_the_rate_without_viewers": PACED_FRACTION} | paced,
        "targets": {
            "every_viewer_every_event": all(r["viewers"]["complete"] == r["viewers"]["viewers"]
                                            for r in [*flat, paced]),
            "p99_delivery_le_100_ms": {"flat_out": p99["flat_out"] <= 100, "paced": p99["paced"] <= 100},
            # None: a pass not shown, the rounds without the viewers having cost a move more CPU than the rounds
            # with them (that slows the rounds without, so it can only hide a drop: a miss stays a miss)
            "move_throughput_drop_le_10_percent": (False if with_viewers_mean < 0.9 * alone
                                                   else True if comparable else None),
        },
    }


def main() -> dict[str, Any]:
    load = load_average()
    print(f"bench streams: load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", file=sys.stderr)
    out: dict[str, Any] = {"load_average_at_start": load, "cores": os.cpu_count()}
    logs = ROOT / ".data" / "bench"
    logs.mkdir(parents=True, exist_ok=True)
    with bench_backends() as (db_url, redis_url, _):
        games_port, streams_port = free_port(), free_port()
        env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=redis_url, ADMIN_TOKEN=ADMIN, LOG_LEVEL="WARNING",
                   RATE_LIMITS="off", SPELTAFEL_EXTRA_ENGINES=ENGINE, GAMES_PORT=str(games_port),
                   STREAMS_PORT=str(streams_port), SPELTAFEL_HOST="127.0.0.1", LOG_DIR=str(logs))
        base, streams = f"http://127.0.0.1:{games_port}", f"http://127.0.0.1:{streams_port}"
        procs = [_serve(["serve", "games"], env, base + "/healthz", logs / "streams-bench-games.out"),
                 _serve(["streams"], env, streams + "/healthz", logs / "streams-bench-streams.out")]
        try:
            out |= run(base, streams, {"games": procs[0].pid, "streams": procs[1].pid})
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(20)
    out["setup"] = (f"{VIEWERS} SSE viewers on one `speltafel streams` process, {MOVERS} movers on "
                    f"{MOVERS} Tally games against `speltafel serve games` (waitress); load clients: the viewers "
                    f"one compiled epoll process (bench/support/sse_viewers.c), the flat-out movers "
                    f"{'wrk (bench/support/move.lua)' if MOVER_CLIENT == 'wrk' else 'asyncio + uvloop (aiohttp)'}, "
                    f"the paced ones asyncio + uvloop (aiohttp); {SECONDS:g} s per round, flat out {' / '.join(['without', 'with'] * FLAT_ROUNDS + ['without'])}, then "
                    f"without beside an idle-priority spinner, then with the "
                    f"viewers again and the movers paced at {PACED_FRACTION:g} of the rate without viewers")
    out["load_average_at_end"] = load_average()
    return out
