"""HopPaa: a trick-taking game with dice bids whose results race pawns on a score track."""

from .engine import HopPaaEngine

__all__ = ["HopPaaEngine"]
