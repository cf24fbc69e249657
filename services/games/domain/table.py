"""A game table as the service sees it: seats, seeds and status around an engine state.

The table is a fold over the game's stream: service events (GameCreated, PlayerJoined, GameStarted,
MoveMade, PlayerResigned, GameAdjudicated, GameFinished, GameAborted; on a clocked table also
ClockResumed and TimeExpired) plus the engine's own events.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from services.games.domain.clock import TIMED_EVENTS, ClockSettings, Situation, TableClock, parse_time
from services.games.domain.play import PrescribedSeeds, Progress, fold
from services.games.engines.base import Engine, GameConfig, Outcome

SERVICE_EVENTS = frozenset(
    {
        "GameCreated",
        "PlayerJoined",
        "GameStarted",
        "MoveMade",
        "PlayerResigned",
        "GameFinished",
        "GameAborted",
        "ClockResumed",
        "TimeExpired",
        "GameAdjudicated",
    }
)


class GamesError(Exception):
    """Root of the games service's domain errors."""


@dataclass
class Table:
    game_id: str
    game_type: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    num_players: int = 0
    seats: list[str | None] = field(default_factory=list)
    client_seeds: list[str] = field(default_factory=list)
    commitment: str = ""
    seed_fixed: bool = False
    setup: list[list[int]] | None = None
    status: str = "open"  # open | running | finished | aborted
    version: int = 0
    progress: Progress | None = None
    outcome: dict[str, Any] | None = None
    revealed_seed: str | None = None
    # the length guard's record from GameCreated (option, unit, limit, rule), None for older tables
    max_length: dict[str, Any] | None = None
    head_hash: str = ""  # hash of the last event folded (the next append chains to it)
    clock: TableClock | None = None  # clocked tables only (domain/clock.py)

    @property
    def config(self) -> GameConfig:
        # the length option (max_rounds ...) is the service's, never the engine's (domain/length.py)
        option = (self.max_length or {}).get("option")
        return GameConfig(self.num_players, {k: v for k, v in self.options.items() if k != option})

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        return self.seats.index(player_id) if player_id in self.seats else None

    @property
    def ended(self) -> bool:
        return self.status in {"finished", "aborted"}

    def seeds(self, server_seed: bytes) -> PrescribedSeeds:
        """Where this table's chance values come from (the admin's recorded setup first, if any)."""
        setup = tuple(tuple(v) for v in (self.setup or []))
        return PrescribedSeeds(server_seed, self.game_id, tuple(self.client_seeds), setup)

    def clone(self) -> Table:
        """Copy for a tentative change; engine states are immutable, so sharing them is safe. (Copies the
        instance dict directly: a third of ``copy.copy``'s time, and a move clones a table four times.)"""
        twin = object.__new__(Table)
        fields = twin.__dict__
        fields.update(self.__dict__)
        fields["seats"] = list(self.seats)
        fields["client_seeds"] = list(self.client_seeds)
        if self.progress is not None:
            fields["progress"] = Progress(self.progress.state, self.progress.chance_count)
        return twin

    def apply(self, engine: Engine[Any], type_: str, payload: dict[str, Any]) -> None:
        """Fold one stored event (its version is counted by the caller)."""
        self.version += 1
        if self.clock is not None and type_ in TIMED_EVENTS:
            mover = payload.get("seat") if type_ == "MoveMade" else None
            self.clock = self.clock.record(parse_time(payload.get("accepted_at")), mover, self.situation(engine))
        if type_ == "GameCreated":
            self.game_type = payload["game_type"]
            self.options = dict(payload["options"])
            self.num_players = int(payload["num_players"])
            self.seats = list(payload["seats"])
            self.client_seeds = [""] * self.num_players
            self.commitment = payload["commitment"]
            self.seed_fixed = bool(payload.get("seed_fixed"))
            self.setup = payload.get("setup")
            if payload.get("clock"):
                settings = ClockSettings.from_recorded(payload["clock"], payload.get("timeout_policy"))
                self.clock = TableClock.start(settings, self.num_players)
            self.max_length = payload.get("max_length")
        elif type_ == "PlayerJoined":
            self.seats[payload["seat"]] = payload["player_id"]
            self.client_seeds[payload["seat"]] = payload.get("client_seed") or ""
        elif type_ == "GameStarted":
            self.status = "running"
            self.progress = Progress(engine.initial_state(self.config))
        elif type_ in {"MoveMade", "PlayerResigned", "GameAdjudicated", "ClockResumed", "TimeExpired"}:
            pass
        elif type_ == "GameFinished":
            self.status = "finished"
            self.outcome = payload["outcome"]
            self.revealed_seed = payload.get("revealed_seed")
        elif type_ == "GameAborted":
            self.status = "aborted"
            self.revealed_seed = payload.get("revealed_seed")
        else:
            if self.progress is None:
                raise GamesError(f"engine event {type_} before GameStarted")
            fold(engine, self.progress, [payload])

    def situation(self, engine: Engine[Any]) -> Situation:
        """What the game waits for now (whose clocks run): the seats to move, and whether another
        service is asked (then no clock runs)."""
        if self.progress is None or self.status != "running":
            return Situation()
        state = self.progress.state
        return Situation(tuple(engine.to_move(state)), engine.external_request(state) is not None)

    def engine_outcome(self, engine: Engine[Any]) -> Outcome | None:
        return engine.outcome(self.progress.state) if self.progress is not None else None


def resign_outcome(num_players: int, seat: int, teams: list[list[int]] | None) -> Outcome:
    """The resigning seat (and its partners) rank last; everyone else shares first place."""
    losers = {seat}
    team_ranks = None
    if teams:
        losing = next(i for i, team in enumerate(teams) if seat in team)
        losers = set(teams[losing])
        team_ranks = [2 if i == losing else 1 for i in range(len(teams))]
    ranks = [2 if s in losers else 1 for s in range(num_players)]
    scores = [0.0 if s in losers else 1.0 for s in range(num_players)]
    return Outcome(
        ranks,
        scores,
        f"seat {seat} resigned",
        teams,
        team_ranks,
        [0.0 if r == 2 else 1.0 for r in team_ranks] if team_ranks else None,
    )


def timeout_outcome(num_players: int, seat: int, teams: list[list[int]] | None) -> Outcome:
    """The seat whose time ran out under the forfeit policy (and its partners) rank last, as on resigning."""
    return replace(resign_outcome(num_players, seat, teams), reason=f"seat {seat} ran out of time")


def forfeited_seats(seat: int, teams: list[list[int]] | None) -> list[int]:
    """The seats that lose by ``seat``'s forfeit (its time ran out): it and its partners. ``GameFinished``
    carries them (``forfeited_seats``), so a league scores the game by its forfeit rule."""
    team = next((t for t in teams or [] if seat in t), [seat])
    return sorted(team)


def table_teams(engine: Engine[Any], table: Table) -> list[list[int]] | None:
    """The partnerships at this table now (engines may only know them after a chance event)."""
    if table.progress is None:
        return engine.teams(table.config)
    return engine.teams_in(table.progress.state, table.config)
