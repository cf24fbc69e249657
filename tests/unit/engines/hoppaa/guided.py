"""Test drivers for HopPaa self-play: the engine's own sensible-move policy (``selfplay_moves``)
ends games; ``UniformHopPaa`` picks uniformly among all legal moves (bounded runs only)."""

from __future__ import annotations

from services.games.engines.base import Move
from services.games.engines.hoppaa import HopPaaEngine
from services.games.engines.hoppaa.state import HopPaaState

GuidedHopPaa = HopPaaEngine


class UniformHopPaa(HopPaaEngine):
    def selfplay_moves(self, state: HopPaaState, seat: int) -> list[Move]:
        return self.legal_moves(state, seat)
