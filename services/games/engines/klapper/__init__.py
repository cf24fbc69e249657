"""Klapper (rules/klapper.md): the 24-card Klaverjas-family game for 4, 3, 2 or 6 players."""

from .engine import KlapperEngine

__all__ = ["KlapperEngine"]
