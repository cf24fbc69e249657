"""Use cases of the games service. Each command runs in one unit of work: read the table, let the
engine decide, write events, read model, per-viewer event copies and outbox rows in one transaction."""

from __future__ import annotations

import hashlib
import logging
import pickle
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from services.games.adapters.postgres import GamesRepository, IdempotencyKeyBusy, UnitOfWork
from services.games.domain.audit import audit_export, export_document
from services.games.domain.play import (
    InvalidSetup,
    PrescribedSeeds,
    Progress,
    apply_move,
    fold,
    open_game,
    settle_chance,
)
from services.games.domain.table import SERVICE_EVENTS, Table, resign_outcome, table_teams
from services.games.engines.base import (
    CHANCE_EVENT,
    Engine,
    GameConfig,
    IllegalMove,
    InvalidOptions,
    Outcome,
    external_event,
)
from services.games.engines.registry import Registry, UnknownGameType
from services.games.service_layer.cache import TableCache
from services.games.service_layer.errors import (
    Conflict,
    Forbidden,
    IdempotencyInFlight,
    InvalidRequest,
    NotFound,
    RuleViolation,
    Unauthorized,
)
from shared.auth import Identity
from shared.bots import BOT_LEVELS, MAX_BOTS_PER_LEVEL, bot_player_id
from shared.canonical import canonical_json
from shared.errors import Unavailable
from shared.eventstore.model import ConcurrencyConflict, NewEvent, Snapshot
from shared.fairness import CLIENT_SEED_PATTERN, SCHEME, commitment
from shared.messages import outbox_for

log = logging.getLogger(__name__)
SPECTATOR = -1
SNAPSHOT_EVERY = 200
SNAPSHOT_KIND = "table-v1"

Publisher = Callable[[str, int], None]
# (level, number) -> the bot account's player id, registered on first use (PlayerDirectory.ensure_bot)
BotAccounts = Callable[[str, int], str]


@dataclass
class Pending:
    type: str
    payload: dict[str, Any]


@dataclass
class Committed:
    table: Table
    before: int
    views: dict[int, list[dict[str, Any]]]  # viewer -> redacted payloads of the new events
    recorded_at: list[str | None]  # of the new events, as stored in their metadata


class GamesService:
    def __init__(
        self,
        registry: Registry,
        uow: UnitOfWork,
        publish: Publisher | None = None,
        cache: TableCache | None = None,
        idempotency_wait: float = 10.0,
        bot_accounts: BotAccounts | None = None,
    ) -> None:
        self.registry = registry
        self.bot_accounts = bot_accounts  # None: BOTS_SECRET unset, no bot can be seated
        self.uow = uow
        self.idempotency_wait = idempotency_wait  # seconds a retry waits for a running same-key request
        self.publish = publish or (lambda game_id, version: None)
        self.cache = cache or TableCache()

    # ------------------------------------------------------------------ queries
    def game_types(self) -> list[dict[str, Any]]:
        return [
            {
                "id": e.game_type,
                "title": e.title,
                "spec": e.spec,
                "player_counts": list(e.player_counts),
                "card_notation": dict(e.card_notation),
                "options_schema": e.options_schema(),
                "view_schema": e.view_schema(),
                "variants": [
                    {"num_players": v.num_players, "options": dict(v.options)} for v in e.variants()
                ],
                "moves": [
                    {
                        "type": m.type,
                        "description": m.description,
                        "params": dict(m.params),
                        "example": m.example,
                        "rules": list(m.rules),
                    }
                    for m in e.moves()
                ],
            }
            for e in self.registry.all()
        ]

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
        for event in repo.events.read_stream(game_id, table.version, limit):
            if engine is None and event.type != "GameCreated":
                engine = self.registry.get(table.game_type)
            if event.type == "GameCreated":
                engine = self.registry.get(event.payload["game_type"])
            assert engine is not None
            table.apply(engine, event.type, event.payload)
            table.head_hash = event.hash
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
        """Who may take the export (the whole unredacted log with the seed): the game's players and
        admins. A further role (e.g. auditor tokens) is added here."""
        return identity.admin or table.seat_of(identity.player_id) is not None

    def game_view(self, game_id: str, identity: Identity) -> dict[str, Any]:
        table = self._read_table(game_id)
        return self._describe(table, identity)

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
        }

    def _seats_with_names(self, seats: list[str | None]) -> list[dict[str, Any]]:
        with self.uow.read() as repo:
            players = repo.seat_players(seats)
        return _seat_items(seats, players)

    def legal_moves(self, game_id: str, identity: Identity) -> dict[str, Any]:
        table = self._read_table(game_id)
        seat = table.seat_of(identity.player_id)
        moves: list[dict[str, Any]] = []
        if seat is not None and table.status == "running" and table.progress is not None:
            engine = self.registry.get(table.game_type)
            if seat in engine.to_move(table.progress.state):
                moves = engine.legal_moves(table.progress.state, seat)
        return {"version": table.version, "seat": seat, "moves": moves}

    def state_at(self, game_id: str, version: int, identity: Identity) -> dict[str, Any]:
        current = self._read_table(game_id)
        if version < 1 or version > current.version:
            raise InvalidRequest(f"version must be between 1 and {current.version}", field="version")
        table = self._read_table(game_id, until=version)
        out = self._describe_as(table, identity, self.viewer_of(current, identity))  # the policy of now
        out["status_now"] = current.status
        return out

    def events(self, game_id: str, identity: Identity, after: int, limit: int) -> dict[str, Any]:
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self.load(repo, game_id)
            viewer = self.viewer_of(table, identity)
            if viewer is None:
                items = [
                    {
                        "version": e.version,
                        "type": e.type,
                        "payload": e.payload,
                        "recorded_at": e.metadata.get("recorded_at"),
                    }
                    for e in repo.events.read_stream(game_id, after, limit)
                ]
            else:
                items = repo.views(game_id, viewer, after, limit=limit)
        return {"game_id": game_id, "version": table.version, "status": table.status, "events": items}

    def export(self, game_id: str, identity: Identity) -> dict[str, Any]:
        if identity.anonymous:
            raise Unauthorized("the export (whole log with the seed) is for the game's players and admins")
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self.load(repo, game_id)
            if not self.reads_full_log(table, identity):
                raise Forbidden("the export is for the game's players and admins", code="not_a_player")
            if not table.ended:
                raise Conflict(
                    "a game can be exported once it has finished or been aborted", code="game_running"
                )
            return self._export_document(repo, game_id)

    @staticmethod
    def _export_document(repo: GamesRepository, game_id: str) -> dict[str, Any]:
        row = repo.game_row(game_id)
        if row is None:
            raise NotFound(f"no game {game_id}")
        events = [e.as_dict() for e in repo.events.read_stream(game_id)]
        return export_document(game_id, events, (row["version"], row["head_hash"]))

    def audit(self, game_id: str) -> dict[str, Any]:
        """The report ``speltafel verify`` gives for this game's export (public: it carries no hidden data)."""
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            document = self._export_document(repo, game_id)
        return audit_export(document, self.registry).as_dict()

    def list_games(
        self, player: str | None, status: str | None, game_type: str | None, limit: int, offset: int
    ) -> dict[str, Any]:
        with self.uow.read() as repo:
            rows, total = repo.list_games(player, status, game_type, limit, offset)
            players = repo.seat_players([p for row in rows for p in row["seats"]])
        # the same shape as GET /v1/games/{id} without the caller's view (GameSummarySchema)
        keys = ("id", "game_type", "options", "num_players", "status", "version", "to_move", "outcome")
        items = [
            {k: row[k] for k in keys}
            | {"seats": _seat_items(row["seats"], players)}
            for row in rows
        ]
        return {"items": items, "total": total, "limit": limit, "offset": offset}

    # ------------------------------------------------------------------ commands
    def create_game(
        self,
        identity: Identity,
        body: dict[str, Any],
        game_id: str | None = None,
        reply: tuple[str, str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Create a table. ``game_id`` and ``reply`` (message type, id, body) serve queue requests:
        a fixed id makes a repeated request a no-op, and the reply goes out in the same transaction."""
        if identity.anonymous:
            raise Unauthorized("creating a table needs a player or admin token")
        engine = self.engine(body["game_type"])
        seats: list[str | None] = list(body.get("seats") or [None] * int(body.get("num_players") or 0))
        if not seats:
            raise InvalidRequest("give seats (a list of player ids or nulls) or num_players", field="seats")
        if len(seats) not in engine.player_counts:
            raise InvalidRequest(
                f"{engine.title} takes {', '.join(map(str, engine.player_counts))} players", field="seats"
            )
        if not identity.admin:
            others = [p for p in seats if p is not None and p != identity.player_id]
            if others or seats.count(identity.player_id) > 1:
                raise Forbidden("a player may only seat themselves; organisers seat others", field="seats")
        if any(p is not None and seats.count(p) > 1 for p in seats):
            raise InvalidRequest("a player can take only one seat", field="seats")
        if (body.get("seed") or body.get("setup")) and not identity.admin:
            raise Forbidden("only an admin may fix the seed or prescribe a setup", field="seed")
        try:
            options = engine.normalize_options(len(seats), body.get("options") or {})
        except InvalidOptions as exc:
            raise InvalidRequest(exc.message, field=f"options.{exc.field}", rule=exc.rule) from None
        server_seed = bytes.fromhex(body["seed"]) if body.get("seed") else secrets.token_bytes(32)
        setup = body.get("setup")
        game_id = game_id or str(uuid.uuid4())
        if setup:
            try:  # dry run: the prescribed deal must fit what the game asks for at its start
                open_game(
                    engine,
                    GameConfig(len(seats), options),
                    PrescribedSeeds(server_seed, game_id, (), tuple(tuple(v) for v in setup)),
                )
            except (InvalidSetup, TypeError, ValueError) as exc:
                raise InvalidRequest(str(exc), field="setup") from None
        for p in seats:
            if p is not None:
                _valid_id(p, field="seats")
        created = Pending(
            "GameCreated",
            {
                "game_type": engine.game_type,
                "options": options,
                "num_players": len(seats),
                "seats": seats,
                "commitment": commitment(server_seed),
                "scheme": SCHEME,
                "seed_fixed": bool(body.get("seed")),
                "setup": setup or None,
            },
        )
        table = Table(game_id)
        events = [created]
        scratch = table.clone()
        scratch.apply(engine, created.type, created.payload)
        if all(p is not None for p in seats):
            events += self._start_events(engine, scratch, server_seed)
        with self.uow.begin() as repo:
            repo.insert_game(
                {
                    "id": game_id,
                    "game_type": engine.game_type,
                    "options": options,
                    "num_players": len(seats),
                    "seats": seats,
                    "status": "open",
                },
                server_seed,
            )
            extra = outbox_for(reply[0], reply[1], {**reply[2], "game_id": game_id}) if reply else []
            committed = self._commit(repo, engine, table, events, identity, extra)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    def _start_events(self, engine: Engine[Any], scratch: Table, server_seed: bytes) -> list[Pending]:
        started = Pending(
            "GameStarted", {"players": list(scratch.seats), "client_seeds": list(scratch.client_seeds)}
        )
        scratch.apply(engine, started.type, started.payload)
        seeds = scratch.seeds(server_seed)
        _, opening = open_game(engine, scratch.config, seeds)
        return [started] + [Pending(e["type"], e) for e in opening]

    def join(
        self, identity: Identity, game_id: str, seat: int | None, client_seed: str | None
    ) -> dict[str, Any]:
        if identity.player_id is None:
            raise Unauthorized("joining needs a player token")
        if client_seed is not None and not CLIENT_SEED_PATTERN.match(client_seed):
            raise InvalidRequest(
                "client_seed must be 1-64 characters of A-Z a-z 0-9 _ . -", field="client_seed"
            )
        game_id = _valid_id(game_id)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            if table.status != "open":
                raise Conflict(f"the game is {table.status}; no seat is open", code="game_not_open")
            if identity.player_id in table.seats:
                raise Conflict("you already have a seat at this table", code="already_seated")
            open_seats = [i for i, p in enumerate(table.seats) if p is None]
            if seat is None:
                seat = open_seats[0]
            elif seat not in open_seats:
                raise Conflict(
                    f"seat {seat} is not open (open: {open_seats})", code="seat_taken", field="seat"
                )
            joined = Pending(
                "PlayerJoined", {"seat": seat, "player_id": identity.player_id, "client_seed": client_seed}
            )
            events = [joined]
            scratch = table.clone()
            scratch.apply(engine, joined.type, joined.payload)
            if all(p is not None for p in scratch.seats):
                events += self._start_events(engine, scratch, repo.server_seed(game_id))
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    def seat_bot(self, identity: Identity, game_id: str, seat: int, level: str) -> dict[str, Any]:
        """Put a bot of ``level`` in open seat ``seat``: the table's creator or an admin."""
        if identity.anonymous:
            raise Unauthorized("seating a bot needs the table creator's or the admin token")
        if level not in BOT_LEVELS:
            raise InvalidRequest(f"level must be one of {', '.join(BOT_LEVELS)}", field="level")
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self.load(repo, game_id)
            creator = repo.creator(game_id)
        if not identity.admin and identity.player_id != creator:
            raise Forbidden("only the table's creator or an admin may seat a bot", code="not_creator")
        self._check_open_seat(table, seat)
        if self.bot_accounts is None:
            raise Unavailable("bots are not configured on this server (BOTS_SECRET is unset)", field="level")
        number = next(k for k in range(1, MAX_BOTS_PER_LEVEL + 1) if bot_player_id(level, k) not in table.seats)
        player_id = self.bot_accounts(level, number)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            self._check_open_seat(table, seat)
            if player_id in table.seats:
                raise Conflict("that bot took a seat here meanwhile; retry", code="seat_taken", field="seat")
            events = self._seat_events(engine, repo, table, seat, player_id, None)
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    @staticmethod
    def _check_open_seat(table: Table, seat: int) -> None:
        if table.status != "open":
            raise Conflict(f"the game is {table.status}; no seat is open", code="game_not_open")
        if not 0 <= seat < table.num_players:
            raise NotFound(f"the table has seats 0-{table.num_players - 1}", field="seat")
        if table.seats[seat] is not None:
            open_seats = [i for i, p in enumerate(table.seats) if p is None]
            raise Conflict(f"seat {seat} is not open (open: {open_seats})", code="seat_taken", field="seat")

    def _seat_events(
        self,
        engine: Engine[Any],
        repo: GamesRepository,
        table: Table,
        seat: int,
        player_id: str,
        client_seed: str | None,
    ) -> list[Pending]:
        joined = Pending("PlayerJoined", {"seat": seat, "player_id": player_id, "client_seed": client_seed})
        events = [joined]
        scratch = table.clone()
        scratch.apply(engine, joined.type, joined.payload)
        if all(p is not None for p in scratch.seats):
            events += self._start_events(engine, scratch, repo.server_seed(table.game_id))
        return events

    def bot_seats(self, seats: list[str | None], bots: list[dict[str, Any]]) -> list[str | None]:
        """``seats`` with bot accounts in the seats ``bots`` names (``[{seat, level}]``; matchmaking's
        bot fill): each level's lowest-numbered accounts, none twice."""
        out = list(seats)
        used: dict[str, int] = {}
        for item in bots:
            level, seat = str(item.get("level") or "rules"), int(item["seat"])
            if level not in BOT_LEVELS:
                raise InvalidRequest(f"level must be one of {', '.join(BOT_LEVELS)}", field="bots.level")
            if not 0 <= seat < len(out) or out[seat] is not None:
                raise InvalidRequest(f"seat {seat} is not an open seat", field="bots.seat")
            if self.bot_accounts is None:
                raise Unavailable("bots are not configured on this server (BOTS_SECRET is unset)")
            used[level] = used.get(level, 0) + 1
            out[seat] = self.bot_accounts(level, used[level])
        return out

    def make_move(
        self,
        identity: Identity,
        game_id: str,
        move: dict[str, Any],
        expected_version: int,
        idempotency_key: str | None,
    ) -> tuple[int, dict[str, Any], bool]:
        """Returns (status, body, replayed). With an ``idempotency_key``, every request with that key gets
        the first one's answer (``replayed`` for all but the first) and only the first writes: concurrent
        ones wait on the key inside their transaction; after ``idempotency_wait`` seconds they get 409
        ``idempotency_in_flight`` (retry later)."""
        if identity.player_id is None:
            raise Unauthorized("moves need a player token")
        game_id = _valid_id(game_id)
        request_hash = hashlib.sha256(
            canonical_json({"g": game_id, "m": move, "v": expected_version}).encode()
        ).hexdigest()
        if idempotency_key:
            with self.uow.read() as repo:
                earlier = repo.idempotent_answer(identity.player_id, idempotency_key)
            if earlier is not None:
                return self._replayed(earlier, request_hash)
        try:
            with self.uow.begin() as repo:
                if idempotency_key:
                    repo.lock_idempotency_key(identity.player_id, idempotency_key, self.idempotency_wait)
                    earlier = repo.idempotent_answer(identity.player_id, idempotency_key)
                    if earlier is not None:  # a concurrent request with this key answered meanwhile
                        return self._replayed(earlier, request_hash)
                committed, body = self._move(repo, identity, game_id, move, expected_version)
                if idempotency_key:
                    repo.save_idempotent_answer(
                        identity.player_id, idempotency_key, game_id, request_hash, 201, body
                    )
            self._after_commit(committed)
            return 201, body, False
        except IdempotencyKeyBusy:
            raise IdempotencyInFlight(
                "a request with this Idempotency-Key is still being processed; retry to get its answer",
                retry_after=1,
            ) from None
        except psycopg.errors.UniqueViolation:
            with self.uow.read() as repo:
                earlier = repo.idempotent_answer(identity.player_id, idempotency_key or "")
            if earlier is None:
                raise
            return self._replayed(earlier, request_hash)

    @staticmethod
    def _replayed(
        earlier: tuple[str, str, int, dict[str, Any]], request_hash: str
    ) -> tuple[int, dict[str, Any], bool]:
        _, stored_hash, status, body = earlier
        if stored_hash != request_hash:
            raise InvalidRequest(
                "this Idempotency-Key was used for a different request", field="Idempotency-Key"
            )
        return status, body, True

    def _move(
        self,
        repo: GamesRepository,
        identity: Identity,
        game_id: str,
        move: dict[str, Any],
        expected_version: int,
    ) -> tuple[Committed, dict[str, Any]]:
        table = self.load(repo, game_id)
        engine = self.registry.get(table.game_type)
        seat = table.seat_of(identity.player_id)
        if seat is None:
            raise Forbidden("you have no seat at this table", code="not_seated")
        if table.status != "running" or table.progress is None:
            raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
        if expected_version != table.version:
            raise Conflict(
                f"the game is at version {table.version}, not {expected_version}; reload and retry",
                code="stale_version",
                version=table.version,
            )
        if seat not in engine.to_move(table.progress.state):
            raise Forbidden("it is not your turn", code="not_your_turn", rule="TURN")
        made = Pending("MoveMade", {"seat": seat, "player_id": identity.player_id, "move": move})
        scratch = table.clone()
        scratch.apply(engine, made.type, made.payload)
        assert scratch.progress is not None
        seeds = table.seeds(repo.server_seed(game_id))
        try:
            produced = apply_move(engine, scratch.progress, seat, move, seeds)
        except IllegalMove as exc:
            raise RuleViolation(f"{exc.rule}: {exc.message}", rule=exc.rule, code=exc.code) from None
        events = [made] + [Pending(e["type"], e) for e in produced]
        outcome = engine.outcome(scratch.progress.state)
        if outcome is not None:
            events.append(self._finished(table, outcome, repo.server_seed(game_id)))
        committed = self._commit(repo, engine, table, events, identity)
        viewer = self.viewer_of(committed.table, identity)  # the mover's seat, or everything at the end
        payloads = [p.payload for p in events] if viewer is None else committed.views[viewer]
        return committed, {
            "version": committed.table.version,
            "status": committed.table.status,
            "events": [
                {
                    "version": committed.before + k + 1,
                    "type": p.type,
                    "payload": payload,
                    "recorded_at": committed.recorded_at[k],
                }
                for k, (p, payload) in enumerate(zip(events, payloads, strict=True))
            ],
        }

    def _finished(self, table: Table, outcome: Outcome, server_seed: bytes) -> Pending:
        return Pending(
            "GameFinished",
            {
                "game_type": table.game_type,
                "options": table.options,
                "players": list(table.seats),
                "outcome": outcome.as_dict(),
                "revealed_seed": server_seed.hex(),
            },
        )

    def resign(self, identity: Identity, game_id: str) -> dict[str, Any]:
        if identity.player_id is None:
            raise Unauthorized("resigning needs a player token")
        game_id = _valid_id(game_id)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            seat = table.seat_of(identity.player_id)
            if seat is None:
                raise Forbidden("you have no seat at this table", code="not_seated")
            if table.status != "running":
                raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
            outcome = resign_outcome(table.num_players, seat, table_teams(engine, table))
            events = [
                Pending("PlayerResigned", {"seat": seat, "player_id": identity.player_id}),
                self._finished(table, outcome, repo.server_seed(game_id)),
            ]
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    def abort(self, identity: Identity, game_id: str, reason: str) -> dict[str, Any]:
        if identity.anonymous:
            raise Unauthorized("aborting a game needs the admin token")
        if not identity.admin:
            raise Forbidden("only an admin may abort a game")
        game_id = _valid_id(game_id)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            if table.ended:
                raise Conflict(f"the game is already {table.status}", code=f"game_{table.status}")
            events = [
                Pending(
                    "GameAborted",
                    {
                        "reason": reason,
                        "players": list(table.seats),
                        "game_type": table.game_type,
                        "revealed_seed": repo.server_seed(game_id).hex(),
                    },
                )
            ]
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    # ------------------------------------------------------------------ writing
    def _commit(
        self,
        repo: GamesRepository,
        engine: Engine[Any],
        table: Table,
        events: list[Pending],
        identity: Identity,
        extra_outbox: list[Any] | None = None,
    ) -> Committed:
        """Fold ``events`` onto a copy of ``table``, store them with their per-viewer copies, the read
        model and the outbox in the current transaction; returns the new table."""
        expected = table.version
        new = table.clone()
        views: list[tuple[int, int, str, dict[str, Any]]] = []
        per_viewer: dict[int, list[dict[str, Any]]] = {}
        for pending in events:
            before_state = new.progress.state if new.progress is not None else None
            new.apply(engine, pending.type, pending.payload)
            after_state = new.progress.state if new.progress is not None else None
            for viewer in range(-1, new.num_players):
                redacted = _redact(
                    engine, pending, None if viewer == SPECTATOR else viewer, before_state, after_state
                )
                views.append((viewer, new.version, pending.type, redacted))
                per_viewer.setdefault(viewer, []).append(redacted)
        actor = identity.player_id or ("admin" if identity.admin else None)
        outbox = self._external_requests(engine, table, new) + list(extra_outbox or [])
        outbox += self._bot_turns(repo, engine, new)
        for pending in events:
            if pending.type in {"GameFinished", "GameAborted"}:
                body = {"game_id": table.game_id, **pending.payload}
                outbox += outbox_for(pending.type, f"{table.game_id}:{pending.type}", body)
        try:
            repo.insert_views(table.game_id, views)
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
            repo.update_game(
                table.game_id, new.seats, new.status, new.version, stored[-1].hash, to_move, new.outcome
            )
        except (ConcurrencyConflict, psycopg.errors.UniqueViolation):
            self.cache.forget(table.game_id)
            raise Conflict(
                "another move was recorded first; reload and retry", code="stale_version"
            ) from None
        new.head_hash = stored[-1].hash
        return Committed(new, expected, per_viewer, [e.metadata.get("recorded_at") for e in stored])

    @staticmethod
    def _bot_turns(repo: GamesRepository, engine: Engine[Any], new: Table) -> list[Any]:
        """``BotTurnStarted`` for every bot seat the new version waits for (to the bots worker): after a
        move, the start, a chance or an external answer alike, since they all commit here."""
        if new.progress is None or new.status != "running":
            return []
        seats = engine.to_move(new.progress.state)
        if not seats:
            return []
        players = repo.seat_players([new.seats[s] for s in seats])
        rows: list[Any] = []
        for seat in seats:
            player_id = new.seats[seat]
            level = players.get(player_id, ("", None))[1] if player_id else None
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

    def resolve_external(self, game_id: str, kind: str, request_no: int, result: dict[str, Any]) -> bool:
        """Record another service's answer to a request (idempotent: a late or repeated answer is
        ignored). Returns True when it was recorded."""
        game_id = _valid_id(game_id)
        for _ in range(5):
            try:
                with self.uow.begin() as repo:
                    table = self.load(repo, game_id)
                    engine = self.registry.get(table.game_type)
                    if table.status != "running" or table.progress is None:
                        return False
                    pending = engine.external_request(table.progress.state)
                    if pending is None or pending.kind != kind or pending.request_no != request_no:
                        return False
                    scratch = table.clone()
                    assert scratch.progress is not None
                    seeds = table.seeds(repo.server_seed(game_id))
                    produced = fold(engine, scratch.progress, [external_event(pending, result)])
                    produced += settle_chance(engine, scratch.progress, seeds)
                    events = [Pending(e["type"], e) for e in produced]
                    outcome = engine.outcome(scratch.progress.state)
                    if outcome is not None:
                        events.append(self._finished(table, outcome, repo.server_seed(game_id)))
                    committed = self._commit(repo, engine, table, events, Identity(admin=True))
                self._after_commit(committed)
                return True
            except Conflict:
                continue  # a move landed meanwhile; reload and try again
        raise Conflict("could not record the answer after 5 attempts", code="busy")

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
            self.publish(table.game_id, table.version)
        except Exception as exc:
            log.warning("publish failed: %s", exc)


def _seat_items(seats: list[str | None], players: dict[str, tuple[str, str | None]]) -> list[dict[str, Any]]:
    """The seats as every answer shows them: ``bot`` is ``{"level": ...}`` for a bot, else null."""
    items = []
    for i, p in enumerate(seats):
        name, level = players.get(p, (None, None)) if p else (None, None)
        items.append({"seat": i, "player_id": p, "display_name": name, "bot": {"level": level} if level else None})
    return items


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


__all__ = ["SPECTATOR", "GamesService", "Progress"]
