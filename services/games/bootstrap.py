"""Wiring of the games service: the one place that builds adapters and hands them to the app."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from flask import Flask

from services.games.adapters.notifications import NoticeSender, RedisNotifier
from services.games.adapters.postgres import SCHEMA, UnitOfWork
from services.games.engines.registry import Registry, default_registry
from services.games.entrypoints.http import BLUEPRINTS
from services.games.entrypoints.view_docs import attach_examples, register_view_components
from services.games.service_layer.core import IDEMPOTENCY_TTL, Publisher, utc_now
from services.games.service_layer.handlers import BotAccounts, GamesService
from services.games.service_layer.players import PlayersService
from shared.auth import PlayerDirectory
from shared.bots import bots_secret
from shared.config import Settings
from shared.service_kit import Infrastructure
from shared.web.app import create_service_app
from shared.web.closing import on_close

MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"

DESCRIPTION = """Hosts every Speltafel game. Moves are events; any game can be rebuilt and audited.

Authenticate with `Authorization: Bearer <token>` (from `POST /v1/players`). Errors are
`application/problem+json` (RFC 9457); an illegal move carries the rules spec id in `rule`."""


def bot_accounts(directory: PlayerDirectory) -> BotAccounts | None:
    """Bot accounts under ``BOTS_SECRET`` (their tokens recorded for it now), or None when it is unset."""
    secret = bots_secret()
    if secret is None:
        return None
    directory.refresh_bot_tokens(secret)
    return lambda level, number: directory.ensure_bot(level, number, secret)


def build_service(
    infra: Infrastructure, registry: Registry | None = None, publish: Publisher | None = None
) -> GamesService:
    """``publish``: how live-stream notices leave (default: published at once, as the queue workers and
    the ticker do; the HTTP app sends them with a ``NoticeSender``, which does not wait on Redis)."""
    return GamesService(
        registry or default_registry(),
        UnitOfWork(infra.pool),
        publish or RedisNotifier(infra.redis).publish,
        bot_accounts=bot_accounts(PlayerDirectory(infra.pool)),
        now=utc_now,  # the clock moves are accepted by (tests pass their own)
        idempotency_ttl=float(os.environ.get("SPELTAFEL_IDEMPOTENCY_TTL") or IDEMPOTENCY_TTL),
    )


def create_app(settings: Settings | None = None, registry: Registry | None = None) -> Flask:
    infra = Infrastructure.connect(settings or Settings.from_env(), max_size=16)
    app = create_service_app(
        "games",
        "Speltafel games",
        DESCRIPTION,
        BLUEPRINTS,
        infra.ready_checks(),
        lambda: infra.gauges(SCHEMA),
        infra.config(),
    )
    # notices on a connection of their own with Redis's replies off: a move does not wait on Redis
    notices = NoticeSender(infra.redis)
    on_close(app, notices.close)
    app.extensions["games_service"] = build_service(infra, registry, notices.publish)
    register_view_components(app.extensions["speltafel_api"].spec, app.extensions["games_service"].registry)
    attach_examples(app.extensions["speltafel_api"].spec)
    app.extensions["player_directory"] = PlayerDirectory(infra.pool)
    app.extensions["players_service"] = PlayersService(app.extensions["player_directory"], UnitOfWork(infra.pool))
    app.extensions["subscribe"] = RedisNotifier(infra.redis).subscribe
    # seconds between keep-alives on an idle live stream (also how soon a client that left is noticed)
    app.config["STREAM_KEEPALIVE_SECONDS"] = float(os.environ.get("STREAM_KEEPALIVE_SECONDS") or 15)

    on_close(app, infra.close)  # at the server's shutdown (shared/web/closing.py)
    return app


def create_streams(settings: Settings | None = None, registry: Registry | None = None) -> Any:
    """The stream gateway (``speltafel streams``): the live event streams on one asyncio loop, read through
    this service's own use cases (``services/games/entrypoints/streams.py``, ``stream_fanout.py``)."""
    from services.games.entrypoints.streams import StreamSettings, create_stream_app

    settings = settings or Settings.from_env()
    infra = Infrastructure.connect(settings, max_size=8)
    service = GamesService(registry or default_registry(), UnitOfWork(infra.pool), RedisNotifier(infra.redis).publish)
    app = create_stream_app(service, PlayerDirectory(infra.pool), StreamSettings(
        admin_token=settings.admin_token,
        redis_url=settings.redis_url,
        keepalive=float(os.environ.get("STREAM_KEEPALIVE_SECONDS") or 15),
        batch=float(os.environ.get("STREAM_BATCH_SECONDS") or 0.05),
        cors_origins=settings.cors_origins,
    ))

    async def close_connections(_: Any) -> None:  # after the hub has stopped (its cleanup runs first)
        await asyncio.to_thread(infra.close)

    app.on_cleanup.append(close_connections)
    return app
