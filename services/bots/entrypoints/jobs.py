"""RQ job of the bots worker (queue ``bots``): ``BotTurnStarted`` from the games service.

The worker holds no database and reads no event store: every turn is played through the public game
API with the bot's own token. Delivery is at least once; a repeated message finds the turn already
played (``not_to_move``) or gets the first answer back through the move's ``Idempotency-Key``.
"""

from __future__ import annotations

import logging
from typing import Any

from services.bots.bootstrap import BotsSettings, build_player
from services.bots.service_layer.turns import BotPlayer, Turn, guarded

log = logging.getLogger(__name__)
_PLAYERS: dict[BotsSettings, BotPlayer] = {}


def _player() -> BotPlayer:
    settings = BotsSettings.from_env()
    if settings not in _PLAYERS:
        _PLAYERS[settings] = build_player(settings)
    return _PLAYERS[settings]


def handle_message(message: dict[str, Any]) -> str:
    kind = message.get("type")
    if kind != "BotTurnStarted":
        raise ValueError(f"the bots queue does not handle {kind!r}")
    turn = Turn.from_body(message.get("body"))
    player = _player()
    outcome = guarded(lambda: player.take_turn(turn))
    log.info("bot turn %s v%s seat %s: %s", turn.game_id, turn.version, turn.seat, outcome)
    return outcome
