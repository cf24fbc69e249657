"""The games service's shared plumbing: loading a table, the reader's view, and the one write path
(``_commit``) every command goes through: events, read model and outbox rows in one transaction (a
viewer's redacted copy of an event is derived when it is read, ``copies``). The use cases live in ``reading``,
``seating``, ``moves`` and ``clocks``; ``handlers.GamesService``
combines them."""

from __future__ import annotations

import logging
import pickle
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from services.games.adapters.postgres import GamesRepository, UnitOfWork
from services.games.domain.clock import iso
from services.games.domain.play import (
    open_game,
)
from services.games.domain.table import SERVICE_EVENTS, Table
from services.games.engines.base import (
    CHANCE_EVENT,
    Engine,
    Outcome,
)
from services.games.engines.registry import Registry, UnknownGameType
from services.games.service_layer.cache import TableCache
from services.games.service_layer.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
)
from shared.auth import Identity
from shared.eventstore.model import ConcurrencyConflict, NewEvent, PayloadRow, Snapshot
from shared.messages import outbox_for

log = logging.getLogger(__name__)
SPECTATOR = -1
SNAPSHOT_EVERY = 200
SNAPSHOT_KIND = "table-v1"
# an Idempotency-Key's answer is replayed for at least this long (seconds; SPELTAFEL_IDEMPOTENCY_TTL),
# then forgotten by the ticker: a key seen again after that is a new request
IDEMPOTENCY_TTL = 24 * 3600.0

Row = PayloadRow  # a stored event as a fold needs it (shared/eventstore/model.py)
# (game_id, version, the commit's new events): the live-stream notice after a commit (adapters/notifications.py)
Publisher = Callable[[str, int, list[Row]], None]
# (level, number) -> the bot account's player id, registered on first use (PlayerDirectory.ensure_bot)
BotAccounts = Callable[[str, int], str]
# the server's clock (injected in bootstrap.py; tests pass their own): an aware UTC datetime
Now = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Pending:
    type: str
    payload: dict[str, Any]


class Copies(Mapping[int, list[dict[str, Any]]]):
    """viewer -> redacted payloads of some events, each redacted when first asked for (``_redact``
    with the state before and after each event)."""

    def __init__(self, engine: Engine[Any], folded: list[tuple[Pending, Any, Any]], num_players: int) -> None:
        self._engine, self._folded, self._num_players = engine, folded, num_players
        self._done: dict[int, list[dict[str, Any]]] = {}

    def __getitem__(self, viewer: int) -> list[dict[str, Any]]:
        if viewer not in self._done:
            if not SPECTATOR <= viewer < self._num_players:
                raise KeyError(viewer)
            seat = None if viewer == SPECTATOR else viewer
            self._done[viewer] = [_redact(self._engine, p, seat, b, a) for p, b, a in self._folded]
        return self._done[viewer]

    def __iter__(self) -> Iterator[int]:
        return iter(range(SPECTATOR, self._num_players))

    def __len__(self) -> int:
        return self._num_players + 1


@dataclass
class Committed:
    table: Table
    before: int
    views: Mapping[int, list[dict[str, Any]]]  # viewer -> redacted payloads of the new events
    rows: list[Row]  # the new events, as read_payloads gives them

    @property
    def recorded_at(self) -> list[str | None]:
        """Of the new events, as stored in their metadata."""
        return [row[4] for row in self.rows]


class ServiceCore:
    def __init__(
        self,
        registry: Registry,
        uow: UnitOfWork,
        publish: Publisher | None = None,
        cache: TableCache | None = None,
        idempotency_wait: float = 10.0,
        idempotency_ttl: float = IDEMPOTENCY_TTL,
        bot_accounts: BotAccounts | None = None,
        now: Now | None = None,
    ) -> None:
        self.registry = registry
        self.now = now or utc_now  # the time moves are accepted at (clocked tables record it)
        self.bot_accounts = bot_accounts  # None: BOTS_SECRET unset, no bot can be seated
        self.uow = uow
        self.idempotency_wait = idempotency_wait  # seconds a retry waits for a running same-key request
        self.idempotency_ttl = idempotency_ttl  # seconds a key's answer is kept (then the ticker forgets it)
        self.publish = publish or (lambda game_id, version, rows: None)
        self.cache = cache or TableCache()

    def engine(self, game_type: str) -> Engine[Any]:
        try:
            return self.registry.get(game_type)
        except UnknownGameType:
            raise InvalidRequest(f"unknown game type {game_type!r}", field="game_type") from None

    def load(
        self, repo: GamesRepository, game_id: str, until: int | None = None, trust_cache_at: int | None = None
    ) -> Table:
        """The table at its current version (or at ``until``), from cache, snapshot and events.

        ``trust_cache_at``: a command that will append at this version may use a cached table of
        exactly that version without reading the log; if another instance wrote meanwhile, the
        append's unique key turns it into a 409."""
        table = self.cache.get(game_id) if until is None else None
        if table is not None and trust_cache_at is not None and table.version == trust_cache_at:
            return table
        if table is None:
            snap = repo.events.latest_snapshot(game_id, SNAPSHOT_KIND, until)  # no 2nd connection
            table = pickle.loads(snap.data) if snap else Table(game_id)
        engine = None
        limit = None if until is None else max(0, until - table.version)
        for _, type_, payload, hash_, _ in repo.events.read_payloads(game_id, table.version, limit):
            if engine is None and type_ != "GameCreated":
                engine = self.registry.get(table.game_type)
            if type_ == "GameCreated":
                engine = self.registry.get(payload["game_type"])
            assert engine is not None
            table.apply(engine, type_, payload)
            table.head_hash = hash_
        if table.version == 0:
            raise NotFound(f"no game {game_id}")
        if until is None:
            self.cache.put(table)
        return table

    def _read_table(self, game_id: str, until: int | None = None) -> Table:
        with self.uow.read() as repo:
            return self.load(repo, _valid_id(game_id), until)

    def viewer_of(self, table: Table, identity: Identity) -> int | None:
        """Whose eyes a caller sees the game with: a seat number, SPECTATOR, or None for everything.

        The reveal policy (README, "What is revealed after the end"), the same for every endpoint (view,
        events, live stream, state at a version, move answers): admins see everything; everyone else
        sees what the game's spec shows their seat (or a spectator), also after the end. Only an engine
        whose spec reveals everything at the end (``Engine.everything_public_after_end``) shows its full
        view and whole log to everyone once the game has ended."""
        if identity.admin:
            return None
        if table.ended and self.registry.get(table.game_type).everything_public_after_end:
            return None
        seat = table.seat_of(identity.player_id)
        return SPECTATOR if seat is None else seat

    @staticmethod
    def reads_full_log(table: Table, identity: Identity) -> bool:
        """Who may take the export (the whole unredacted log with the seed) of an ended game: its
        players, admins and auditor tokens (which read every game and change nothing)."""
        return identity.admin or identity.auditor or table.seat_of(identity.player_id) is not None

    def _describe(self, table: Table, identity: Identity) -> dict[str, Any]:
        return self._describe_as(table, identity, self.viewer_of(table, identity))

    def _describe_as(self, table: Table, identity: Identity, viewer: int | None) -> dict[str, Any]:
        """The game through ``viewer``'s eyes (a ``viewer_of`` answer)."""
        engine = self.registry.get(table.game_type)
        state_view: dict[str, Any] | None = None
        to_move: list[int] = []
        waiting_for: dict[str, Any] | None = None
        if table.progress is not None:
            state = table.progress.state
            if viewer is None:
                state_view = engine.full_view(state)
            else:
                state_view = engine.view(state, None if viewer == SPECTATOR else viewer)
            if table.status == "running":
                to_move = engine.to_move(state)
                external = engine.external_request(state)
                if external is not None:
                    waiting_for = {"kind": external.kind, "request_no": external.request_no}
        clock = self._clock_view(table, engine)
        return {
            "id": table.game_id,
            "game_type": table.game_type,
            "options": table.options,
            "num_players": table.num_players,
            "status": table.status,
            "version": table.version,
            "seats": self._seats_with_names(table.seats),
            "your_seat": table.seat_of(identity.player_id),
            "to_move": to_move,
            "waiting_for": waiting_for,
            "view": state_view,
            "outcome": table.outcome,
            "commitment": table.commitment,
            "revealed_seed": table.revealed_seed,
            "clock": clock,
            "deadline": clock["deadline"] if clock is not None else None,
        }

    def _clock_view(self, table: Table, engine: Engine[Any], now: bool = True) -> dict[str, Any] | None:
        """Each seat's remaining time and the deadlines (clocked tables), at the server's time now while
        the game runs, else as they stood at the last recorded time."""
        if table.clock is None:
            return None
        at = self.now() if now and table.status == "running" else None
        return table.clock.view(table.situation(engine), at)

    def _accepted_at(self, table: Table) -> dict[str, Any]:
        """``{"accepted_at": now}`` for an event of a clocked table (never before its last recorded time),
        else nothing: the time goes into the hashed payload, so the audit can re-check every clock."""
        if table.clock is None:
            return {}
        at = self.now()
        last = table.clock.last_at
        return {"accepted_at": iso(max(at, last) if last is not None else at)}

    def _seats_with_names(self, seats: list[str | None]) -> list[dict[str, Any]]:
        with self.uow.read() as repo:
            players = repo.seat_players(seats)
        return _seat_items(seats, players)

    def _start_events(self, engine: Engine[Any], scratch: Table, server_seed: bytes) -> list[Pending]:
        started = Pending(
            "GameStarted",
            {"players": list(scratch.seats), "client_seeds": list(scratch.client_seeds)} | self._accepted_at(scratch),
        )
        scratch.apply(engine, started.type, started.payload)
        seeds = scratch.seeds(server_seed)
        _, opening = open_game(engine, scratch.config, seeds)
        return [started] + [Pending(e["type"], e) for e in opening]

    def _finished(
        self, table: Table, outcome: Outcome, server_seed: bytes, forfeited: list[int] | None = None
    ) -> Pending:
        """``GameFinished``; ``forfeited``: the seats that lost by forfeit (a seat out of time under the
        forfeit policy, and its partners), recorded as ``forfeited_seats``."""
        return Pending(
            "GameFinished",
            {
                "game_type": table.game_type,
                "options": table.options,
                "players": list(table.seats),
                "outcome": outcome.as_dict(),
                "revealed_seed": server_seed.hex(),
            }
            | ({"forfeited_seats": list(forfeited)} if forfeited is not None else {}),
        )

    def _commit(
        self,
        repo: GamesRepository,
        engine: Engine[Any],
        table: Table,
        events: list[Pending],
        identity: Identity,
        extra_outbox: list[Any] | None = None,
    ) -> Committed:
        """Fold ``events`` onto a copy of ``table``, store them with the read model and the outbox in
        the current transaction; returns the new table (``views``: the new events' copies per viewer,
        redacted when asked for)."""
        expected = table.version
        new = table.clone()
        folded = fold_copies(engine, new, events)
        actor = identity.player_id or ("admin" if identity.admin else None)
        outbox = self._external_requests(engine, table, new) + list(extra_outbox or [])
        outbox += self._bot_turns(repo, engine, new)
        for pending in events:
            if pending.type in {"GameFinished", "GameAborted"}:
                # finished_at (outside the hashed event): when the game ended, the date ratings shows
                body = {"game_id": table.game_id, **pending.payload, "finished_at": iso(self.now())}
                outbox += outbox_for(pending.type, f"{table.game_id}:{pending.type}", body)
        try:
            to_move = engine.to_move(new.progress.state) if new.progress and new.status == "running" else []
            stored = repo.append(
                table.game_id,
                expected,
                [
                    NewEvent(p.type, p.payload, {"actor": actor, "correlation_id": table.game_id})
                    for p in events
                ],
                outbox,
                prev_hash=table.head_hash or None,
            )
            # the earliest clock deadline goes in the same row, for the ticker (services/games/service_layer/clocks.py)
            deadline = new.clock.deadline(new.situation(engine)) if new.clock is not None else None
            repo.update_game(
                table.game_id, new.seats, new.status, new.version, stored[-1].hash, to_move, new.outcome, deadline
            )
        except (ConcurrencyConflict, psycopg.errors.UniqueViolation):
            self.cache.forget(table.game_id)
            raise Conflict(
                "another move was recorded first; reload and retry", code="stale_version"
            ) from None
        new.head_hash = stored[-1].hash
        copies = Copies(engine, folded, new.num_players)
        rows = [(e.version, e.type, e.payload, e.hash, e.metadata.get("recorded_at")) for e in stored]
        return Committed(new, expected, copies, rows)

    def _table_at(self, repo: GamesRepository, game_id: str, version: int) -> Table:
        """The table at ``version`` (a fresh copy): from the cache's recent versions, else from the
        last snapshot at or before it and the events after that."""
        if version == 0:
            return Table(game_id)
        cached = self.cache.get_at(game_id, version)
        return cached if cached is not None else self.load(repo, game_id, until=version)

    def _fold_stored(
        self, table: Table, stored: Sequence[Row]
    ) -> list[tuple[int, Pending, Any, Any, Any, Engine[Any]]]:
        """Fold stored rows ``(version, type, payload, hash, recorded_at)`` onto ``table`` (in place): each
        event with the state before and after it and the engine that folded it (``GameCreated`` names it)."""
        engine = self.registry.get(table.game_type) if table.game_type else None
        folded = []
        for version, type_, payload, hash_, recorded_at in stored:
            if type_ == "GameCreated":
                engine = self.registry.get(payload["game_type"])
            assert engine is not None
            pending = Pending(type_, payload)
            ((_, before, after_state),) = fold_copies(engine, table, [pending])
            table.head_hash = hash_
            folded.append((version, pending, before, after_state, recorded_at, engine))
        return folded

    def copies(
        self, repo: GamesRepository, game_id: str, viewer: int, after: int, limit: int
    ) -> list[dict[str, Any]]:
        """``viewer``'s copies (a seat or SPECTATOR) of the events after ``after``: each stored event
        redacted with the state before and after it, as the game's engine says (``redact_event``);
        ``recorded_at`` is the original event's (as in the admin log)."""
        stored = repo.events.read_payloads(game_id, after, limit)
        if not stored:
            return []
        table = self._table_at(repo, game_id, after)
        seat = None if viewer == SPECTATOR else viewer
        items = [
            {
                "version": version,
                "type": pending.type,
                "payload": _redact(engine, pending, seat, before, after_state),
                "recorded_at": recorded_at,
            }
            for version, pending, before, after_state, recorded_at, engine in self._fold_stored(table, stored)
        ]
        return items

    @staticmethod
    def _bot_turns(repo: GamesRepository, engine: Engine[Any], new: Table) -> list[Any]:
        """``BotTurnStarted`` for every bot seat the new version waits for (to the bots worker): after a
        move, the start, a chance or an external answer alike, since they all commit here."""
        if new.progress is None or new.status != "running":
            return []
        seats = engine.to_move(new.progress.state)
        if not seats:
            return []
        levels = repo.bot_levels([new.seats[s] for s in seats])
        rows: list[Any] = []
        for seat in seats:
            player_id = new.seats[seat]
            level = levels.get(player_id) if player_id else None
            if level is None:
                continue
            body = {
                "game_id": new.game_id,
                "game_type": new.game_type,
                "version": new.version,
                "seat": seat,
                "player_id": player_id,
                "level": level,
            }
            rows += outbox_for("BotTurnStarted", f"{new.game_id}:bot-turn:{new.version}:{seat}", body)
        return rows

    @staticmethod
    def _external_requests(engine: Engine[Any], old: Table, new: Table) -> list[Any]:
        """Outbox rows asking another service for content the game now waits for (e.g. a question)."""
        if new.progress is None or new.status != "running":
            return []
        wanted = engine.external_request(new.progress.state)
        had = engine.external_request(old.progress.state) if old.progress is not None else None
        if wanted is None or (had is not None and had.request_no == wanted.request_no):
            return []
        message_type = f"{wanted.kind.capitalize()}Requested"
        body = {"game_id": new.game_id, "request_no": wanted.request_no, **wanted.params}
        return outbox_for(message_type, f"{new.game_id}:{wanted.kind}:{wanted.request_no}", body)

    def _after_commit(self, committed: Committed) -> None:
        """Cache, snapshot and live-stream notice, once the transaction has committed."""
        table = committed.table
        self.cache.put(table)
        if table.version // SNAPSHOT_EVERY > committed.before // SNAPSHOT_EVERY:
            try:
                self.uow.save_snapshot(
                    Snapshot(table.game_id, table.version, SNAPSHOT_KIND, pickle.dumps(table))
                )
            except psycopg.Error as exc:  # a missing snapshot only costs replay time
                log.warning("snapshot failed: %s", exc)
        try:
            self.publish(table.game_id, table.version, committed.rows)
        except Exception as exc:
            log.warning("publish failed: %s", exc)


def _seat_items(seats: list[str | None], players: dict[str, tuple[str, str | None]]) -> list[dict[str, Any]]:
    """The seats as every answer shows them: ``bot`` is ``{"level": ...}`` for a bot, else null."""
    items = []
    for i, p in enumerate(seats):
        name, level = players.get(p, (None, None)) if p else (None, None)
        items.append({"seat": i, "player_id": p, "display_name": name, "bot": {"level": level} if level else None})
    return items


def fold_copies(engine: Engine[Any], table: Table, events: list[Pending]) -> list[tuple[Pending, Any, Any]]:
    """Fold ``events`` onto ``table`` (in place); each with the engine state before and after it, what
    ``_redact`` needs to make a viewer's copy."""
    folded = []
    for pending in events:
        before_state = table.progress.state if table.progress is not None else None
        table.apply(engine, pending.type, pending.payload)
        after_state = table.progress.state if table.progress is not None else None
        folded.append((pending, before_state, after_state))
    return folded


def _redact(
    engine: Engine[Any], pending: Pending, seat: int | None, before: Any, after: Any
) -> dict[str, Any]:
    if pending.type == "GameCreated":
        payload = dict(pending.payload)
        if payload.get("setup"):
            payload["setup"] = "hidden"
        return payload
    if pending.type == "MoveMade":
        if seat == pending.payload["seat"]:
            return pending.payload
        return {**pending.payload, "move": {"type": pending.payload["move"].get("type")}}
    if pending.type in SERVICE_EVENTS:
        return pending.payload
    event = pending.payload
    if before is None:
        return event if event.get("type") != CHANCE_EVENT else {**event, "values": "hidden"}
    return engine.redact_event(event, seat, before, after)


def _valid_id(value: str, field: str = "id") -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise (
            NotFound(f"no game {value}")
            if field == "id"
            else InvalidRequest(f"{value!r} is not a player id", field=field)
        ) from None
