"""Private backends and the real stack for the fault tier (issue 14).

Everything here starts its own processes (a PostgreSQL cluster by ``initdb`` + ``pg_ctl`` run as the OS
user ``postgres``, a ``redis-server``, the ``speltafel run`` launcher with its services, workers,
relay and ticker) on free ports under a temporary directory, and stops only those, by pid or by
``pg_ctl -D <its own data dir>``. The machine's shared PostgreSQL and Redis are never touched.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import requests

from tests.support.servers import PrivateRedis, free_port, port_answers

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("games", "matchmaking", "questions", "ratings")
ADMIN = "faults-admin-token"


def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    path = found[0] if found else shutil.which(name)
    if not path:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (apt-get install postgresql)")
    return path


def as_postgres(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL tool as the OS user postgres (initdb and the server refuse root)."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run(prefix + args, check=True, capture_output=True, text=True, timeout=60, **kw)  # type: ignore[call-overload, no-any-return]


class PrivatePostgres:
    """One PostgreSQL cluster of our own: data dir under ``root``, on a free port, fsync off."""

    def __init__(self, root: Path) -> None:
        self.root = root / "pg"
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.root.mkdir(parents=True)
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            for path in (root, self.root):
                os.chown(path, pw.pw_uid, pw.pw_gid)
        as_postgres([pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync",
                     "-E", "UTF8", "--locale=C"])
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        opts = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
                "-c max_connections=300")  # fsync off only: a stopped server keeps every commit
        as_postgres([pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t", "30",
                     "start"])

    def stop(self, mode: str = "fast") -> None:
        """``immediate`` is a crash (no shutdown checkpoint); ``fast`` a clean stop."""
        with contextlib.suppress(subprocess.CalledProcessError):
            as_postgres([pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop"])

    def running(self) -> bool:
        return port_answers(self.port)


def descendants(pid: int, depth: int = 99) -> dict[int, str]:
    """pid -> command line of every live process below ``pid`` (``depth`` 1: its children only)."""
    children: dict[int, list[int]] = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append(int(stat.split("/")[2]))
    out: dict[int, str] = {}
    todo = [(pid, 0)]
    while todo:
        parent, level = todo.pop()
        for child in children.get(parent, []):
            try:
                out[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                continue
            if level + 1 < depth:
                todo.append((child, level + 1))
    return out


class Stack:
    """The real stack as ``make run`` starts it: ``python -m services.cli run`` (the launcher migrates and
    starts the four services, each under waitress by ``speltafel serve``, one RQ worker per queue, the
    outbox relay, the tickers, the stream gateway and the gateway) against our private PostgreSQL and Redis."""

    def __init__(self, root: Path, pg: PrivatePostgres, redis: PrivateRedis) -> None:
        self.root, self.pg, self.redis = root, pg, redis
        self.ports = {name: free_port() for name in SERVICES}
        self.urls = {name: f"http://127.0.0.1:{port}" for name, port in self.ports.items()}
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "SPELTAFEL_DEFAULT"))}
        self.env.update(
            DATABASE_URL=pg.url, REDIS_URL=redis.url, ADMIN_TOKEN=ADMIN, LOG_LEVEL="WARNING",
            SPELTAFEL_PORT=str(free_port()), SPELTAFEL_HOST="127.0.0.1", PYTHONUNBUFFERED="1",
            STREAMS_PORT=str(free_port()),  # the stream gateway
            # its record of the backends and its logs stay in this tier's folder, not the checkout's .data/
            SPELTAFEL_DATA_DIR=str(root / "speltafel-data"),
            RATINGS_URL=self.urls["ratings"], GAMES_URL=self.urls["games"],
            **{f"{name.upper()}_PORT": str(port) for name, port in self.ports.items()},
            # the limiter stays on (its Redis is part of what breaks) with room for hundreds of test players
            RATE_LIMITS="on", RATE_LIMIT_REGISTER="100000/minute", RATE_LIMIT_MOVES="100000/minute",
            RATE_LIMIT_TOKEN_FAILURES="100000/minute",
            # delivery repair (re-send what Redis lost, requeue a killed worker's job) within the tier's minutes
            SPELTAFEL_OUTBOX_RESEND_AFTER="15", SPELTAFEL_JOB_TIMEOUT="20", SPELTAFEL_ABANDON_GRACE="5",
        )
        self.log = root / "stack.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.seen: dict[int, str] = {}

    def start(self, timeout: float = 90) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "services.cli", "run"], env=self.env, cwd=ROOT,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        for name in SERVICES:
            while True:
                try:
                    if requests.get(self.urls[name] + "/readyz", timeout=2).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"the stack did not come up ({name}); log:\n{self.log_tail()}")
                time.sleep(0.2)
        self.wait_for_processes(timeout=max(5.0, deadline - time.monotonic()))

    def processes(self) -> dict[int, str]:
        """Live processes the launcher started (remembered so teardown can stop them by pid)."""
        if self.proc is None:
            return {}
        found = descendants(self.proc.pid)
        self.seen.update(found)
        return found

    def pids_of(self, *words: str) -> list[int]:
        """The launcher's own children whose command line is ``... services.cli <words>`` (not their
        forks, such as an RQ worker's scheduler)."""
        self.processes()
        tail = " ".join(("services.cli", *words))
        direct = descendants(self.proc.pid, depth=1) if self.proc is not None else {}
        return [pid for pid, cmd in direct.items() if cmd.endswith(tail)]

    def wait_for_processes(self, timeout: float = 30) -> None:
        """Until every worker, the relay and the ticker run."""
        deadline = time.monotonic() + timeout
        wanted = [("worker", s) for s in SERVICES] + [("relay",), ("matchmaking", "tick")]
        while any(not self.pids_of(*w) for w in wanted):
            if time.monotonic() > deadline:
                raise RuntimeError(f"launcher children missing: {self.processes()}")
            time.sleep(0.2)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is None:
            return
        self.processes()
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        # anything the launcher left behind (it died first, or a child ignored SIGTERM): by pid, ours only
        for pid, cmd in self.seen.items():
            try:
                current = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            except OSError:
                continue
            if current == cmd:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
                    os.kill(pid, signal.SIGKILL)

    def db(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.pg.url, autocommit=True, connect_timeout=5)


class Backplane:
    """A private PostgreSQL + Redis + the stack, started and stopped together."""

    def __init__(self, root: Path, persistent_redis: bool = True) -> None:
        self.pg = PrivatePostgres(root)
        self.redis = PrivateRedis(root, persistent=persistent_redis)
        self.pg.start()
        self.redis.start()
        self.stack = Stack(root, self.pg, self.redis)
        try:
            self.stack.start()
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        self.stack.stop()
        self.redis.stop()
        self.pg.stop("immediate")
