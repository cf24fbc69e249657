"""The engine contract every game implements.

An engine is pure: no I/O, no clock, no ``random``. A saved game is its config plus its event
history, and the state is a left fold of ``evolve`` over that history (OpenSpiel style).

Chance (shuffles, deals, dice, draws) never happens inside the engine. When the state needs a
random outcome, ``chance_request`` returns what is needed; the host derives the values from the
game's committed seed (``shared.fairness``) and records a ``ChanceResolved`` event that the
engine then folds with ``evolve``. Replay re-reads recorded values and never re-rolls.

Events and moves are plain JSON objects (``dict``) with a ``"type"`` key, so they can be stored
and sent as they are. Events are past-tense facts (``CardPlayed``), moves imperative
(``play_card``).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

Event = dict[str, Any]
Move = dict[str, Any]

CHANCE_EVENT = "ChanceResolved"
EXTERNAL_EVENT = "ExternalResolved"
ChanceKind = Literal["shuffle", "dice", "pick"]


class EngineError(Exception):
    """Root of every error an engine raises."""


class IllegalMove(EngineError):
    """A move the rules forbid. ``rule`` is the spec's rule id (e.g. ``PK-15``)."""

    def __init__(self, rule: str, code: str, message: str) -> None:
        super().__init__(f"{rule} {code}: {message}")
        self.rule = rule
        self.code = code
        self.message = message


class InvalidOptions(EngineError):
    """A game configuration the game type does not allow; ``field`` names the option."""

    def __init__(self, field: str, message: str, rule: str | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.rule = rule


@dataclass(frozen=True)
class ChanceRequest:
    """A random outcome the state waits for.

    kind ``shuffle``: a permutation of ``range(n)``; ``dice``: ``n`` values in ``1..sides``;
    ``pick``: one value in ``range(n)``. ``purpose`` is a short tag the engine reads back
    (``"deal"``, ``"start_player"``, ``"roll"`` ...).
    """

    purpose: str
    kind: ChanceKind
    n: int
    sides: int = 6

    def as_dict(self) -> dict[str, Any]:
        return {"purpose": self.purpose, "kind": self.kind, "n": self.n, "sides": self.sides}


def chance_event(request: ChanceRequest, counter: int, values: list[int]) -> Event:
    """The one shape of a recorded chance outcome (written by the host, folded by the engine)."""
    return {"type": CHANCE_EVENT, **request.as_dict(), "counter": counter, "values": values}


@dataclass(frozen=True)
class ExternalRequest:
    """Content the state waits for from another service (e.g. a CityHopper question).

    ``request_no`` numbers the game's requests 0, 1, 2 ...; ``params`` say what is asked (for a
    question: city, category, yellow city and a ``selector`` the engine took from a chance event, so
    which question is drawn follows from the seed). The host asks the other service, records the
    answer as an ``ExternalResolved`` event and folds it; replay and audit never call the service.
    """

    kind: str
    request_no: int
    params: Mapping[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "request_no": self.request_no, "params": dict(self.params)}


def external_event(request: ExternalRequest, result: Mapping[str, Any]) -> Event:
    """The one shape of a recorded external answer (written by the host, folded by the engine)."""
    return {"type": EXTERNAL_EVENT, **request.as_dict(), "result": dict(result)}


@dataclass(frozen=True)
class GameConfig:
    num_players: int
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MoveDoc:
    """Documents one move type for ``GET /v1/game-types``."""

    type: str
    description: str
    params: Mapping[str, Any]  # JSON Schema of the parameters besides "type"
    example: Move
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """Result of a finished game. ``ranks[seat]``: 1 is best; tied seats share a rank."""

    ranks: list[int]
    scores: list[float]
    reason: str
    teams: list[list[int]] | None = None
    team_ranks: list[int] | None = None
    team_scores: list[float] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "reason": self.reason,
            "teams": self.teams,
            "team_ranks": self.team_ranks,
            "team_scores": self.team_scores,
        }


@dataclass(frozen=True)
class LengthLimit:
    """A game type's documented maximum length (issue 17.2): at most ``default`` (or the table's
    ``option``) units of ``unit``; the game that would start unit limit+1 is adjudicated instead, by
    ``Engine.adjudicate``, under ``rule`` (the spec's rule, or a platform ruling where it is silent)."""

    option: str  # the table option that sets it, e.g. "max_rounds"
    unit: str  # what ``Engine.length`` counts: "rounds", "deals", "turns"
    default: int | None  # None: no limit unless the table sets one (the spec says there is none)
    minimum: int
    maximum: int
    rule: str  # e.g. "HP-R-LEN"
    description: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "option": self.option,
            "unit": self.unit,
            "default": self.default,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "rule": self.rule,
            "description": self.description,
        }


def ranks_from_scores(scores: list[float], higher_is_better: bool = True) -> list[int]:
    """Competition ranking (1, 2, 2, 4) from scores."""
    sign = -1 if higher_is_better else 1
    return [1 + sum(1 for o in scores if sign * o < sign * s) for s in scores]


def ranks_from_keys(keys: Sequence[tuple[float, ...]]) -> list[int]:
    """Competition ranking from tuples compared left to right, higher better; equal tuples share a rank."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class Rng(Protocol):
    """The part of ``random.Random`` an engine may use when it is handed a generator (``determinize``).

    Engines never import ``random``: the caller passes its own seeded generator in.
    """

    def random(self) -> float: ...

    def shuffle(self, x: list[Any], /) -> None: ...


S = TypeVar("S")


class Engine(ABC, Generic[S]):
    """One game's rules. Subclasses set the class attributes and implement the methods."""

    game_type: ClassVar[str]
    title: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]]
    spec: ClassVar[str] = ""  # e.g. "rules/paardenkoppen.md"
    # how cards are written in moves, views and events (``GET /v1/game-types`` ``card_notation``):
    # family, description and examples; one notation per family (issue 15.3)
    card_notation: ClassVar[Mapping[str, Any]] = {}

    # --- configuration -------------------------------------------------------------------
    @abstractmethod
    def options_schema(self) -> dict[str, Any]:
        """JSON Schema (type object) of the options, each with its spec default."""

    @abstractmethod
    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and validate; raise ``InvalidOptions`` naming the field."""

    def variants(self) -> list[GameConfig]:
        """Configurations random-play tests and benchmarks cover (every count and variant)."""
        return [GameConfig(n, self.normalize_options(n, {})) for n in self.player_counts]

    def teams(self, config: GameConfig) -> list[list[int]] | None:
        """Fixed partnerships for this config, or None for free-for-all."""
        return None

    def teams_in(self, state: S, config: GameConfig) -> list[list[int]] | None:
        """Partnerships as they stand in ``state`` (some are only known after a chance event)."""
        return self.teams(config)

    @abstractmethod
    def moves(self) -> list[MoveDoc]:
        """The move vocabulary."""

    # --- the game ------------------------------------------------------------------------
    @abstractmethod
    def initial_state(self, config: GameConfig) -> S:
        """State before any event (``config.options`` is already normalized)."""

    def opening_events(self, config: GameConfig) -> list[Event]:
        """Events that open the game, folded right after ``initial_state``."""
        return []

    @abstractmethod
    def chance_request(self, state: S) -> ChanceRequest | None:
        """The random outcome the state waits for, if any. No seat moves while one is pending."""

    def external_request(self, state: S) -> ExternalRequest | None:
        """Content the state waits for from another service, if any (after chance is settled)."""
        return None

    @abstractmethod
    def to_move(self, state: S) -> list[int]:
        """Seats that may move now (usually one; empty when finished or chance is pending)."""

    @abstractmethod
    def legal_moves(self, state: S, seat: int) -> list[Move]:
        """Every legal move of ``seat`` now, each a complete move object."""

    @abstractmethod
    def decide(self, state: S, seat: int, move: Move) -> list[Event]:
        """Validate ``move`` by ``seat`` and return the events it causes, or raise IllegalMove.

        Must not mutate ``state``. Must accept exactly the moves ``legal_moves`` lists.
        """

    @abstractmethod
    def evolve(self, state: S, event: Event) -> S:
        """Apply one event; returns a new state and never mutates ``state``."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""

    # --- what each viewer may see --------------------------------------------------------
    #: The reveal policy after the end. False: the spec's reveal rules keep holding once the game has
    #: ended; callers other than admins get ``view(state, seat)`` (or the spectator's) and the event
    #: copies ``redact_event`` made while the game ran, so an engine shows there what its spec reveals
    #: at the end. True (default): everyone sees ``full_view`` and the whole log once the game has ended.
    everything_public_after_end: ClassVar[bool] = True

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """JSON view for ``seat`` (None: a spectator) with everything hidden it may not see."""

    def view_schema(self) -> dict[str, Any] | None:
        """JSON Schema (2020-12) of what ``view`` and ``full_view`` return: ``view_schema.json`` beside the
        engine's module (one file per game, so a renamed view field is one edit), None when there is none.
        Its ``examples`` hold the seat view of ``view_example.json``, taken from a real game (a test re-plays it)."""
        package = type(self).__module__.rpartition(".")[0]
        try:
            folder = resources.files(package)
            schema: dict[str, Any] = json.loads(folder.joinpath("view_schema.json").read_text(encoding="utf-8"))
        except (FileNotFoundError, ModuleNotFoundError, TypeError):
            return None
        example = folder.joinpath("view_example.json")
        if example.is_file():
            schema["examples"] = [json.loads(example.read_text(encoding="utf-8"))["view"]]
        return schema

    @abstractmethod
    def full_view(self, state: S) -> dict[str, Any]:
        """Everything, for admins (and for everyone after the end if ``everything_public_after_end``)."""

    def redact_event(self, event: Event, seat: int | None, before: S, after: S) -> Event:
        """``event`` as ``seat`` may see it (while the game runs, and after the end unless
        ``everything_public_after_end``). Default: chance values hidden.

        Engines override this when an event carries private data (a dealt hand, a discard)
        or when a chance outcome is public (a die roll).
        """
        if event.get("type") == CHANCE_EVENT:
            return {k: v for k, v in event.items() if k != "values"} | {"values": "hidden"}
        if event.get("type") == EXTERNAL_EVENT:
            return {k: v for k, v in event.items() if k != "result"} | {"result": "hidden"}
        return event

    # --- sampling what a seat cannot see (bots' search) ------------------------------------
    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> S:
        """A full state consistent with everything ``seat`` knows, the unseen parts drawn with ``rng``.

        ``view`` is ``view(state, seat)`` as the API serves it (JSON). The result satisfies
        ``view(result, seat) == view`` and ``legal_moves(result, seat)`` equals the seat's real legal
        moves; hidden cards are dealt at random respecting hand sizes and what play has shown
        (e.g. voids). Pure: all randomness comes from ``rng``. Engines without it raise.
        """
        raise NotImplementedError(f"{self.game_type} has no determinize")

    # --- the length guard (issue 17.2) ------------------------------------------------------
    #: The documented maximum length, None for a game type without one (then nothing caps it).
    length_limit: ClassVar[LengthLimit | None] = None

    def length(self, state: S) -> int:
        """How many units of ``length_limit.unit`` the game has started (1 in the first round)."""
        raise NotImplementedError(f"{self.game_type} has no length")

    def length_floor(self, options: Mapping[str, Any]) -> int:
        """The smallest maximum a table with these (normalized) options may set."""
        return self.length_limit.minimum if self.length_limit is not None else 1

    def adjudicate(self, state: S) -> Outcome:
        """The outcome of a game stopped at its maximum length: the standings in ``state`` ranked per
        the spec or the ruling ``length_limit.rule``. Pure; never called on a finished game."""
        raise NotImplementedError(f"{self.game_type} has no adjudication")

    # --- checks for random play ----------------------------------------------------------
    def selfplay_moves(self, state: S, seat: int) -> list[Move]:
        """The moves a random self-play player picks among: ``legal_moves`` by default. A game whose
        uniformly random play never ends (HopPaa) narrows this to a sensible subset of legal moves."""
        return self.legal_moves(state, seat)

    def selfplay_provider(self) -> Callable[[ExternalRequest], dict[str, Any]] | None:
        """Answers external requests in process for self-play (pure code only), if the game has any."""
        return None

    def invariants(self, state: S) -> list[str]:
        """Descriptions of every invariant that does not hold (empty when all hold)."""
        return []
