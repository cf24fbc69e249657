"""HopPaa engine: tricks with dice bids, then pawns race on each player's track (rules/hoppaa.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.games.engines.base import (
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    Move,
    MoveDoc,
    Outcome,
    Rng,
)

from . import invariants as invariant_checks
from . import length as game_length
from . import moves as move_rules
from . import options as table_options
from . import views
from .cards import deck
from .determinize import determinize as sample_state
from .events import fold
from .policy import SensiblePlayer
from .state import DEAL, GAME_OVER, HopPaaState

PAWN_SCHEMA: dict[str, Any] = {"type": "string", "enum": ["green", "red"]}
CARD_SCHEMA: dict[str, Any] = {"type": "string", "pattern": "^(A|[2-9]|10)[SHDC]$"}


class HopPaaEngine(Engine[HopPaaState]):
    game_type = "hoppaa"
    title = "HopPaa"
    player_counts = table_options.PLAYER_COUNTS
    spec = "rules/hoppaa.md"
    card_notation: ClassVar[dict[str, Any]] = {
        "family": "french",
        "description": (
            "rank then suit letter, no separator: ranks A 2 3 4 5 6 7 8 9 10 (low to high; no "
            "diamonds with 3 players); suits S (spades), H (hearts), D (diamonds), C (clubs)"
        ),
        "pattern": "^(A|[2-9]|10)[SHDC]$",
        "examples": ["AS", "10S", "4D"],
    }
    everything_public_after_end = False  # HP-R21: discards and the 2-player reserve are never shown, also after the end

    # --- configuration ---------------------------------------------------------------------
    def options_schema(self) -> dict[str, Any]:
        return table_options.OPTIONS_SCHEMA

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        return table_options.normalize(num_players, options)

    def variants(self) -> list[GameConfig]:
        return table_options.variants()

    def teams(self, config: GameConfig) -> list[list[int]] | None:
        return table_options.table_of(config).teams

    def moves(self) -> list[MoveDoc]:
        return [
            MoveDoc(
                "choose_white_pawn",
                "Take (true) or decline (false) the white pawn for double steps this round; only the "
                "offered player, after seeing the hand and before the first bid (or before his own bid "
                "with white_pawn_timing = before_own_bid).",
                {"type": "object", "properties": {"use": {"type": "boolean"}}, "required": ["use"]},
                {"type": "choose_white_pawn", "use": True},
                ("HP-7", "HP-8", "HP-9", "HP-10", "HP-11", "HP-R9"),
            ),
            MoveDoc(
                "bid",
                "Bid the tricks you will win (1-6, or 1-9 with two players). The opener also names trump: "
                "S, H, D, C or none (no D with three players). The last bidder may not make the sum 9.",
                {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "minimum": 1, "maximum": 9},
                        "trump": {"type": "string", "enum": ["S", "H", "D", "C", "none"]},
                    },
                    "required": ["n"],
                },
                {"type": "bid", "n": 3, "trump": "H"},
                ("HP-12", "HP-13", "HP-14", "HP-15", "HP-47"),
            ),
            MoveDoc(
                "discard",
                "Right after your bid, put one card of your hand face down out of the round.",
                {"type": "object", "properties": {"card": CARD_SCHEMA}, "required": ["card"]},
                {"type": "discard", "card": "9D"},
                ("HP-16", "HP-17"),
            ),
            MoveDoc(
                "play_card",
                "Play a card to the trick; follow the led suit if you can.",
                {"type": "object", "properties": {"card": CARD_SCHEMA}, "required": ["card"]},
                {"type": "play_card", "card": "10S"},
                ("HP-18", "HP-19", "HP-20", "HP-21", "HP-22", "HP-23", "HP-24", "HP-25"),
            ),
            MoveDoc(
                "choose_pawn_move",
                "You made your bid: move one pawn forward by one of the allowed step counts "
                "({bid, 5}, doubled with the white pawn); it must not pass 35.",
                {
                    "type": "object",
                    "properties": {"pawn": PAWN_SCHEMA, "steps": {"type": "integer", "minimum": 1}},
                    "required": ["pawn", "steps"],
                },
                {"type": "choose_pawn_move", "pawn": "green", "steps": 5},
                ("HP-28", "HP-29", "HP-31", "HP-32", "HP-33", "HP-37", "HP-39", "HP-40", "HP-41"),
            ),
            MoveDoc(
                "decline_move",
                "You made your bid but move no pawn (only with forward_move_optional).",
                {"type": "object", "properties": {}},
                {"type": "decline_move"},
                ("HP-35", "HP-R12"),
            ),
            MoveDoc(
                "choose_penalty_pawn",
                "You missed your bid: choose the pawn (not on start) that goes back one step per trick "
                "of difference.",
                {"type": "object", "properties": {"pawn": PAWN_SCHEMA}, "required": ["pawn"]},
                {"type": "choose_penalty_pawn", "pawn": "red"},
                ("HP-30", "HP-31", "HP-32", "HP-36", "HP-38", "HP-39", "HP-41"),
            ),
        ]

    # --- the game --------------------------------------------------------------------------
    def initial_state(self, config: GameConfig) -> HopPaaState:
        table = table_options.table_of(config)
        n = config.num_players
        return HopPaaState(
            table=table,
            pawns=[[0] * table.pawns_per_player for _ in range(n)],
            deck=list(deck(n)),
        )

    def opening_events(self, config: GameConfig) -> list[Event]:
        return [move_rules.opening_event(self.initial_state(config))]

    def chance_request(self, state: HopPaaState) -> ChanceRequest | None:
        if state.phase == DEAL and state.round > 0:
            return ChanceRequest("deal", "shuffle", len(deck(state.num_players)))
        return None

    def to_move(self, state: HopPaaState) -> list[int]:
        return move_rules.to_move(state)

    def legal_moves(self, state: HopPaaState, seat: int) -> list[Move]:
        return move_rules.legal_moves(state, seat)

    def selfplay_moves(self, state: HopPaaState, seat: int) -> list[Move]:
        """Sensible legal moves (policy.py): uniformly random HopPaa never reaches 35."""
        return SensiblePlayer().moves(state, seat, self.legal_moves(state, seat))

    def decide(self, state: HopPaaState, seat: int, move: Move) -> list[Event]:
        return move_rules.decide(state, seat, move)

    def evolve(self, state: HopPaaState, event: Event) -> HopPaaState:
        return fold(state, event)

    def outcome(self, state: HopPaaState) -> Outcome | None:
        if state.phase != GAME_OVER or state.winner is None:
            return None
        table = state.table
        scores = [float(sum(track)) for track in state.pawns]
        teams = table.teams
        if teams is None:
            ranks = [1 if seat == state.winner else 2 for seat in range(state.num_players)]
            return Outcome(ranks, scores, f"HP-42: seat {state.winner} has all pawns on 35")
        team_of = {seat: index for index, team in enumerate(teams) for seat in team}
        ranks = [1 if team_of[seat] == state.winner else 2 for seat in range(state.num_players)]
        team_ranks = [1 if index == state.winner else 2 for index in range(len(teams))]
        team_scores = [sum(scores[s] for s in team) for team in teams]
        return Outcome(
            ranks,
            scores,
            f"HP-43: team {teams[state.winner]} has all pawns on 35",
            teams=[list(t) for t in teams],
            team_ranks=team_ranks,
            team_scores=team_scores,
        )

    # --- the length guard (HP-R-LEN) --------------------------------------------------------
    length_limit = game_length.LIMIT

    def length(self, state: HopPaaState) -> int:
        return game_length.length(state)

    def adjudicate(self, state: HopPaaState) -> Outcome:
        return game_length.adjudicate(state)

    # --- views -----------------------------------------------------------------------------
    def view(self, state: HopPaaState, seat: int | None) -> dict[str, Any]:
        return views.seat_view(state, seat)

    def full_view(self, state: HopPaaState) -> dict[str, Any]:
        return views.full_view(state)

    def redact_event(self, event: Event, seat: int | None, before: HopPaaState, after: HopPaaState) -> Event:
        return views.redact(event, seat, after)

    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> HopPaaState:
        """A state consistent with ``seat``'s view: unseen cards dealt at random (determinize.py)."""
        return sample_state(view, seat, rng)

    def invariants(self, state: HopPaaState) -> list[str]:
        return invariant_checks.check(state)
