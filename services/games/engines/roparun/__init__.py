"""ROPARUN the Game: a card-driven team race (spec rules/roparun.md)."""

from services.games.engines.roparun.engine import RoparunEngine

__all__ = ["RoparunEngine"]
