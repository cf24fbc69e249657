"""Clocks of a running game: the deadline read model, refusing a late move, recording a timeout (by the
ticker, a claim, or a move that came too late) and the timeout policies (forfeit, auto_move).

The arithmetic is pure (``domain/clock.py``); time comes from the injected ``self.now``."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.games.adapters.postgres import GamesRepository
from services.games.domain.clock import auto_move_index, iso, parse_time
from services.games.domain.play import apply_move
from services.games.domain.table import Table, forfeited_seats, table_teams, timeout_outcome
from services.games.engines.base import Engine
from services.games.service_layer.core import Committed, Pending, ServiceCore, _valid_id
from services.games.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from services.games.service_layer.length import guarded
from shared.auth import Identity

log = logging.getLogger(__name__)
# timeouts one game may record in a row (auto_move: a seat out of time may be played for turn after turn)
MAX_EXPIRIES_IN_A_ROW = 64
CLOCK_ACTOR = Identity(admin=True)  # the ticker records timeouts as the server


class TimeRanOut(Exception):
    """A move arrived at or after its seat's deadline (``make_move`` records the timeout, then 409)."""

    def __init__(self, seat: int, deadline: datetime) -> None:
        super().__init__(f"seat {seat} ran out of time at {iso(deadline)}")
        self.seat = seat
        self.deadline = deadline


@dataclass(frozen=True)
class TickReport:
    checked: int  # games whose deadline had passed by the read model
    expired: int  # TimeExpired events recorded


class Clocks(ServiceCore):
    def _move_accepted_at(self, table: Table, engine: Engine[Any], seat: int) -> dict[str, Any]:
        """The accepted time for ``seat``'s move (clocked tables), or ``TimeRanOut`` if it is too late."""
        stamp = self._accepted_at(table)
        if table.clock is not None and stamp:
            situation = table.situation(engine)
            if not table.clock.in_time(situation, seat, parse_time(stamp["accepted_at"])):
                raise TimeRanOut(seat, table.clock.deadlines(situation)[seat])
        return stamp

    def _clock_resumed(self, table: Table) -> list[Pending]:
        """``ClockResumed`` opening a commit that records another service's answer (clocked tables):
        the clocks stood still while the game waited, and run again from this time."""
        stamp = self._accepted_at(table)
        return [Pending("ClockResumed", stamp)] if stamp else []

    def clock_now(self, game_id: str) -> dict[str, Any] | None:
        """The game's clock now with its version (the live stream's ``clock`` event); None: no clock."""
        table = self._read_table(game_id)
        view = self._clock_view(table, self.registry.get(table.game_type))
        return None if view is None else {"version": table.version, **view}

    def claim_timeout(self, identity: Identity, game_id: str) -> dict[str, Any]:
        """A player of the game (or an admin) claims that a seat's time has run out: the timeout is
        recorded as the ticker would; 409 ``clock_running`` while every clock is within its time."""
        if identity.anonymous:
            raise Unauthorized("claiming a timeout needs a player token")
        game_id = _valid_id(game_id)
        table = self._read_table(game_id)
        if not identity.admin and table.seat_of(identity.player_id) is None:
            raise Forbidden("you have no seat at this table", code="not_seated")
        if table.clock is None:
            raise InvalidRequest("this table has no clock", field="clock", code="no_clock")
        if table.status != "running":
            raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
        at = self.now()
        if self.expire_due(game_id, at, identity) == 0:
            table = self._read_table(game_id)
            if table.status != "running":
                raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
            assert table.clock is not None
            deadline = table.clock.deadline(table.situation(self.registry.get(table.game_type)))
            when = f"the next deadline is {iso(deadline)}" if deadline else "no clock is running"
            raise Conflict(f"no seat has run out of time at {iso(at)}: {when}", code="clock_running")
        return self._describe(self._read_table(game_id), identity)

    def tick_clocks(self, limit: int = 500) -> TickReport:
        """One run of the ticker: every running game whose earliest deadline has passed gets its
        timeouts recorded. Safe with several tickers (a concurrent write makes the other one retry)."""
        at = self.now()
        with self.uow.read() as repo:
            due = repo.due_clocks(at, limit)
        expired = 0
        for game_id in due:
            try:
                expired += self.expire_due(game_id, at, CLOCK_ACTOR)
            except (Conflict, NotFound) as exc:
                log.info("clock of %s not recorded this run: %s", game_id, exc)
        return TickReport(len(due), expired)

    def expire_due(self, game_id: str, at: datetime | None = None, identity: Identity = CLOCK_ACTOR) -> int:
        """Record every timeout of the game due at ``at`` (default now), one commit each; returns how many."""
        at = at or self.now()
        recorded = conflicts = 0
        while recorded < MAX_EXPIRIES_IN_A_ROW:
            try:
                with self.uow.begin() as repo:
                    committed = self._expire_one(repo, game_id, at, identity)
                if committed is None:
                    break
            except Conflict:
                conflicts += 1
                if conflicts > 5:
                    raise
                continue  # a move landed meanwhile; look again
            self._after_commit(committed)
            recorded += 1
        return recorded

    def _expire_one(self, repo: GamesRepository, game_id: str, at: datetime, identity: Identity) -> Committed | None:
        table = self.load(repo, game_id)
        if table.clock is None or table.status != "running" or table.progress is None:
            return None
        engine = self.registry.get(table.game_type)
        situation = table.situation(engine)
        seats = table.clock.expired(situation, at)
        if not seats:
            return None
        seat = seats[0]
        stamp = self._accepted_at(table)
        policy = table.clock.settings.timeout_policy
        expired = Pending(
            "TimeExpired",
            {
                "seat": seat,
                "player_id": table.seats[seat],
                "policy": policy,
                "deadline": iso(table.clock.deadlines(situation)[seat]),
            }
            | stamp,
        )
        server_seed = repo.server_seed(game_id)
        if policy == "forfeit":
            teams = table_teams(engine, table)
            outcome = timeout_outcome(table.num_players, seat, teams)
            events = [expired, self._finished(table, outcome, server_seed, forfeited_seats(seat, teams))]
        else:
            events = self._auto_move(engine, table, expired, server_seed)
        return self._commit(repo, engine, table, events, identity)

    def _auto_move(self, engine: Engine[Any], table: Table, expired: Pending, server_seed: bytes) -> list[Pending]:
        """TimeExpired, then the move played for the seat (``auto_move_index`` into the game's
        self-play moves: its legal moves, narrowed to the sensible ones where the game has such a
        subset) and what it causes; the game goes on."""
        scratch = table.clone()
        scratch.apply(engine, expired.type, expired.payload)
        assert scratch.progress is not None
        seat = int(expired.payload["seat"])
        state = scratch.progress.state
        choices = engine.selfplay_moves(state, seat) or engine.legal_moves(state, seat)
        move = choices[auto_move_index(server_seed, table.game_id, scratch.version, len(choices))]
        made = Pending(
            "MoveMade",
            {
                "seat": seat,
                "player_id": table.seats[seat],
                "move": move,
                "accepted_at": expired.payload["accepted_at"],
                "auto": True,
            },
        )
        scratch.apply(engine, made.type, made.payload)
        assert scratch.progress is not None
        produced = apply_move(engine, scratch.progress, seat, move, scratch.seeds(server_seed))
        tail, outcome = guarded(engine, table, produced, scratch.progress)  # the length guard (issue 17.2)
        events = [expired, made, *tail]
        if outcome is not None:
            events.append(self._finished(table, outcome, server_seed))
        return events
