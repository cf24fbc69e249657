"""Shared helpers of the benchmarks: a throwaway migrated database, the HTTP server a bare app runs
under, the CPU time of processes (Linux /proc) and latency statistics."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import requests
from psycopg import sql

from shared.backends import Backends, resolve
from shared.migrate import apply
from shared.web.server import HttpServerSettings

ROOT = Path(__file__).resolve().parents[1]


def _with_db(url: str, name: str) -> str:
    if "host=" in url and "?" in url:
        base, _, query = url.partition("?")
        return base.rsplit("/", 1)[0] + "/" + name + "?" + query
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, "/" + name, p.query, p.fragment))


@contextmanager
def bench_backends() -> Iterator[tuple[str, str, Backends]]:
    """(database url of a fresh migrated database, redis url on db 14, backends); dropped afterwards."""
    from services.cli import migration_sets

    backends = resolve(ROOT / ".data" / "bench")
    name = f"speltafel_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(backends.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_db(backends.database_url, name)
    try:
        apply(url, migration_sets())
        p = urlsplit(backends.redis_url)
        yield url, urlunsplit((p.scheme, p.netloc, "/14", p.query, p.fragment)), backends
    finally:
        with psycopg.connect(backends.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        backends.stop()


def latency_stats(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)
    if not ordered:
        return {}
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
    }


# The server the HTTP benchmarks run the games app and the bare reference under (``BENCH_SERVER``):
# ``waitress`` is the production server (``speltafel serve``: one process, HTTP_THREADS threads, default
# 32); ``gunicorn`` (gthread, 2 processes x 16 threads) shows what a second process per node gives.
SERVERS = {
    "waitress": "waitress as `speltafel serve` runs it (1 process x 32 threads)",
    "gunicorn": "gunicorn gthread (2 processes x 16 threads)",
}


def server_label(kind: str) -> str:
    """``SERVERS[kind]``, and the CPUs waitress was kept on when ``HTTP_CPUS`` is set for the run (both
    the games app and the reference then stay on them: ``HTTP_CPUS=0 make bench``)."""
    cpus = HttpServerSettings.from_env().cpus
    return SERVERS[kind] + (f", kept on CPU {cpus} (HTTP_CPUS)" if cpus and kind == "waitress" else "")


def server_kind() -> str:
    kind = os.environ.get("BENCH_SERVER") or "waitress"
    if kind not in SERVERS:
        raise SystemExit(f"BENCH_SERVER must be one of {', '.join(SERVERS)}, not {kind!r}")
    return kind


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, as every benchmark prints them beside its figures."""
    return [round(x, 2) for x in os.getloadavg()]


def python_speed_ms(rounds: int = 5) -> float:
    """How fast this machine runs Python right now: the median of ``rounds`` timings of one fixed loop
    (2,000,000 integer additions), in ms. The same kind of machine has served 3 x apart between sessions
    (`bench streams` without viewers: 707-754 moves/s on 2026-12-04, 216-246 on 2026-12-05, both near
    idle), so absolute figures of different runs compare only beside this one."""
    timings = []
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        timings.append(time.perf_counter() - start)
    return round(1000 * statistics.median(timings), 1)


def wait_until_up(url: str, attempts: int = 300) -> None:
    """Until ``url`` answers below 500 (a route the app lacks, 404, counts: the server is up; a 503 from
    ``/readyz`` does not), 0.1 s apart; raises if it never does."""
    for _ in range(attempts):
        try:
            if requests.get(url, timeout=1).status_code < 500:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(factory: str, env: dict[str, str], kind: str) -> tuple[subprocess.Popen[bytes], str]:
    """Serves the WSGI factory ``module:function`` on a free port; (the process, its base URL)."""
    port = free_port()
    if kind == "gunicorn":
        command = [sys.executable, "-m", "gunicorn", f"{factory}()", "--bind", f"127.0.0.1:{port}",
                   "--worker-class", "gthread", "--workers", "2", "--threads", "16", "--log-level", "warning",
                   "--no-control-socket"]  # two gunicorns would share ~/.gunicorn/gunicorn.ctl
    else:
        command = [sys.executable, "-m", "bench.support.serve", factory, str(port)]
    return subprocess.Popen(command, env=env, cwd=ROOT), f"http://127.0.0.1:{port}"


def _cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process, all its threads (Linux ``/proc/<pid>/stat``); OSError once
    it is gone."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc); 0 once it is gone."""
    try:
        return sum(_cpu_times(pid))
    except OSError:
        return 0.0


def process_cpu(pid: int) -> dict[str, float]:
    """A process's user and system CPU seconds and its threads' voluntary and involuntary context
    switches, summed over its threads (``/proc/<pid>/status`` counts only the main thread's); zeros once
    it is gone. Two readings give a round's split of where a process's CPU went."""
    out = {"user_s": 0.0, "sys_s": 0.0, "voluntary_switches": 0.0, "involuntary_switches": 0.0}
    try:
        out["user_s"], out["sys_s"] = _cpu_times(pid)
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        with suppress(OSError):  # a thread that ended meanwhile
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    out["voluntary_switches"] += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    out["involuntary_switches"] += int(line.split()[1])
    return out


def machine_cpu_s() -> tuple[float, float]:
    """(busy, idle) CPU seconds of the whole machine since boot, all cores (Linux /proc/stat; iowait
    counts as idle, steal as neither). Two readings give a round's idle share of the cores."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
    user, nice, system, idle, iowait, irq, softirq = fields
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, (idle + iowait) / tick


def idle_share(before: tuple[float, float], after: tuple[float, float]) -> float:
    """The share of the cores' time that was idle between two ``machine_cpu_s`` readings."""
    busy, idle = after[0] - before[0], after[1] - before[1]
    return round(idle / max(busy + idle, 1e-9), 3)


def cpuidle_driver() -> str | None:
    """The kernel's cpuidle driver (``none``: an idle CPU just halts; on a VM, waking it is a trip through
    the host, which slows a half-idle machine against a busy one), or None where Linux does not say."""
    try:
        return Path("/sys/devices/system/cpu/cpuidle/current_driver").read_text().strip()
    except OSError:
        return None


def _processes() -> Iterator[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process (Linux /proc)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            yield int(entry.name), ppid, cmdline


def process_tree(pid: int) -> list[int]:
    """``pid`` and its children (a server's workers)."""
    return [pid] + [p for p, ppid, _ in _processes() if ppid == pid]


def postgres_backends(database_url: str) -> list[int]:
    """The PostgreSQL backends connected to the database of ``database_url`` (their title names it)."""
    name = urlsplit(database_url).path.lstrip("/")
    return [p for p, _, cmd in _processes() if cmd.startswith("postgres: ") and f" {name} " in cmd]


class CpuMeter:
    """The CPU time a piece of work costs a server (its process and workers) and the PostgreSQL backends
    of its database, per request: what a request costs, beside how many the machine served (on a shared
    machine it moves too, by about 10% between rounds on 2026-12-04). A backend opened during the work
    counts in full; one closed during it is lost (the servers keep pools)."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url

    def _now(self, server_pid: int) -> tuple[dict[int, float], dict[int, float]]:
        return ({p: cpu_seconds(p) for p in process_tree(server_pid)},
                {p: cpu_seconds(p) for p in postgres_backends(self.database_url)})

    def measure(self, server_pid: int, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``work()``'s result (with its ``requests``), plus ``server_cpu_s`` and ``postgres_cpu_s``
        (spent during it) and the same per request, ``…_cpu_ms_per_request``."""
        app_before, pg_before = self._now(server_pid)
        result = work()
        app_after, pg_after = self._now(server_pid)
        n = max(1, int(result["requests"]))
        for name, before, after in (("server", app_before, app_after), ("postgres", pg_before, pg_after)):
            spent = sum(t - before.get(p, 0.0) for p, t in after.items())
            result[f"{name}_cpu_s"] = spent
            result[f"{name}_cpu_ms_per_request"] = round(spent * 1000 / n, 3)
        return result
