"""Paardenkoppen engine (spec rules/paardenkoppen.md): the Engine contract over the game modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.games.engines.base import (
    CHANCE_EVENT,
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    MoveDoc,
    Outcome,
    Rng,
    ranks_from_scores,
)

from . import determinize as determinize_view
from . import flow, invariants, options, rules, transitions, views
from . import length as game_length
from .cards import CARD_IDS, DECK_SIZE, card_id, is_head, parse_card
from .state import CHOOSING_START, DEALING, FINISHED, PASS_COST, PLAYING, PKState, new_state

_CARD_PATTERN = "^(horse|cow|pig|goat)-(1[0-3]|[1-9])$"


class PaardenkoppenEngine(Engine[PKState]):
    game_type = "paardenkoppen"
    title = "Paardenkoppen"
    player_counts = options.PLAYER_COUNTS
    spec = "rules/paardenkoppen.md"
    card_notation: ClassVar[dict[str, Any]] = {
        "family": "animal",
        "description": "animal, hyphen, rank 1-13: animals horse, cow, pig, goat",
        "pattern": "^(horse|cow|pig|goat)-(1[0-3]|[1-9])$",
        "examples": ["horse-13", "goat-10", "pig-6"],
    }
    everything_public_after_end = False  # R12: hands left at round end are not revealed, also after the end

    # --- configuration -------------------------------------------------------------------
    def options_schema(self) -> dict[str, Any]:
        return options.options_schema()

    def normalize_options(self, num_players: int, options_: Mapping[str, Any]) -> dict[str, Any]:
        return options.normalize_options(num_players, options_)

    def variants(self) -> list[GameConfig]:
        extras: list[dict[str, Any]] = [
            {},
            {"six_rule": "immediate"},
            {"tie_rule": "play_on"},
            {"end_mode": "until_cannot_ante"},
        ]
        return [GameConfig(n, self.normalize_options(n, o)) for n in self.player_counts for o in extras]

    def moves(self) -> list[MoveDoc]:
        return [
            MoveDoc(
                "play_card",
                "Play one card from your hand into its animal's row: an empty row takes only its 6, "
                "otherwise the next lower or next higher rank; a head card also needs that animal's 1 "
                "in the row, and pays out the row's field.",
                {
                    "type": "object",
                    "properties": {
                        "card": {"type": "string", "pattern": _CARD_PATTERN, "examples": ["horse-6"]}
                    },
                    "required": ["card"],
                    "additionalProperties": False,
                },
                {"type": "play_card", "card": "horse-6"},
                ("PK-9", "PK-11", "PK-12", "PK-13", "PK-14", "PK-15", "PK-17", "PK-18"),
            ),
            MoveDoc(
                "pass",
                "Pass when you hold no playable card; you pay 1 into the pot (nothing at balance 0).",
                {"type": "object", "properties": {}, "additionalProperties": False},
                {"type": "pass"},
                ("PK-9", "PK-14", "PK-15", "PK-16"),
            ),
        ]

    # --- the game ------------------------------------------------------------------------
    def initial_state(self, config: GameConfig) -> PKState:
        return new_state(config.num_players, dict(config.options))

    def opening_events(self, config: GameConfig) -> list[Event]:
        created: Event = {
            "type": "GameConfigured",
            "num_players": config.num_players,
            "options": dict(config.options),
        }
        start = config.options.get("first_start_player")
        if start is None:
            return [created]  # the start player is a recorded draw (R9)
        n = config.num_players
        state = self.evolve(self.initial_state(config), created)
        chosen: Event = {"type": "StartPlayerChosen", "seat": start, "dealer": (start - 1) % n}
        state = self.evolve(state, chosen)
        return [created, chosen, *flow.round_opening(state, 1, (start - 1) % n, start)]

    def chance_request(self, state: PKState) -> ChanceRequest | None:
        if state.phase == CHOOSING_START:
            return ChanceRequest("start_player", "pick", state.num_players)
        if state.phase == DEALING:
            return ChanceRequest("deal", "shuffle", DECK_SIZE)
        return None

    def to_move(self, state: PKState) -> list[int]:
        if state.phase == PLAYING and not state.round_over:
            return [state.current_seat]
        return []

    def legal_moves(self, state: PKState, seat: int) -> list[Move]:
        if seat not in self.to_move(state):
            return []
        cards = rules.legal_cards(state, seat)
        if not cards:
            return [{"type": "pass"}]
        return [{"type": "play_card", "card": card_id(c)} for c in cards]

    def decide(self, state: PKState, seat: int, move: Move) -> list[Event]:
        if state.phase == FINISHED:
            raise IllegalMove("PK-21", "game_over", "the game has ended")
        if seat not in self.to_move(state):
            raise IllegalMove("PK-9", "not_your_turn", "it is not your turn")
        if not isinstance(move, Mapping):
            raise IllegalMove("PK-9", "bad_move", "a move must be an object with a type")
        kind = move.get("type")
        if kind == "pass":
            if set(move) != {"type"}:
                raise IllegalMove("PK-9", "bad_move", "pass takes no parameters")
            rules.check_pass(state, seat)
            paid = PASS_COST if state.balances[seat] >= PASS_COST else 0  # PK-16, R4
            return [{"type": "Passed", "seat": seat, "paid": paid}]
        if kind == "play_card":
            if set(move) != {"type", "card"}:
                raise IllegalMove("PK-9", "bad_move", "play_card takes exactly one parameter: card")
            card = parse_card(move.get("card"))
            if card is None:
                raise IllegalMove(
                    "PK-9", "unknown_card", f"{move.get('card')!r} is no card; use an id like horse-6"
                )
            rules.check_play(state, seat, card)
            return self._play(state, seat, card)
        raise IllegalMove("PK-9", "unknown_move", f"unknown move type {kind!r}: use play_card or pass")

    def _play(self, state: PKState, seat: int, card: int) -> list[Event]:
        animal = card // 13
        payout = state.fields[animal] if is_head(card) else 0  # PK-17
        played: Event = {"type": "CardPlayed", "seat": seat, "card": card_id(card), "head_payout": payout}
        if len(state.hands[seat]) > 1:
            return [played]
        # PK-18, R11: the head payout first, then the pot; nobody else plays.
        after = self.evolve(state, played)
        ended: Event = {"type": "RoundEnded", "seat_out": seat, "pot_payout": after.pot}
        after = self.evolve(after, ended)
        return [played, ended, *flow.after_round(after)]

    def evolve(self, state: PKState, event: Event) -> PKState:
        return transitions.apply(state, event)

    def outcome(self, state: PKState) -> Outcome | None:
        if state.phase != FINISHED:
            return None
        scores: list[float] = [float(b) for b in state.balances]
        return Outcome(ranks_from_scores(scores), scores, state.end_reason or "")

    # --- the length guard (PK-R-LEN) --------------------------------------------------------
    length_limit = game_length.LIMIT

    def length(self, state: PKState) -> int:
        return game_length.length(state)

    def length_floor(self, options: Mapping[str, Any]) -> int:
        return game_length.floor(options)

    def adjudicate(self, state: PKState) -> Outcome:
        return game_length.adjudicate(state)

    # --- what each viewer may see --------------------------------------------------------
    def view(self, state: PKState, seat: int | None) -> dict[str, Any]:
        return views.seat_view(state, seat)

    def full_view(self, state: PKState) -> dict[str, Any]:
        return views.full_view(state)

    def redact_event(self, event: Event, seat: int | None, before: PKState, after: PKState) -> Event:
        if event.get("type") != CHANCE_EVENT:
            return event  # plays, passes, payouts and results are public
        if event.get("purpose") == "start_player":
            return event | {"start_player": after.start_player, "dealer": after.dealer}  # public draw
        redacted = {k: v for k, v in event.items() if k != "values"} | {"values": "hidden"}
        redacted["hand_sizes"] = [len(h) for h in after.hands]
        if seat is not None and 0 <= seat < after.num_players:
            redacted["hand"] = [card_id(c) for c in after.hands[seat]]
        return redacted

    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> PKState:
        """A full state consistent with ``seat``'s view: the unseen cards dealt at random onto the
        other hands with their public sizes (issue 18.3; see ``determinize.py``)."""
        return determinize_view.determinize(view, seat, rng)

    # --- checks for random play ----------------------------------------------------------
    def invariants(self, state: PKState) -> list[str]:
        return invariants.check(state)


__all__ = ["CARD_IDS", "PaardenkoppenEngine"]
