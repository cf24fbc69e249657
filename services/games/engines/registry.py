"""The game types this service hosts."""

from __future__ import annotations

import importlib
import os
from typing import Any

from services.games.engines.base import Engine

# game type -> "module:Class"; extra engines (e.g. test games) come from SPELTAFEL_EXTRA_ENGINES
BUILTIN: dict[str, str] = {
    "klapper": "services.games.engines.klapper:KlapperEngine",
    "roparun": "services.games.engines.roparun:RoparunEngine",
    "paardenkoppen": "services.games.engines.paardenkoppen:PaardenkoppenEngine",
    "hoppaa": "services.games.engines.hoppaa:HopPaaEngine",
    "cityhopper": "services.games.engines.cityhopper:CityHopperEngine",
}


class UnknownGameType(KeyError):
    pass


class Registry:
    def __init__(self, engines: list[Engine[Any]]) -> None:
        self._engines = {e.game_type: e for e in engines}

    def get(self, game_type: str) -> Engine[Any]:
        try:
            return self._engines[game_type]
        except KeyError:
            raise UnknownGameType(game_type) from None

    def all(self) -> list[Engine[Any]]:
        return list(self._engines.values())

    def __contains__(self, game_type: object) -> bool:
        return game_type in self._engines


def _load(path: str) -> Engine[Any]:
    module, _, name = path.partition(":")
    engine_class = getattr(importlib.import_module(module), name)
    engine: Engine[Any] = engine_class()
    return engine


def default_registry(extra: str | None = None) -> Registry:
    paths = list(BUILTIN.values())
    extra = extra if extra is not None else os.environ.get("SPELTAFEL_EXTRA_ENGINES", "")
    paths += [p.strip() for p in extra.split(",") if p.strip()]
    return Registry([_load(p) for p in paths])
