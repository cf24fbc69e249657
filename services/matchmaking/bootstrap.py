"""Wiring of the matchmaking service: the one place that builds adapters and hands them to the app."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

from services.matchmaking.adapters.http_clients import HttpGames, HttpRatings
from services.matchmaking.adapters.notifications import RedisTicketNotifier
from services.matchmaking.adapters.ports import GamesPort, RatingsPort
from services.matchmaking.adapters.postgres import SCHEMA, UnitOfWork
from services.matchmaking.domain.matching import MatchPolicy
from services.matchmaking.entrypoints.http import BLUEPRINTS
from services.matchmaking.service_layer.handlers import MatchmakingService
from shared.auth import PlayerDirectory
from shared.config import Settings
from shared.service_kit import Infrastructure
from shared.web.app import create_service_app
from shared.web.closing import on_close

MIGRATIONS = Path(__file__).parent / "adapters" / "migrations"
DESCRIPTION = """Seats players at fair tables quickly, runs private tables and leagues.

* **Queue**: `POST /v1/tickets`; tables form from compatible waiting tickets, preferring close
  ratings (from the ratings service, `RATINGS_URL`) and widening the accepted gap the longer a
  ticket waits. Matching runs on every new ticket and periodically (`python -m
  services.matchmaking.entrypoints.ticker`, or `POST /v1/matching/tick`). The games service creates
  the game through Redis; the ticket then carries `game_id`.
* **Private tables**: create, share the invite code, the game starts when the table is full.
* **Leagues** (organiser tokens, each running only the leagues it created, or the admin token): round
  robin or Swiss seating with a reason per table, standings with tie-breaks, CSV/JSON export, disputes
  (also filed by a player about their own game) with the game's audit attached and a recorded ruling.
* **At the door**: game type, table sizes, options and clock are checked against the games service's
  `GET /v1/game-types` (options and clock schemas) and, with every table size, its
  `POST /v1/game-types/table-checks` (422 naming the field, e.g. `options.mode` with rule HP-47 or
  `clock.base_seconds`; 503 when it does not answer); a table the games service refuses later shows
  `failed` with its reason, and a league's organiser re-seats it with corrected settings or voids it.

Authenticate with `Authorization: Bearer <token>` (players from the games service's
`POST /v1/players`; organiser and auditor tokens from its `POST /v1/tokens`, minted by the admin).
Errors are `application/problem+json`."""


def build_service(
    infra: Infrastructure, ratings: RatingsPort | None = None, games: GamesPort | None = None
) -> MatchmakingService:
    notifier = RedisTicketNotifier(infra.redis)
    return MatchmakingService(
        UnitOfWork(infra.pool, notifier.publish), ratings or HttpRatings(), games or HttpGames(), policy_from_env()
    )


def policy_from_env() -> MatchPolicy:
    """``MATCHMAKING_BOT_FILL_AFTER``: seconds a ticket with ``allow_bots`` waits before bots fill its table."""
    return MatchPolicy(bot_fill_after=float(os.environ.get("MATCHMAKING_BOT_FILL_AFTER") or 30.0))


def create_app(
    settings: Settings | None = None, ratings: RatingsPort | None = None, games: GamesPort | None = None
) -> Flask:
    infra = Infrastructure.connect(settings or Settings.from_env())
    app = create_service_app(
        SCHEMA,
        "Speltafel matchmaking",
        DESCRIPTION,
        BLUEPRINTS,
        infra.ready_checks(),
        lambda: infra.gauges(SCHEMA),
        infra.config(),
    )
    app.extensions["matchmaking_service"] = build_service(infra, ratings, games)
    app.extensions["player_directory"] = PlayerDirectory(infra.pool)
    app.extensions["subscribe_ticket"] = RedisTicketNotifier(infra.redis).subscribe

    on_close(app, infra.close)  # at the server's shutdown (shared/web/closing.py)
    return app
