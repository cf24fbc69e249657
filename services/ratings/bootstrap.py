"""Wiring of the ratings service: the one place that builds adapters and hands them to the app."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from services.ratings.adapters.postgres import SCHEMA, PostgresUnitOfWork
from services.ratings.entrypoints.http import BLUEPRINTS
from services.ratings.service_layer.handlers import RatingsService
from shared.auth import PlayerDirectory
from shared.config import Settings
from shared.db import make_pool
from shared.service_kit import Infrastructure
from shared.web.app import create_service_app
from shared.web.closing import on_close

MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"
DESCRIPTION = """Ratings with uncertainty (OpenSkill, Weng-Lin Plackett-Luce) per pool of game type and mode.

Fed by GameFinished, GameAborted and GameVoided messages on the RQ queue `ratings`; every game is
rated exactly once, every adjustment is an event, and `speltafel ratings rebuild` recomputes every
pool from the stored GameFinished log bit for bit. Pool names contain a slash (`klapper/4`): write it
as is or percent-encoded. Errors are `application/problem+json` (RFC 9457)."""


def build_service(infra: Infrastructure) -> RatingsService:
    return RatingsService(PostgresUnitOfWork(infra.pool))


def service_from_settings(settings: Settings | None = None) -> RatingsService:
    """For the command line: a service on its own small pool."""
    settings = settings or Settings.from_env()
    return RatingsService(PostgresUnitOfWork(make_pool(settings.database_url, max_size=2)))


def create_app(settings: Settings | None = None) -> Flask:
    infra = Infrastructure.connect(settings or Settings.from_env())
    app = create_service_app(
        SCHEMA,
        "Speltafel ratings",
        DESCRIPTION,
        BLUEPRINTS,
        infra.ready_checks(),
        lambda: infra.gauges(SCHEMA),
        infra.config(),
    )
    app.extensions["ratings_service"] = build_service(infra)
    app.extensions["player_directory"] = PlayerDirectory(infra.pool)  # role tokens at the door (shared.web.roles)

    on_close(app, infra.close)  # at the server's shutdown (shared/web/closing.py)
    return app
