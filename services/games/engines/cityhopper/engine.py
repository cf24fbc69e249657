"""CityHopperEngine: the ``Engine`` contract for rules/cityhopper.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from services.games.engines.base import (
    ChanceRequest,
    Engine,
    Event,
    ExternalRequest,
    GameConfig,
    Move,
    MoveDoc,
    Outcome,
    Rng,
)

from . import docs, views
from . import length as game_length
from .board import CITY_IDS
from .decide import decide
from .determinize import determinize
from .evolve import evolve
from .invariants import check
from .legal import legal_moves, selfplay_answers
from .provider import selfplay_provider
from .state import (
    AWAIT_ROLL,
    CARD_IDS,
    CHANCE,
    GAME_OVER,
    MOVE,
    PURCHASE,
    QUESTION,
    SELECTOR_RANGE,
    SETUP,
    START_ROLL,
    TICKET_STOCK,
    Player,
    State,
)


class CityHopperEngine(Engine[State]):
    game_type: ClassVar[str] = "cityhopper"
    title: ClassVar[str] = "CityHopper"
    player_counts: ClassVar[tuple[int, ...]] = (2, 3, 4)
    spec: ClassVar[str] = "rules/cityhopper.md"
    # 3.3: end cities not bought (CH-38) or played away (CH-43) and deck orders are never revealed, also
    # after the end
    everything_public_after_end = False
    card_notation: ClassVar[dict[str, Any]] = {
        "family": "cityhopper",
        "description": (
            "chance cards by catalog id K01-K47; yellow cards, cities and airports by city id "
            "(lower-case, as in the questions service's places)"
        ),
        "pattern": "^K[0-9]{2}$",
        "examples": ["K01", "K13", "tilburg"],
    }

    # --- configuration ---------------------------------------------------------------------
    def options_schema(self) -> dict[str, Any]:
        return docs.options_schema()

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        return docs.normalize_options(num_players, options)

    def moves(self) -> list[MoveDoc]:
        return docs.move_docs()

    # --- the game --------------------------------------------------------------------------
    def initial_state(self, config: GameConfig) -> State:
        opts = self.normalize_options(config.num_players, config.options)
        money = int(opts["starting_money"])
        return State(
            num_players=config.num_players,
            starting_money=money,
            players=[Player(seat=i, money=money) for i in range(config.num_players)],
            ticket_stock=dict(TICKET_STOCK),
        )

    def chance_request(self, state: State) -> ChanceRequest | None:
        s = state
        if s.phase == SETUP:
            purpose = ("blue", "yellow", "green")[s.shuffled]
            return ChanceRequest(purpose, "shuffle", len(CARD_IDS) if purpose == "green" else len(CITY_IDS))
        if s.phase == START_ROLL and s.pending_start is not None:
            return ChanceRequest("start_roll", "dice", 1, 6)
        if s.phase == AWAIT_ROLL and s.roll_pending:
            return ChanceRequest("roll", "dice", 1, 6)
        if s.phase == QUESTION and s.question is not None:
            stage = s.question.get("stage")
            if stage == "category":
                return ChanceRequest("category", "dice", 1, 6)
            if stage == "selector":
                return ChanceRequest("selector", "pick", SELECTOR_RANGE)
        return None

    def external_request(self, state: State) -> ExternalRequest | None:
        q = state.question
        if state.phase != QUESTION or q is None or q.get("stage") != "external":
            return None
        return ExternalRequest(
            kind="question",
            request_no=int(q["request_no"]),
            params={
                "city": q["city"],
                "category": q["category"],
                "yellow_city": q["yellow_city"],
                "selector": q["selector"],
            },
        )

    def to_move(self, state: State) -> list[int]:
        s = state
        if self.chance_request(s) is not None or self.external_request(s) is not None:
            return []
        if s.phase == START_ROLL:
            return [i for i in s.start_rollers if s.start_rolls[i] is None]
        if s.phase == CHANCE:
            awaiting = (s.chance or {}).get("awaiting")
            return [] if awaiting is None else [int(awaiting)]
        if s.phase in (AWAIT_ROLL, MOVE, PURCHASE):
            return [s.active]
        if s.phase == QUESTION and s.question is not None and s.question.get("stage") == "answer":
            return [s.active]
        return []

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.to_move(state):
            return []
        return legal_moves(state, seat)

    def decide(self, state: State, seat: int, move: Move) -> list[Event]:
        return decide(state, seat, move)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != GAME_OVER or state.winner is None:
            return None
        w = state.winner
        n = state.num_players
        return Outcome(
            ranks=[1 if i == w else 2 for i in range(n)],
            scores=[1.0 if i == w else 0.0 for i in range(n)],
            reason=f"CH-47: seat {w} played away every end city",
        )

    # --- the length guard (CH-R-LEN) --------------------------------------------------------
    length_limit = game_length.LIMIT

    def length(self, state: State) -> int:
        return game_length.length(state)

    def adjudicate(self, state: State) -> Outcome:
        return game_length.adjudicate(state)

    # --- views -----------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out = views.view(state, seat)
        out["to_move"] = self.to_move(state)
        return out

    def full_view(self, state: State) -> dict[str, Any]:
        out = views.view(state, None, everything=True)
        out["to_move"] = self.to_move(state)
        return out

    def redact_event(self, event: Event, seat: int | None, before: State, after: State) -> Event:
        return views.redact_event(event, seat)

    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> State:
        """A full state consistent with ``seat``'s view: hidden end cards and deck orders sampled
        (``determinize.py``; issue 18, strong bots)."""
        return determinize(view, seat, rng)

    # --- checks ----------------------------------------------------------------------------
    def selfplay_moves(self, state: State, seat: int) -> list[Move]:
        """Legal moves, but answers mostly right (``legal.selfplay_answers``) so random games end."""
        q = state.question
        if (
            state.phase == QUESTION
            and q is not None
            and q.get("stage") == "answer"
            and seat in self.to_move(state)
        ):
            payloads = selfplay_answers(q["question"], int(q["request_no"]))
            return [{"type": "answer", "payload": p} for p in payloads]
        return self.legal_moves(state, seat)

    def selfplay_provider(self) -> Callable[[ExternalRequest], dict[str, Any]] | None:
        return selfplay_provider()

    def invariants(self, state: State) -> list[str]:
        return check(state)
