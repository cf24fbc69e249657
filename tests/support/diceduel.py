"""Dice Duel: a tiny game that proves the game service's machinery before the real engines.

2-4 players race to square 20. On your turn ``roll`` one die (a recorded chance event) and
advance, or ``stop`` to bank your position and leave the race. Each player holds a secret
bonus card (1-3), dealt at the start and seen only by its owner until the game ends;
final score = position + bonus. The game ends when someone reaches 20 or everyone stopped.
Rule ids are ``DD-n`` and only exist in this file.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.games.engines.base import (
    CHANCE_EVENT,
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    InvalidOptions,
    Move,
    MoveDoc,
    Outcome,
    ranks_from_scores,
)


@dataclass
class DiceDuelState:
    config: GameConfig
    target: int
    positions: list[int]
    stopped: list[bool]
    bonus: list[int | None]
    turn: int = 0
    pending: str | None = "bonus"  # chance purpose the state waits for
    log: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return max(self.positions) >= self.target or all(self.stopped)


class DiceDuel(Engine[DiceDuelState]):
    game_type = "diceduel"
    title = "Dice Duel (test game)"
    player_counts = (2, 3, 4)

    def options_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"target": {"type": "integer", "minimum": 5, "maximum": 100, "default": 20}},
            "additionalProperties": False,
        }

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        if num_players not in self.player_counts:
            raise InvalidOptions("seats", "Dice Duel takes 2 to 4 players", "DD-1")
        unknown = set(options) - {"target"}
        if unknown:
            raise InvalidOptions(sorted(unknown)[0], "unknown option")
        target = options.get("target", 20)
        if not isinstance(target, int) or isinstance(target, bool) or not 5 <= target <= 100:
            raise InvalidOptions("target", "must be an integer from 5 to 100")
        return {"target": target}

    def moves(self) -> list[MoveDoc]:
        return [
            MoveDoc("roll", "Roll one die and advance (DD-2).", {}, {"type": "roll"}, ("DD-2",)),
            MoveDoc("stop", "Leave the race, keeping your square (DD-3).", {}, {"type": "stop"}, ("DD-3",)),
        ]

    def initial_state(self, config: GameConfig) -> DiceDuelState:
        n = config.num_players
        return DiceDuelState(config, int(config.options["target"]), [0] * n, [False] * n, [None] * n)

    def chance_request(self, state: DiceDuelState) -> ChanceRequest | None:
        if state.pending == "bonus":
            return ChanceRequest("bonus", "dice", state.config.num_players, 3)
        if state.pending == "roll":
            return ChanceRequest("roll", "dice", 1, 6)
        return None

    def to_move(self, state: DiceDuelState) -> list[int]:
        if state.pending or state.finished:
            return []
        return [state.turn]

    def legal_moves(self, state: DiceDuelState, seat: int) -> list[Move]:
        if seat not in self.to_move(state):
            return []
        return [{"type": "roll"}, {"type": "stop"}]

    def decide(self, state: DiceDuelState, seat: int, move: Move) -> list[Event]:
        if seat not in self.to_move(state):
            raise IllegalMove("DD-2", "not_your_turn", "it is not your turn")
        kind = move.get("type")
        if kind == "roll":
            return [{"type": "RollRequested", "seat": seat}]
        if kind == "stop":
            return [{"type": "Stopped", "seat": seat}, *self._next_turn(state, seat)]
        raise IllegalMove("DD-2", "unknown_move", f"unknown move type {kind!r}: use roll or stop")

    def _next_turn(self, state: DiceDuelState, seat: int, stopping: bool = True) -> list[Event]:
        n = state.config.num_players
        stopped = list(state.stopped)
        stopped[seat] = stopped[seat] or stopping
        for k in range(1, n + 1):
            nxt = (seat + k) % n
            if not stopped[nxt]:
                return [{"type": "TurnPassed", "to": nxt}]
        return []

    def evolve(self, state: DiceDuelState, event: Event) -> DiceDuelState:
        new = copy.deepcopy(state)
        kind = event["type"]
        if kind == CHANCE_EVENT and event["purpose"] == "bonus":
            new.bonus = list(event["values"])
            new.pending = None
        elif kind == "RollRequested":
            new.pending = "roll"
        elif kind == CHANCE_EVENT and event["purpose"] == "roll":
            new.pending = None
            new.positions[new.turn] = min(new.target, new.positions[new.turn] + event["values"][0])
            if not new.finished:
                following = self._next_turn(new, new.turn, stopping=False)
                if following:
                    new.turn = following[0]["to"]
        elif kind == "Stopped":
            new.stopped[event["seat"]] = True
        elif kind == "TurnPassed":
            new.turn = event["to"]
        else:
            raise ValueError(f"unknown event {kind}")
        return new

    def outcome(self, state: DiceDuelState) -> Outcome | None:
        if state.pending or not state.finished:
            return None
        scores: list[float] = [float(p + (b or 0)) for p, b in zip(state.positions, state.bonus, strict=True)]
        return Outcome(
            ranks_from_scores(scores),
            scores,
            "target reached" if max(state.positions) >= state.target else "all stopped",
        )

    def view(self, state: DiceDuelState, seat: int | None) -> dict[str, Any]:
        full = self.full_view(state)
        full["bonus"] = [b if s == seat else None for s, b in enumerate(state.bonus)]
        return full

    def full_view(self, state: DiceDuelState) -> dict[str, Any]:
        return {
            "num_players": state.config.num_players,
            "target": state.target,
            "positions": list(state.positions),
            "stopped": list(state.stopped),
            "bonus": list(state.bonus),
            "turn": state.turn,
        }

    def redact_event(
        self, event: Event, seat: int | None, before: DiceDuelState, after: DiceDuelState
    ) -> Event:
        if event.get("type") == CHANCE_EVENT and event["purpose"] == "bonus":
            values = event["values"]
            return event | {"values": [v if s == seat else None for s, v in enumerate(values)]}
        return event  # die rolls are public

    def invariants(self, state: DiceDuelState) -> list[str]:
        problems = []
        if any(not 0 <= p <= state.target for p in state.positions):
            problems.append("DD-2 a position left the track")
        if state.pending is None and any(b is None or not 1 <= b <= 3 for b in state.bonus):
            problems.append("DD-1 a bonus card is missing")
        return problems


class DiceDuelNextVersion(DiceDuel):
    """Dice Duel as a later deploy of the games service plays it: the race is at most 50 squares (DD-5).
    Tests run the games worker with it while the games service that answered at matchmaking's door still
    runs :class:`DiceDuel`, so a table checked at the door is refused when its game is created: the one
    way a table fails once the door checks each table size with the games service itself."""

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        normalized = super().normalize_options(num_players, options)
        if normalized["target"] > 50:
            raise InvalidOptions("target", "since this version the race is at most 50 squares", "DD-5")
        return normalized
