"""Wiring of the bots worker: settings from the environment, the HTTP client per bot, the think budget.

Environment (README "Bots"):
- ``GAMES_URL`` (default ``http://127.0.0.1:$GAMES_PORT``): where the games API answers;
- ``BOTS_SECRET``: derives each bot's token and seed (the games service must have the same);
- ``BOTS_MAX_SECONDS`` (1.0) and ``BOTS_MAX_ITERATIONS`` (5000): the think budget per move;
- ``BOTS_HTTP_TIMEOUT`` (10): seconds per request to the games API.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from services.bots.adapters.game_api import GameApi, Recorder
from services.bots.domain.budget import Budget
from services.bots.service_layer.turns import BotPlayer
from shared.bots import BotsNotConfigured, bot_seed, bot_token, bots_secret
from shared.config import Settings


@dataclass(frozen=True)
class BotsSettings:
    games_url: str
    secret: str
    max_seconds: float = 1.0
    max_iterations: int = 5000
    http_timeout: float = 10.0

    @classmethod
    def from_env(cls) -> BotsSettings:
        secret = bots_secret()
        if secret is None:
            raise BotsNotConfigured(
                "set BOTS_SECRET (the same as the games service's) to run the bots worker"
            )
        env = os.environ
        return cls(
            games_url=Settings.from_env().service_urls["games"],
            secret=secret,
            max_seconds=float(env.get("BOTS_MAX_SECONDS") or 1.0),
            max_iterations=int(env.get("BOTS_MAX_ITERATIONS") or 5000),
            http_timeout=float(env.get("BOTS_HTTP_TIMEOUT") or 10.0),
        )


def build_player(settings: BotsSettings, recorder: Recorder | None = None) -> BotPlayer:
    def api_for(player_id: str) -> GameApi:
        token = bot_token(settings.secret, player_id)
        return GameApi(settings.games_url, token, settings.http_timeout, recorder)

    return BotPlayer(
        api_for=api_for,
        seed_for=lambda player_id: bot_seed(settings.secret, player_id),
        budget=lambda: Budget(settings.max_iterations, settings.max_seconds, time.monotonic),
    )
