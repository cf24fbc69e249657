"""The ``speltafel`` command: run everything, migrate, serve one service, work a queue, relay the
outbox, verify an exported game offline, and self-play a game."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

SERVICES = ("games", "matchmaking", "questions", "ratings")
ROOT = Path(__file__).resolve().parents[1]
# the commands that talk to PostgreSQL or Redis
NEEDS_BACKENDS = {"migrate", "serve", "worker", "relay", "matchmaking", "ratings", "gateway", "games", "streams"}


def data_dir() -> Path:
    """Where ``make run`` keeps embedded data, logs and the record of its backends."""
    return Path(os.environ.get("SPELTAFEL_DATA_DIR") or ROOT / ".data")


def package_version() -> str:
    try:
        return version("speltafel")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


@contextmanager
def command_backends(command: str) -> Iterator[None]:
    """Give a command the backends ``make run`` uses (see shared/backends.py ``for_command``) in
    ``DATABASE_URL``/``REDIS_URL``, and say on stderr which they are unless they came from the
    environment; embedded servers started for this command stop after it."""
    if command not in NEEDS_BACKENDS or (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        yield
        return
    from shared.backends import for_command, redact

    found, source = for_command(data_dir())
    print(f"speltafel {command}: PostgreSQL {redact(found.database_url)}, Redis {redact(found.redis_url)} "
          f"({source})", file=sys.stderr, flush=True)
    for note in found.notes:
        print(f"speltafel {command}: {note}", file=sys.stderr, flush=True)
    saved = {k: os.environ.get(k) for k in ("DATABASE_URL", "REDIS_URL")}
    os.environ.update(DATABASE_URL=found.database_url, REDIS_URL=found.redis_url)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        found.stop()


def progress(iterable: Any, **kw: Any) -> Any:
    """A progress bar on stderr (stdout keeps the JSON); silent when stderr is not a terminal."""
    from tqdm import tqdm

    return tqdm(iterable, file=sys.stderr, disable=None, leave=False, **kw)


def migration_sets() -> list[Any]:
    from shared.migrate import identity_set, service_sets

    sets = [identity_set()]
    for name in SERVICES:
        sets += service_sets(name, ROOT / "services" / name / "adapters" / "migrations")
    return sets


def cmd_migrate(args: argparse.Namespace) -> int:
    from shared.config import Settings
    from shared.migrate import apply

    applied = apply(Settings.from_env().database_url, migration_sets())
    print(json.dumps({"applied": applied}))
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from redis import Redis
    from rq import Queue

    from shared.config import Settings
    from shared.outbox import ConsumerWorker
    from shared.web.observability import configure_logging

    configure_logging(f"{args.service}-worker", Settings.from_env().log_level)
    if args.service == "bots" and not os.environ.get("BOTS_SECRET"):
        print("speltafel worker bots: set BOTS_SECRET (the same as the games service's)", file=sys.stderr)
        return 2
    redis = Redis.from_url(Settings.from_env().redis_url)
    worker = ConsumerWorker([Queue(args.service, connection=redis)], connection=redis)
    worker.work(burst=args.burst, with_scheduler=True)  # the scheduler enqueues due retries
    return 0


def cmd_relay(args: argparse.Namespace) -> int:
    import signal

    from redis import Redis

    from shared.config import Settings
    from shared.db import make_pool
    from shared.messages import QUEUES
    from shared.outbox import run_relay
    from shared.web.observability import configure_logging

    settings = Settings.from_env()
    configure_logging("relay", settings.log_level)
    stopping = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stopping.update(now=True))
    run_relay(make_pool(settings.database_url, max_size=2), list(SERVICES), Redis.from_url(settings.redis_url),
              lambda: stopping["now"], queues=QUEUES)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve one service with waitress (requests are read whole before a thread serves them, so slow
    clients cannot starve the threads; see shared/web/server.py and README "HTTP server")."""
    import importlib

    from shared.config import Settings
    from shared.web.observability import configure_logging
    from shared.web.server import HttpServerSettings, serve

    settings = Settings.from_env()
    for key, url in settings.service_url_env().items():  # a moved port reaches the callers
        os.environ.setdefault(key, url)
    configure_logging(args.service, settings.log_level)  # JSON lines with the request id
    port = args.port or settings.ports[args.service]
    if args.workers != 1:
        print("speltafel serve: --workers is ignored (one process; scale with HTTP_THREADS and replicas)",
              file=sys.stderr)
    server = HttpServerSettings.from_env(args.service)
    if not kept_on_cpus("serve", server.cpus):
        return 2
    app = importlib.import_module(f"services.{args.service}.bootstrap").create_app(settings)
    serve(app, settings.host, port, server)
    return 0


def kept_on_cpus(command: str, cpus: str) -> bool:
    """Keep this process on ``HTTP_CPUS``'s CPUs before a server starts; False (and why, on stderr) for a
    malformed list or one that names a CPU this process may not run on."""
    from shared.web.server import keep_on_cpus

    try:
        keep_on_cpus(cpus)
    except ValueError as error:
        print(f"speltafel {command}: {error}", file=sys.stderr)
        return False
    return True


def cmd_gateway(args: argparse.Namespace) -> int:
    """The one base URL of ``make run`` (``/games/...`` etc.) with the combined ``/openapi.json``."""
    from services.gateway.app import create_gateway_app
    from shared.config import Settings
    from shared.web.observability import configure_logging
    from shared.web.server import HttpServerSettings, serve

    settings = Settings.from_env()
    configure_logging("gateway", settings.log_level)
    streams = os.environ.get("STREAMS_URL") or f"http://127.0.0.1:{streams_port()}"
    server = HttpServerSettings.from_env("gateway")
    if not kept_on_cpus("gateway", server.cpus):
        return 2
    # each forwarded live stream holds one of the server's threads: keep a few for everything else
    max_streams = int(os.environ.get("GATEWAY_MAX_STREAMS") or max(1, server.threads - 4))
    app = create_gateway_app(settings.service_urls, streams=streams, max_streams=max_streams,
                             forward_secret=settings.gateway_secret)
    serve(app, settings.host, args.port or settings.index_port, server)
    return 0


def cmd_matchmaking_tick(args: argparse.Namespace) -> int:
    from services.matchmaking.entrypoints.ticker import main as ticker

    return ticker(["--interval", str(args.interval), *(["--once"] if args.once else [])])


def cmd_games_tick(args: argparse.Namespace) -> int:
    from services.games.entrypoints.ticker import main as ticker

    return ticker(["--interval", str(args.interval), *(["--once"] if args.once else [])])


def cmd_run(args: argparse.Namespace) -> int:
    from services.launcher import launch

    return launch(ROOT, data_dir())


def verify_summary(path: str, report: dict[str, Any]) -> str:
    lines = [f"{path}: game {report['game_id']}: {'OK' if report['ok'] else 'FAILED'}"]
    for check in report["checks"]:
        where = f" at event {check['first_failing_event']}" if check.get("first_failing_event") is not None else ""
        detail = f": {check['detail']}" if check.get("detail") else ""
        lines.append(f"  {check['status']:<5} {check['name']}{where}{detail}")
    lines += [f"  note  {flag}" for flag in report.get("flags") or []]
    return "\n".join(lines)


def cmd_verify(args: argparse.Namespace) -> int:
    from services.games.domain.audit import audit_export
    from services.games.engines.registry import default_registry

    try:
        path = Path(args.file)
        with path.open("rb") as handle, progress(None, total=path.stat().st_size, unit="B", unit_scale=True,
                                                 desc="reading") as bar:
            chunks = []
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                chunks.append(chunk)
                bar.update(len(chunk))
        document = json.loads(b"".join(chunks))
    except (OSError, ValueError) as exc:
        failure = {"ok": False, "error": f"cannot read {args.file}: {exc}"}
        print(json.dumps(failure) if args.json else f"{args.file}: cannot read it: {exc}")
        return 2
    events = document.get("events") if isinstance(document, dict) else None
    if not isinstance(document, dict):
        document = {}
    with progress(None, total=len(events) if isinstance(events, list) else 0, desc="replaying",
                  unit="event") as bar:
        report = audit_export(document, default_registry(), replayed=lambda _version: bar.update()).as_dict()
    print(json.dumps(report, indent=2) if args.json else verify_summary(args.file, report))
    return 0 if report["ok"] else 1


def cmd_selfplay(args: argparse.Namespace) -> int:
    import time

    from services.games.engines.base import GameConfig, InvalidOptions
    from services.games.engines.registry import UnknownGameType, default_registry
    from services.games.service_layer.selfplay import SelfPlayReport, play_one

    registry = default_registry()
    try:
        engine = registry.get(args.game)
    except UnknownGameType:
        print(json.dumps({"error": f"unknown game {args.game!r}", "games": [e.game_type for e in registry.all()]}))
        return 2
    try:
        options = json.loads(args.options) if args.options else {}
        if args.players is not None:
            configs = [GameConfig(args.players, engine.normalize_options(args.players, options))]
        elif options:
            configs = [GameConfig(n, engine.normalize_options(n, options)) for n in engine.player_counts]
        else:
            configs = engine.variants()
    except (ValueError, InvalidOptions) as exc:
        print(json.dumps({"error": str(exc)}))
        return 2
    results = []
    ok = True
    for config in configs:
        # selfplay()'s loop, one game at a time so the bar moves (the same seeds, the same games)
        report = SelfPlayReport()
        provider = engine.selfplay_provider()
        started = time.perf_counter()
        label = f"{engine.game_type} {config.num_players}p"
        for k in progress(range(args.games), desc=label, unit="game"):
            play_one(engine, config, args.seed * 1_000_003 + k, report, check_every_event=True, provider=provider)
        elapsed = time.perf_counter() - started
        report.moves_per_s = round(report.moves / elapsed, 1) if elapsed > 0 else 0.0
        ok = ok and report.ok
        results.append({"game": engine.game_type, "num_players": config.num_players,
                        "options": dict(config.options), **report.as_dict()})
    print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
    return 0 if ok else 1


def cmd_ratings_rebuild(args: argparse.Namespace) -> int:
    import psycopg

    from services.ratings.bootstrap import service_from_settings

    try:
        def bar(items: Any, what: str, total: int | None) -> Any:  # "games" replayed, "pools" compared
            return progress(items, desc=what, unit=what.rstrip("s"), total=total)

        report = service_from_settings().rebuild(dry_run=args.dry_run, only=args.pool or None, progress=bar)
    except psycopg.errors.UndefinedTable as exc:
        print(json.dumps({"error": f"{exc.diag.message_primary}; run `speltafel migrate` first"}))
        return 2
    print(json.dumps(report, indent=2))
    return 1 if args.dry_run and not report["identical"] else 0


def cmd_streams(args: argparse.Namespace) -> int:
    """The stream gateway: the games service's live event streams on one asyncio loop (aiohttp), without a
    thread per viewer (services/games/entrypoints/streams.py); ``STREAMS_PORT`` (8005)."""
    from services.games.bootstrap import create_streams
    from services.games.entrypoints.streams import run
    from shared.config import Settings
    from shared.web.observability import configure_logging

    settings = Settings.from_env()
    configure_logging("streams", settings.log_level)
    run(create_streams(settings), settings.host, args.port or streams_port())
    return 0


def streams_port() -> int:
    return int(os.environ.get("STREAMS_PORT") or 8005)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="speltafel", description=__doc__)
    parser.add_argument("--version", action="version", version=f"speltafel {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="start everything (embedded PostgreSQL/Redis if none answers)").set_defaults(
        func=cmd_run)
    sub.add_parser("migrate", help="apply pending migrations").set_defaults(func=cmd_migrate)
    p = sub.add_parser("serve", help="serve one service over HTTP")
    p.add_argument("service", choices=SERVICES)
    p.add_argument("--port", type=int)
    p.add_argument("--workers", type=int, default=1)
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("worker", help="work one service's RQ queue (SimpleWorker); `bots` plays the bot seats")
    p.add_argument("service", choices=(*SERVICES, "bots"))
    p.add_argument("--burst", action="store_true")
    p.set_defaults(func=cmd_worker)
    sub.add_parser("relay", help="move outbox rows onto RQ queues").set_defaults(func=cmd_relay)
    p = sub.add_parser("gateway", help="serve every service under one base URL with the combined OpenAPI")
    p.add_argument("--port", type=int)
    p.set_defaults(func=cmd_gateway)
    p = sub.add_parser("streams", help="serve the games' live event streams (SSE, NDJSON) on one asyncio loop")
    p.add_argument("--port", type=int)
    p.set_defaults(func=cmd_streams)
    p = sub.add_parser("matchmaking", help="matchmaking tasks")
    msub = p.add_subparsers(dest="task", required=True)
    t = msub.add_parser("tick", help="match waiting tickets periodically (their rating gap widens as they wait)")
    t.add_argument("--interval", type=float, default=2.0)
    t.add_argument("--once", action="store_true")
    t.set_defaults(func=cmd_matchmaking_tick)
    p = sub.add_parser("games", help="games service tasks")
    gsub = p.add_subparsers(dest="task", required=True)
    t = gsub.add_parser("tick", help="record the timeouts of clocks that have run out (per the table's policy)")
    t.add_argument("--interval", type=float, default=1.0)
    t.add_argument("--once", action="store_true")
    t.set_defaults(func=cmd_games_tick)
    p = sub.add_parser("verify", help="audit an exported game offline; non-zero exit on any failure")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("selfplay", help="random self-play with invariant and replay checks")
    p.add_argument("game")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int)
    p.add_argument("--options", help="JSON object of game options")
    p.set_defaults(func=cmd_selfplay)
    p = sub.add_parser("ratings", help="ratings service maintenance")
    ratings_sub = p.add_subparsers(dest="ratings_command", required=True)
    p = ratings_sub.add_parser("rebuild", help="recompute every pool from the GameFinished log")
    p.add_argument("--dry-run", action="store_true", help="only compare; exit 1 when a pool differs")
    p.add_argument("--pool", action="append", help="only this pool (repeatable)")
    p.set_defaults(func=cmd_ratings_rebuild)
    args = parser.parse_args(argv)
    try:
        with command_backends(args.command):
            result: int = args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, no traceback
        print(f"speltafel {args.command}: interrupted", file=sys.stderr)
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
