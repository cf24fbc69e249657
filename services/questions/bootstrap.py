"""Wiring of the questions service: the one place that builds adapters and hands them to the app."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from services.questions.adapters.postgres import SCHEMA, PostgresUnitOfWork
from services.questions.adapters.routing import build_routing
from services.questions.config import RoutingConfig
from services.questions.entrypoints.http import BLUEPRINTS
from services.questions.service_layer.handlers import QuestionsService
from shared.auth import PlayerDirectory
from shared.config import Settings
from shared.service_kit import Infrastructure
from shared.web.app import create_service_app
from shared.web.closing import on_close

MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"
DESCRIPTION = """CityHopper's question and distance service: the 82 places, road distances with routes and
maps, the organisers' question bank (versioned, content-hashed packs as JSON or CSV), and drawing and
grading of questions in the six categories of the white die.

Games ask for questions through the `questions` RQ queue (`QuestionRequested` -> `QuestionDrawn`), not
over HTTP. Bank endpoints need the admin token (`Authorization: Bearer <ADMIN_TOKEN>`). Errors are
`application/problem+json` (RFC 9457); validation errors name the field, a rejected pack lists every bad
row in `rows`."""


def build_service(infra: Infrastructure, routing_config: RoutingConfig | None = None) -> QuestionsService:
    routing, name = build_routing(routing_config or RoutingConfig.from_env(), infra.redis)
    return QuestionsService(PostgresUnitOfWork(infra.pool), routing, name)


def create_app(settings: Settings | None = None, routing_config: RoutingConfig | None = None) -> Flask:
    infra = Infrastructure.connect(settings or Settings.from_env())
    app = create_service_app(
        SCHEMA,
        "Speltafel questions",
        DESCRIPTION,
        BLUEPRINTS,
        infra.ready_checks(),
        lambda: infra.gauges(SCHEMA),
        infra.config(),
    )
    svc = build_service(infra, routing_config)
    svc.ensure_sample_pack()  # first start: the bundled sample pack, marked as a sample
    app.extensions["questions_service"] = svc
    app.extensions["player_directory"] = PlayerDirectory(infra.pool)

    on_close(app, infra.close)  # at the server's shutdown (shared/web/closing.py)
    return app
