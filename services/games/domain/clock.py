"""Clocks per table: pure arithmetic over the times recorded in the game's events.

A clocked table records, in the hashed payload of every event that starts or stops a clock, the time
the server accepted it (``accepted_at``, ISO 8601 with microseconds): ``GameStarted``, ``MoveMade``,
``ClockResumed`` (another service's answer was recorded) and ``TimeExpired``. From those times and the
seats the game waits for after each commit, ``TableClock`` derives each seat's remaining time, whose
clocks run and every deadline. Nothing here reads a clock: times come in as arguments.

Kinds (``ClockSettings.kind``):

* ``fischer``: each seat has ``base_seconds`` for the whole game and gains ``increment_seconds`` after
  each of its moves (real time).
* ``per_move``: every turn a seat gets ``seconds`` afresh; unused time is not carried over.
* ``correspondence``: ``per_move`` with ``days_per_move`` days a turn.

Every seat in the game's ``to_move`` has its clock running (simultaneous turns run side by side).
While the game waits for another service (``Engine.external_request``, e.g. a CityHopper question) no
clock runs: the seats' time left is frozen from the commit that asked until ``ClockResumed`` records
the answer. A turn that begins when the answer arrives is a new turn (a fresh per-move allowance).

A seat whose deadline has passed is handled by the table's ``timeout_policy``: ``forfeit`` (the game
ends, the seat and its partners rank last) or ``auto_move`` (``auto_move_index`` picks a legal move
from the committed seed; only for games in ``AUTO_MOVE_GAME_TYPES``). Under ``fischer`` a seat that ran
out keeps 0 s plus its increments, so each later turn it cannot finish in time is played for it too.
A move is in time when it is accepted strictly before the deadline.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

KINDS = ("fischer", "per_move", "correspondence")
POLICIES = ("forfeit", "auto_move")
# games where a seat can be played for: the card games (a legal card is always at hand). ROPARUN's
# pawn race and CityHopper's questions are decisions nobody should make for an absent player.
AUTO_MOVE_GAME_TYPES = frozenset({"hoppaa", "klapper", "paardenkoppen"})
# events whose payload carries ``accepted_at`` on a clocked table
TIMED_EVENTS = frozenset({"GameStarted", "MoveMade", "ClockResumed", "TimeExpired"})
AUTO_MOVE_DOMAIN = b"speltafel-v1/auto-move"

# bounds of the settings (inclusive), in their own unit
LIMITS: dict[str, tuple[int, int]] = {
    "base_seconds": (1, 86_400),
    "increment_seconds": (0, 3_600),
    "seconds": (1, 86_400),
    "days_per_move": (1, 60),
}
FIELDS = {
    "fischer": ("base_seconds", "increment_seconds"),
    "per_move": ("seconds",),
    "correspondence": ("days_per_move",),
}
DEFAULTS = {"increment_seconds": 0}


class InvalidClock(ValueError):
    """A clock setting the server refuses; ``field`` names it (``clock.base_seconds``, ``timeout_policy``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class ClockSettings:
    kind: str
    timeout_policy: str = "forfeit"
    base_seconds: int = 0
    increment_seconds: int = 0
    seconds: int = 0
    days_per_move: int = 0

    @property
    def allowance(self) -> timedelta:
        """A seat's time at the start (fischer) or at each new turn (per_move, correspondence)."""
        if self.kind == "fischer":
            return timedelta(seconds=self.base_seconds)
        if self.kind == "per_move":
            return timedelta(seconds=self.seconds)
        return timedelta(days=self.days_per_move)

    @property
    def carries_over(self) -> bool:
        return self.kind == "fischer"

    def as_dict(self) -> dict[str, Any]:
        """The settings as recorded in ``GameCreated`` (``clock``) and shown in views."""
        return {"kind": self.kind, **{f: getattr(self, f) for f in FIELDS[self.kind]}}

    @classmethod
    def from_recorded(cls, clock: Mapping[str, Any], timeout_policy: str | None) -> ClockSettings:
        return cls(
            kind=str(clock["kind"]),
            timeout_policy=timeout_policy or "forfeit",
            **{f: int(clock[f]) for f in FIELDS[str(clock["kind"])]},
        )


def parse_settings(game_type: str, clock: Any, timeout_policy: Any) -> ClockSettings | None:
    """Validate a table's clock as sent to ``POST /v1/games``; None: no clock. Raises ``InvalidClock``."""
    if clock is None:
        if timeout_policy is not None:
            raise InvalidClock("timeout_policy", "a timeout_policy needs a clock")
        return None
    if not isinstance(clock, Mapping):
        raise InvalidClock("clock", "clock must be an object with a kind")
    kind = clock.get("kind")
    if kind not in KINDS:
        raise InvalidClock("clock.kind", f"kind must be one of {', '.join(KINDS)}")
    allowed = FIELDS[str(kind)]
    for key in clock:
        if key != "kind" and key not in allowed:
            raise InvalidClock(f"clock.{key}", f"a {kind} clock takes {', '.join(allowed)}, not {key}")
    values: dict[str, int] = {}
    for name in allowed:
        value = clock.get(name, DEFAULTS.get(name))
        low, high = LIMITS[name]
        if value is None:
            raise InvalidClock(f"clock.{name}", f"a {kind} clock needs {name}")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidClock(f"clock.{name}", f"{name} must be an integer from {low} to {high}")
        values[name] = value
    policy = "forfeit" if timeout_policy is None else timeout_policy
    if policy not in POLICIES:
        raise InvalidClock("timeout_policy", f"timeout_policy must be one of {', '.join(POLICIES)}")
    if policy == "auto_move" and game_type not in AUTO_MOVE_GAME_TYPES:
        raise InvalidClock(
            "timeout_policy",
            f"auto_move is for games where a seat can be played for ({', '.join(sorted(AUTO_MOVE_GAME_TYPES))});"
            f" {game_type} allows forfeit only",
        )
    return ClockSettings(kind=str(kind), timeout_policy=str(policy), **values)


def policies_for(game_type: str) -> list[str]:
    return list(POLICIES) if game_type in AUTO_MOVE_GAME_TYPES else ["forfeit"]


# what each setting means and its unit, for the published schema
UNITS = {"base_seconds": "seconds", "increment_seconds": "seconds", "seconds": "seconds", "days_per_move": "days"}
MEANINGS = {
    "base_seconds": "the seat's time for the whole game",
    "increment_seconds": "added to the seat's time after each of its moves",
    "seconds": "the seat's time for each turn, afresh every turn",
    "days_per_move": "the seat's time for each turn, in days",
}
KIND_MEANINGS = {
    "fischer": "real time: base_seconds for the game plus increment_seconds after each own move",
    "per_move": "every turn afresh: seconds per turn, unused time is not carried over",
    "correspondence": "every turn afresh: days_per_move days per turn",
}


def json_schema(game_type: str) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a table's ``clock`` and ``timeout_policy`` for ``game_type``, as
    ``POST /v1/games`` takes them: per kind its fields with unit, bounds and default; the timeout
    policies the game allows. It accepts exactly what ``parse_settings`` accepts (a unit test holds
    them together); other services validate at their door with it (``GET /v1/game-types``)."""
    kinds = []
    for kind in KINDS:
        fields: dict[str, Any] = {"kind": {"const": kind}}
        for name in FIELDS[kind]:
            low, high = LIMITS[name]
            field_schema: dict[str, Any] = {
                "type": "integer",
                "minimum": low,
                "maximum": high,
                "x-unit": UNITS[name],
                "description": f"{MEANINGS[name]} ({UNITS[name]}, {low}-{high})",
            }
            if name in DEFAULTS:
                field_schema["default"] = DEFAULTS[name]
            fields[name] = field_schema
        kinds.append({
            "if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
            "then": {
                "description": KIND_MEANINGS[kind],
                "properties": fields,
                "required": [name for name in FIELDS[kind] if name not in DEFAULTS],
                "additionalProperties": False,
            },
        })
    policies = policies_for(game_type)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "clock": {
                "type": "object",
                "description": "leave it out for no clock",
                "properties": {"kind": {"enum": list(KINDS), "description": "; ".join(
                    f"{k}: {m}" for k, m in KIND_MEANINGS.items())}},
                "required": ["kind"],
                "allOf": kinds,
            },
            "timeout_policy": {
                "enum": policies,
                "default": "forfeit",
                "description": "what happens to a seat whose time runs out: forfeit (the game ends, the seat and "
                "its partners rank last)" + (
                    "; auto_move (a legal move chosen from the committed seed is played for it)"
                    if "auto_move" in policies else "; auto_move is not offered for this game"
                ),
            },
        },
        "dependentRequired": {"timeout_policy": ["clock"]},
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class SeatClock:
    left: timedelta  # time left at ``since`` (or now, when not running)
    since: datetime | None = None  # when this seat's clock last started; None: not running
    turn: bool = False  # the game waits for this seat (its clock may still be paused)


@dataclass(frozen=True)
class Situation:
    """What the game waits for after a commit: the seats to move and whether another service is asked."""

    to_move: tuple[int, ...] = ()
    waiting: bool = False


@dataclass(frozen=True)
class TableClock:
    """A table's clocks as of its events so far.

    ``seats`` are settled up to the previous timed event; ``mark`` is the last timed event (time and the
    seat that moved, if any), settled once what the game waits for after its commit is known (at the
    next timed event, or when asked with the current ``Situation``)."""

    settings: ClockSettings
    seats: tuple[SeatClock, ...]
    mark: tuple[datetime, int | None] | None = None

    @classmethod
    def start(cls, settings: ClockSettings, num_players: int) -> TableClock:
        return cls(settings, tuple(SeatClock(settings.allowance) for _ in range(num_players)))

    @property
    def last_at(self) -> datetime | None:
        return self.mark[0] if self.mark else None

    def record(self, at: datetime, mover: int | None, before: Situation) -> TableClock:
        """A timed event accepted at ``at`` (``mover``: the seat whose move it is, else None);
        ``before``: what the game waited for just before it (after the previous commit)."""
        return replace(self, seats=self.settled(before), mark=(at, mover))

    def settled(self, now: Situation) -> tuple[SeatClock, ...]:
        """The seats with the last timed event applied, given what the game waits for after it."""
        if self.mark is None:
            return self.seats
        at, mover = self.mark
        out = []
        for seat, clock in enumerate(self.seats):
            left = clock.left
            if clock.since is not None:
                left = max(timedelta(0), left - (at - clock.since))
            if seat == mover and self.settings.carries_over:
                left += timedelta(seconds=self.settings.increment_seconds)
            continuing = clock.turn and seat != mover
            turn = seat in now.to_move
            if not self.settings.carries_over and (not turn or not continuing):
                left = self.settings.allowance  # a new turn (or the next one) has the whole allowance
            out.append(SeatClock(left, at if turn and not now.waiting else None, turn))
        return tuple(out)

    def deadlines(self, now: Situation) -> dict[int, datetime]:
        """Seat -> the moment its time runs out, for every seat whose clock runs."""
        return {
            seat: clock.since + clock.left
            for seat, clock in enumerate(self.settled(now))
            if clock.since is not None
        }

    def deadline(self, now: Situation) -> datetime | None:
        deadlines = self.deadlines(now)
        return min(deadlines.values()) if deadlines else None

    def remaining(self, now: Situation, at: datetime) -> list[timedelta]:
        """Each seat's time left at ``at`` (never below zero)."""
        return [
            max(timedelta(0), c.left - (at - c.since)) if c.since is not None else c.left
            for c in self.settled(now)
        ]

    def expired(self, now: Situation, at: datetime) -> list[int]:
        """Seats whose time has run out at ``at``, earliest deadline first."""
        due = sorted((d, s) for s, d in self.deadlines(now).items() if d <= at)
        return [s for _, s in due]

    def in_time(self, now: Situation, seat: int, at: datetime) -> bool:
        deadline = self.deadlines(now).get(seat)
        return deadline is None or at < deadline

    def view(self, now: Situation, at: datetime | None) -> dict[str, Any]:
        """What views show: settings, each seat's remaining time at ``at`` (default: the time of the last
        timed event, i.e. as the clocks stood right after it) and the deadlines."""
        at = at or self.last_at
        deadlines = self.deadlines(now)
        seats = self.settled(now)
        remaining = self.remaining(now, at) if at is not None else [c.left for c in seats]
        return {
            **self.settings.as_dict(),
            "timeout_policy": self.settings.timeout_policy,
            "as_of": iso(at) if at is not None else None,
            "paused": now.waiting,
            "deadline": iso(min(deadlines.values())) if deadlines else None,
            "seats": [
                {
                    "seat": seat,
                    "remaining_seconds": remaining[seat].total_seconds(),
                    "running": clock.since is not None,
                    "deadline": iso(deadlines[seat]) if seat in deadlines else None,
                }
                for seat, clock in enumerate(seats)
            ],
        }


def iso(at: datetime) -> str:
    return at.isoformat(timespec="microseconds")


def parse_time(value: Any) -> datetime:
    """A recorded ``accepted_at``; raises ValueError for anything but an ISO time with a UTC offset."""
    if not isinstance(value, str):
        raise ValueError(f"accepted_at must be an ISO 8601 string, not {value!r}")
    at = datetime.fromisoformat(value)
    if at.tzinfo is None:
        raise ValueError(f"accepted_at {value!r} has no UTC offset")
    return at


def auto_move_index(server_seed: bytes, game_id: str, version: int, count: int) -> int:
    """Which of ``count`` legal moves is played for a seat out of time, for the ``TimeExpired`` event at
    ``version``: HMAC-SHA256(server_seed, domain ‖ 0x00 ‖ game_id ‖ 0x00 ‖ version, 8 bytes big-endian),
    its first 8 bytes big-endian modulo ``count``. Replay and audit re-derive it once the seed is revealed."""
    if count < 1:
        raise ValueError("no legal move to play")
    msg = AUTO_MOVE_DOMAIN + b"\x00" + game_id.encode() + b"\x00" + version.to_bytes(8, "big")
    digest = hmac.new(server_seed, msg, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % count


def situation_of(to_move: Sequence[int], waiting: bool) -> Situation:
    return Situation(tuple(to_move), waiting)
