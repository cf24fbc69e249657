"""The real stack as `make run` starts it: the launcher (`speltafel run`) as a subprocess on free ports,
against a fresh test database and the test Redis. Used by tests/e2e/test_one_base_url.py and the
browser tier (tests/browser)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.cli import SERVICES
from tests.support.infra import redis_test_url
from tests.support.processes import stop_group

ROOT = Path(__file__).resolve().parents[2]
BANNER = "Ctrl-C stops everything"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Platform:
    proc: subprocess.Popen[bytes]
    base: str
    direct: dict[str, str]
    data: Path
    output: Path
    database_url: str
    redis_url: str

    def terminal(self) -> str:
        return self.output.read_text(errors="replace")

    def interrupt(self) -> int:
        """Ctrl-C, as the terminal sends it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        return int(self.proc.returncode)


@contextmanager
def running_platform(database_url: str, redis_url: str, admin_token: str, where: Path,
                     startup: float = 240, **extra_env: str) -> Iterator[Platform]:
    """Start `speltafel run` (every service, worker, relay, ticker and the gateway), wait for its banner,
    yield it, and stop its process group afterwards."""
    ports = {name: free_port() for name in SERVICES}
    index = free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_URL") and k != "LOG_DIR"}
    env |= {f"{name.upper()}_PORT": str(port) for name, port in ports.items()}
    env |= dict(DATABASE_URL=database_url, REDIS_URL=redis_url, ADMIN_TOKEN=admin_token, SPELTAFEL_PORT=str(index),
                SPELTAFEL_HOST="127.0.0.1", SPELTAFEL_DATA_DIR=str(where / "data"), RATE_LIMITS="off",
                LOG_LEVEL="INFO", PYTHONUNBUFFERED="1")
    env |= {"STREAMS_PORT": str(free_port())}  # the stream gateway
    # 14 processes on the machine's shared PostgreSQL beside the other tiers: a few connections each
    env |= {"DB_POOL_MAX": "4", "DB_POOL_MAX_IDLE": "30"}
    env |= extra_env
    output = where / "terminal.txt"
    with output.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli", "run"], env=env, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    found = Platform(proc, f"http://127.0.0.1:{index}", {n: f"http://127.0.0.1:{p}" for n, p in ports.items()},
                     where / "data", output, database_url, redis_url)
    try:
        deadline = time.monotonic() + startup
        while BANNER not in found.terminal():
            assert proc.poll() is None, found.terminal()[-4000:]
            assert time.monotonic() < deadline, f"make run printed no banner in {startup:.0f} s:\n" + \
                found.terminal()[-4000:]
            time.sleep(0.3)
        yield found
    finally:
        stop_group(proc, grace=60)


def platform_for(test_database: Any, backends: Any, tmp: Path, admin_token: str, redis_db: int) -> Any:
    """The context manager for a test's fixture: the session's test database and a Redis db index."""
    return running_platform(test_database.url, redis_test_url(backends.redis_url, redis_db), admin_token, tmp)
