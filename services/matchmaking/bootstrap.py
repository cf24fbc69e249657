"""Wiring of the matchmaking service."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from shared.config import Settings
from shared.service_kit import Infrastructure
from shared.web.app import create_service_app

SCHEMA = "matchmaking"
MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"
DESCRIPTION = "Speltafel matchmaking service."


def create_app(settings: Settings | None = None) -> Flask:
    infra = Infrastructure.connect(settings or Settings.from_env())
    return create_service_app(
        SCHEMA, "Speltafel matchmaking", DESCRIPTION, [], infra.ready_checks(), lambda: infra.gauges(SCHEMA),
        infra.config(),
    )
