"""Bot levels for klapper. Stub: only ``random``; ``rules``/``strong`` fall back to it (see levels.py)."""

from __future__ import annotations

from services.bots.domain.games import Level, uniform

LEVELS: dict[str, Level] = {"random": uniform}
