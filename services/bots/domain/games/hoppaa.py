"""Bot levels for HopPaa. ``random`` picks uniformly among the sensible moves (as self-play does)."""

from __future__ import annotations

from services.bots.domain.games import Level
from services.bots.domain.hoppaa_sensible import sensible_random

LEVELS: dict[str, Level] = {"random": sensible_random}
