"""Commands that fill a table: create, join, seat a bot."""

from __future__ import annotations

import secrets
import uuid
from typing import Any

from services.games.adapters.postgres import GamesRepository
from services.games.domain.clock import ClockSettings, InvalidClock, parse_settings
from services.games.domain.length import engine_options, split_options
from services.games.domain.play import (
    InvalidSetup,
    PrescribedSeeds,
    open_game,
)
from services.games.domain.table import Table
from services.games.engines.base import (
    Engine,
    GameConfig,
    InvalidOptions,
)
from services.games.service_layer.core import (
    Pending,
    ServiceCore,
    _valid_id,
)
from services.games.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from shared.auth import Identity
from shared.bots import BOT_LEVELS, MAX_BOTS_PER_LEVEL, bot_player_id
from shared.errors import Unavailable
from shared.fairness import CLIENT_SEED_PATTERN, SCHEME, commitment
from shared.messages import outbox_for


def table_settings(
    engine: Engine[Any], num_players: int, body: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None, ClockSettings | None]:
    """A table's normalized options, its length record and its clock, from a create request's ``options``,
    ``clock`` and ``timeout_policy``; 422 naming the field (and the rule) the games service refuses."""
    try:
        options, max_length = split_options(engine, num_players, body.get("options") or {})
    except InvalidOptions as exc:
        raise InvalidRequest(exc.message, field=f"options.{exc.field}", rule=exc.rule) from None
    try:
        clock = parse_settings(engine.game_type, body.get("clock"), body.get("timeout_policy"))
    except InvalidClock as exc:
        raise InvalidRequest(exc.message, field=exc.field) from None
    return options, max_length, clock


class Seating(ServiceCore):
    def check_tables(self, game_type: str, body: dict[str, Any]) -> dict[str, Any]:
        """What ``POST /v1/games`` would make of tables of each of ``player_counts`` with these ``options``,
        ``clock`` and ``timeout_policy`` (normalized), or the 422 it would answer (naming the field, the rule
        and, in the detail, the table size): the exact check other services make at their door, where
        the options schema cannot say it (an option against the table size: HP-47). Writes nothing."""
        engine = self.engine(game_type)
        tables = []
        settings: ClockSettings | None = None
        for n in body["player_counts"]:
            if n not in engine.player_counts:
                raise InvalidRequest(
                    f"{engine.title} takes {', '.join(map(str, engine.player_counts))} players, not {n}",
                    field="player_counts",
                )
            try:
                options, max_length, settings = table_settings(engine, n, body)
            except InvalidRequest as exc:
                rule = {"rule": exc.extra["rule"]} if exc.extra.get("rule") else {}
                raise InvalidRequest(f"at a table of {n}: {exc.detail}", field=exc.field, **rule) from None
            tables.append({"num_players": n, "options": options, "max_length": max_length})
        return {
            "game_type": engine.game_type,
            "tables": tables,
            "clock": settings.as_dict() if settings else None,
            "timeout_policy": settings.timeout_policy if settings else None,
        }

    def refuse_queued_request(self, request_id: str, game_type: str, refusal: InvalidRequest) -> None:
        """A queue's CreateGameRequested the games service refuses (unknown game type, options the table
        size does not allow ...): GameCreationRefused goes back with the reason, the field and the rule,
        instead of the job failing for ever. The message id is fixed, so a repeated request changes nothing."""
        body = {
            "request_id": request_id,
            "game_type": game_type,
            "reason": refusal.detail,
            "field": refusal.field,
            "rule": refusal.extra.get("rule"),
        }
        with self.uow.begin() as repo:
            repo.write_outbox(outbox_for("GameCreationRefused", f"game-refused:{request_id}", body))

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
        options, max_length, clock = table_settings(engine, len(seats), body)
        server_seed = bytes.fromhex(body["seed"]) if body.get("seed") else secrets.token_bytes(32)
        setup = body.get("setup")
        game_id = game_id or str(uuid.uuid4())
        if setup:
            try:  # dry run: the prescribed deal must fit what the game asks for at its start
                open_game(
                    engine,
                    GameConfig(len(seats), engine_options(options, max_length)),
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
                "max_length": max_length,
            }
            | ({"clock": clock.as_dict(), "timeout_policy": clock.timeout_policy} if clock else {}),
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
