"""Paardenkoppen: a card game for 3-6 players (spec rules/paardenkoppen.md)."""

from .engine import PaardenkoppenEngine

__all__ = ["PaardenkoppenEngine"]
