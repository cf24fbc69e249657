"""Tally: a bench-only game of fixed length (players alternate ``add``; a die every 10th move),
so the game service's costs can be measured at any version."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from services.games.engines.base import (
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    MoveDoc,
    Outcome,
    ranks_from_scores,
)


@dataclass(frozen=True)
class TallyState:
    n: int
    length: int
    moves: int = 0
    totals: tuple[int, ...] = ()
    pending: bool = False


class Tally(Engine[TallyState]):
    game_type = "tally"
    title = "Tally (benchmark game)"
    player_counts = (2,)

    def options_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"length": {"type": "integer", "default": 100}}}

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"length": int(options.get("length", 100))}

    def moves(self) -> list[MoveDoc]:
        return [MoveDoc("add", "add one", {}, {"type": "add"})]

    def initial_state(self, config: GameConfig) -> TallyState:
        return TallyState(config.num_players, int(config.options["length"]), 0, (0,) * config.num_players)

    def chance_request(self, state: TallyState) -> ChanceRequest | None:
        return ChanceRequest("die", "dice", 1) if state.pending else None

    def to_move(self, state: TallyState) -> list[int]:
        return [] if state.pending or state.moves >= state.length else [state.moves % state.n]

    def legal_moves(self, state: TallyState, seat: int) -> list[Move]:
        return [{"type": "add"}] if seat in self.to_move(state) else []

    def decide(self, state: TallyState, seat: int, move: Move) -> list[Event]:
        if move.get("type") != "add":
            raise IllegalMove("TL-1", "unknown_move", "only add")
        return [{"type": "Added", "seat": seat}]

    def evolve(self, state: TallyState, event: Event) -> TallyState:
        if event["type"] == "Added":
            totals = list(state.totals)
            totals[event["seat"]] += 1
            moves = state.moves + 1
            return replace(state, moves=moves, totals=tuple(totals), pending=moves % 10 == 0)
        totals = list(state.totals)
        totals[(state.moves - 1) % state.n] += event["values"][0]
        return replace(state, totals=tuple(totals), pending=False)

    def outcome(self, state: TallyState) -> Outcome | None:
        if state.moves < state.length or state.pending:
            return None
        scores = [float(t) for t in state.totals]
        return Outcome(ranks_from_scores(scores), scores, "length reached")

    def view(self, state: TallyState, seat: int | None) -> dict[str, Any]:
        return self.full_view(state)

    def full_view(self, state: TallyState) -> dict[str, Any]:
        return {"num_players": state.n, "moves": state.moves, "totals": list(state.totals)}
