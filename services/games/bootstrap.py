"""Wiring of the games service: the one place that builds adapters and hands them to the app."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from redis import Redis

from services.games.adapters.notifications import RedisNotifier
from services.games.adapters.postgres import SCHEMA, UnitOfWork
from services.games.engines.registry import Registry, default_registry
from services.games.entrypoints.http import BLUEPRINTS
from services.games.service_layer.errors import GameServiceError
from services.games.service_layer.handlers import GamesService
from shared.auth import PlayerDirectory
from shared.config import Settings
from shared.db import make_pool
from shared.outbox import outbox_lag
from shared.web.app import create_service_app
from shared.web.problems import problem_response

MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"

DESCRIPTION = """Hosts every Speltafel game. Moves are events; any game can be rebuilt and audited.

Authenticate with `Authorization: Bearer <token>` (from `POST /v1/players`). Errors are
`application/problem+json` (RFC 9457); an illegal move carries the rules spec id in `rule`."""


def build_service(settings: Settings, registry: Registry | None = None) -> tuple[GamesService, Redis, object]:
    pool = make_pool(settings.database_url, max_size=16)
    redis = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=2)
    notifier = RedisNotifier(redis)
    service = GamesService(registry or default_registry(), UnitOfWork(pool), notifier.publish)
    return service, redis, pool


def create_app(settings: Settings | None = None, registry: Registry | None = None) -> Flask:
    settings = settings or Settings.from_env()
    service, redis, pool = build_service(settings, registry)
    notifier = RedisNotifier(redis)

    def check_db() -> None:
        with pool.connection(timeout=2) as conn:  # type: ignore[attr-defined]
            conn.execute("SELECT 1")

    def gauges() -> dict[str, float]:
        pending, age = outbox_lag(pool, SCHEMA)  # type: ignore[arg-type]
        return {
            "outbox_pending": pending,
            "outbox_oldest_seconds": age,
            "queue_games": float(redis.llen("rq:queue:games")),
        }

    app = create_service_app(
        "games",
        "Speltafel games",
        DESCRIPTION,
        BLUEPRINTS,
        {"postgres": check_db, "redis": lambda: None if redis.ping() else None},
        gauges,
        {"ADMIN_TOKEN": settings.admin_token},
    )
    app.extensions["games_service"] = service
    app.extensions["player_directory"] = PlayerDirectory(pool)  # type: ignore[arg-type]
    app.extensions["subscribe"] = notifier.subscribe

    @app.errorhandler(GameServiceError)
    def _service_error(exc: GameServiceError):  # type: ignore[no-untyped-def]
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        extra = {k: v for k, v in exc.extra.items() if k in {"rule", "code", "field", "version"}}
        errors = {extra["field"]: [exc.detail]} if "field" in extra else None
        return problem_response(
            exc.status,
            exc.title,
            exc.detail,
            "https://speltafel.example/problems/" + type(exc).__name__.lower(),
            errors,
            headers,
            **extra,
        )

    return app
