"""Use cases of the matchmaking service: queue tickets, private tables, leagues, disputes and the
messages from the games service."""

from __future__ import annotations

import csv
import io
import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from services.matchmaking.adapters.ports import GamesPort, RatingsPort
from services.matchmaking.adapters.postgres import MatchmakingRepository, UnitOfWork
from services.matchmaking.domain.league import TIE_BREAKS, Event, League, LeagueError, standings
from services.matchmaking.domain.matching import (
    TEAM,
    MatchPolicy,
    Rating,
    Ticket,
    bot_tables,
    find_tables,
    pool_for,
)
from services.matchmaking.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from services.matchmaking.service_layer.leagues import LeagueOperations
from services.matchmaking.service_layer.permissions import ADMIN, principal_of, require_league_command
from services.matchmaking.service_layer.validation import check_table_request
from shared.auth import Identity
from shared.eventstore.model import NewEvent, OutboxMessage
from shared.messages import outbox_for
from shared.player_names import NAME_MESSAGES, parse_name_message

log = logging.getLogger(__name__)
CONSUMER = "matchmaking"
ACTIVE = ("waiting", "matched")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def _valid_uuid(value: str, what: str, field: str | None = None) -> str:
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        if field:
            raise InvalidRequest(f"{value!r} is not a valid id", field=field) from None
        raise NotFound(f"no {what} {value}") from None


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


class MatchmakingService(LeagueOperations):
    def __init__(
        self,
        uow: UnitOfWork,
        ratings: RatingsPort,
        games: GamesPort,
        policy: MatchPolicy | None = None,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self.uow = uow
        self.ratings = ratings
        self.games = games
        self.policy = policy or MatchPolicy()
        self.new_id = new_id

    # ================================================================== tickets
    def _require_player(self, identity: Identity) -> str:
        if identity.player_id is None:
            raise Unauthorized("this needs a player token (Authorization: Bearer <token>)")
        return identity.player_id

    def _check_game(
        self, game_type: str, counts: Sequence[int], options: dict[str, Any], counts_field: str = "player_counts"
    ) -> None:
        """422 for what the games service would refuse, 503 when it does not answer (service_layer.validation)."""
        check_table_request(self.games.game_types(), game_type, counts, options, counts_field)

    def create_ticket(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        player = self._require_player(identity)
        counts = sorted(set(body["player_counts"]))
        mode = body.get("mode", "solo")
        if mode == TEAM and any(n % 2 or n < 4 for n in counts):
            raise InvalidRequest("team tables need an even number of at least 4 players", field="player_counts")
        self._check_game(body["game_type"], counts, body.get("options") or {})
        pool = pool_for(body["game_type"], max(counts), mode)
        rating, source = self.ratings.rating(pool, player)
        ticket_id = self.new_id()
        with self.uow.begin() as repo:
            self._no_active_ticket(repo, player)
            repo.insert_ticket({
                "id": ticket_id, "player_id": player, "game_type": body["game_type"],
                "options": body.get("options") or {}, "player_counts": counts, "mode": mode, "pool": pool,
                "mu": rating.mu, "sigma": rating.sigma, "rating_source": source, "status": "waiting",
                "allow_bots": bool(body.get("allow_bots")), "bot_level": body.get("bot_level") or "rules",
            })
        self.tick()
        return self.get_ticket(identity, ticket_id)

    def _no_active_ticket(self, repo: MatchmakingRepository, player: str) -> None:
        active = repo.active_ticket_of(player)
        if active is not None:
            raise Conflict(
                f"you already have an active ticket {active['id']}; leave it first", code="active_ticket",
                ticket_id=active["id"],
            )

    def get_ticket(self, identity: Identity, ticket_id: str) -> dict[str, Any]:
        ticket_id = _valid_uuid(ticket_id, "ticket")
        with self.uow.read() as repo:
            ticket = repo.ticket(ticket_id)
            if ticket is None:
                raise NotFound(f"no ticket {ticket_id}")
            if not identity.admin and identity.player_id != ticket["player_id"]:
                if identity.anonymous:
                    raise Unauthorized("reading a ticket needs its player's token")
                raise Forbidden("this ticket belongs to another player")
            table = repo.table(ticket["table_id"]) if ticket["table_id"] else None
            now = repo.now()
        return self._ticket_view(ticket, table, now)

    def _ticket_view(
        self, t: dict[str, Any], table: dict[str, Any] | None, now: datetime
    ) -> dict[str, Any]:
        return {
            "id": t["id"],
            "player_id": t["player_id"],
            "game_type": t["game_type"],
            "options": t["options"],
            "player_counts": t["player_counts"],
            "mode": t["mode"],
            "allow_bots": bool(t.get("allow_bots")),
            "bot_level": t.get("bot_level") or "rules",
            "status": t["status"],
            "rating": {"pool": t["pool"], "mu": t["mu"], "sigma": t["sigma"], "source": t["rating_source"]},
            "waited_seconds": round(((t["updated_at"] if t["status"] != "waiting" else now)
                                     - t["created_at"]).total_seconds(), 3),
            "table_id": t["table_id"],
            "private": bool(table and table["kind"] == "private"),
            "seat": t["seat"],
            "team": t["team"],
            "seats": table["seats"] if table else None,
            "teams": table["teams"] if table else None,
            "reason": table["reason"] if table else None,
            "invite_code": table["invite_code"] if table and table["kind"] == "private" else None,
            "game_id": t["game_id"],
            "failure": table["failure"] if table and t["status"] == "failed" else None,
            "created_at": _iso(t["created_at"]),
            "updated_at": _iso(t["updated_at"]),
        }

    def ticket_status(self, identity: Identity, ticket_id: str) -> tuple[str, dict[str, Any]]:
        view = self.get_ticket(identity, ticket_id)
        return view["status"], view

    def cancel_ticket(self, identity: Identity, ticket_id: str) -> dict[str, Any]:
        player = self._require_player(identity)
        ticket_id = _valid_uuid(ticket_id, "ticket")
        with self.uow.begin() as repo:
            ticket = repo.ticket(ticket_id, lock=True)
            if ticket is None:
                raise NotFound(f"no ticket {ticket_id}")
            if ticket["player_id"] != player:
                raise Forbidden("this ticket belongs to another player")
            if ticket["status"] == "cancelled":
                return self._ticket_view(ticket, None, repo.now())
            if ticket["status"] != "waiting":
                raise Conflict(f"the ticket is {ticket['status']}: its table has formed", code="ticket_matched")
            if ticket["table_id"]:  # leave a private table that is still filling
                table = repo.table(ticket["table_id"], lock=True)
                assert table is not None
                seats = [p for p in table["seats"] if p != player]
                repo.update_table(table["request_id"], seats=seats)
                for k, other in enumerate(t for t in repo.tickets_at_table(table["request_id"])
                                          if t["id"] != ticket_id and t["status"] == "waiting"):
                    repo.update_ticket(other["id"], seat=k)
            repo.update_ticket(ticket_id, status="cancelled", seat=None)
            ticket = repo.ticket(ticket_id)
            assert ticket is not None
            return self._ticket_view(ticket, None, repo.now())

    # ================================================================== matching
    def tick(self, now: float | None = None) -> list[str]:
        """One matching run over every waiting queue ticket; returns the request ids of new tables."""
        formed: list[str] = []
        with self.uow.begin() as repo:
            repo.lock_matching()
            rows = repo.waiting_tickets()
            if not rows:
                return []
            moment = now if now is not None else repo.now().timestamp()
            tickets = [
                Ticket(r["id"], r["player_id"], r["game_type"], r["options"], tuple(r["player_counts"]), r["mode"],
                       r["created_at"].timestamp(), Rating(r["mu"], r["sigma"]), bool(r.get("allow_bots")),
                       r.get("bot_level") or "rules")
                for r in rows
            ]
            ratings = {t.player_id: t.rating for t in tickets}

            def predict(pool: str, teams: Sequence[Sequence[str]]) -> Sequence[float]:
                return self.ratings.predict(pool, teams, ratings)

            proposals = find_tables(tickets, moment, self.policy, predict)
            taken = {t.id for p in proposals for t in p.tickets}
            proposals += bot_tables(tickets, moment, self.policy, taken)  # waited long enough: bots fill
            for proposal in proposals:
                request_id = self.new_id()
                team_of = {s: k for k, team in enumerate(proposal.teams or ()) for s in team}
                repo.insert_table({
                    "request_id": request_id, "kind": "queue", "game_type": proposal.game_type,
                    "options": dict(proposal.options), "size": len(proposal.tickets), "seats": proposal.seats,
                    "teams": [list(t) for t in proposal.teams] if proposal.teams else None,
                    "reason": proposal.reason, "status": "requested",
                })
                for seat, ticket in enumerate(proposal.tickets):
                    repo.update_ticket(ticket.id, status="matched", table_id=request_id, seat=seat,
                                       team=team_of.get(seat))
                bots = [{"seat": seat, "level": level} for seat, level in proposal.bots]
                self._request_game(repo, request_id, proposal.game_type, dict(proposal.options), proposal.seats,
                                   {"kind": "queue", "tickets": [t.id for t in proposal.tickets],
                                    "reason": proposal.reason}, bots)
                formed.append(request_id)
        return formed

    def _request_game(
        self, repo: MatchmakingRepository, request_id: str, game_type: str, options: dict[str, Any],
        seats: list[str | None], detail: dict[str, Any], bots: list[dict[str, Any]] | None = None,
    ) -> None:
        body: dict[str, Any] = {"request_id": request_id, "game_type": game_type, "options": options, "seats": seats}
        if bots:  # the games service puts bot accounts in these seats
            body["bots"] = bots
        repo.append(
            f"table-{request_id}", 0, [NewEvent("TableFormed", {**body, **detail})],
            outbox_for("CreateGameRequested", f"create:{request_id}", body),
        )

    # ================================================================== private tables
    def create_private_table(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        player = self._require_player(identity)
        self._check_game(body["game_type"], [body["num_players"]], body.get("options") or {}, "num_players")
        request_id, ticket_id = self.new_id(), self.new_id()
        pool = pool_for(body["game_type"], body["num_players"], "solo")
        with self.uow.begin() as repo:
            self._no_active_ticket(repo, player)
            code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
            repo.insert_table({
                "request_id": request_id, "kind": "private", "game_type": body["game_type"],
                "options": body.get("options") or {}, "size": body["num_players"], "seats": [player],
                "reason": "private table: seats in the order players joined", "invite_code": code,
                "created_by": player, "status": "open",
            })
            repo.insert_ticket({
                "id": ticket_id, "player_id": player, "game_type": body["game_type"],
                "options": body.get("options") or {}, "player_counts": [body["num_players"]], "mode": "solo",
                "pool": pool, "mu": 25.0, "sigma": 25.0 / 3.0, "rating_source": "not used",
                "status": "waiting", "table_id": request_id, "seat": 0,
            })
            return self._private_view(repo, request_id, player, ticket_id)

    def join_private_table(self, identity: Identity, code: str) -> dict[str, Any]:
        player = self._require_player(identity)
        with self.uow.begin() as repo:
            table = repo.table_by_code(code.strip().upper())
            if table is None:
                raise NotFound("no private table has this invite code", field="code")
            if player in table["seats"]:
                raise Conflict("you are seated at this table already", code="already_seated")
            if table["status"] != "open" or len(table["seats"]) >= table["size"]:
                raise Conflict("this table is full", code="table_full")
            self._no_active_ticket(repo, player)
            seats = [*table["seats"], player]
            ticket_id = self.new_id()
            repo.insert_ticket({
                "id": ticket_id, "player_id": player, "game_type": table["game_type"], "options": table["options"],
                "player_counts": [table["size"]], "mode": "solo",
                "pool": pool_for(table["game_type"], table["size"], "solo"), "mu": 25.0, "sigma": 25.0 / 3.0,
                "rating_source": "not used", "status": "waiting", "table_id": table["request_id"],
                "seat": len(seats) - 1,
            })
            if len(seats) == table["size"]:
                repo.update_table(table["request_id"], seats=seats, status="requested")
                repo.set_table_tickets(table["request_id"], "matched")
                self._request_game(repo, table["request_id"], table["game_type"], table["options"], seats,
                                   {"kind": "private"})
            else:
                repo.update_table(table["request_id"], seats=seats)
            return self._private_view(repo, table["request_id"], player, ticket_id)

    def get_private_table(self, identity: Identity, table_id: str) -> dict[str, Any]:
        if not identity.admin:
            self._require_player(identity)
        with self.uow.read() as repo:
            table = repo.table(table_id)
            if table is None or table["kind"] != "private":
                raise NotFound(f"no private table {table_id}")
            if not identity.admin and identity.player_id not in table["seats"]:
                raise Forbidden("only players seated at a private table may see it")
            mine = next((t["id"] for t in repo.tickets_at_table(table_id)
                         if t["player_id"] == identity.player_id and t["status"] != "cancelled"), None)
            return self._private_view(repo, table_id, identity.player_id, mine)

    def _private_view(
        self, repo: MatchmakingRepository, table_id: str, viewer: str | None, ticket_id: str | None
    ) -> dict[str, Any]:
        table = repo.table(table_id)
        assert table is not None
        return {
            "id": table["request_id"], "game_type": table["game_type"], "options": table["options"],
            "num_players": table["size"], "seats": table["seats"], "invite_code": table["invite_code"],
            "status": table["status"], "game_id": table["game_id"], "your_ticket_id": ticket_id,
            "created_by": table["created_by"], "created_at": _iso(table["created_at"]),
        }

    # ================================================================== messages
    def handle_message(self, message: dict[str, Any]) -> None:
        kind, body, message_id = message["type"], message["body"], str(message["message_id"])
        if kind in NAME_MESSAGES:
            self._on_name(message_id, body)
            return
        handlers = {
            "GameCreatedForTable": self._on_game_created,
            "GameCreationRefused": self._on_game_refused,
            "GameFinished": self._on_game_finished,
            "GameAborted": self._on_game_aborted,
        }
        if kind not in handlers:
            raise ValueError(f"the matchmaking queue does not handle {kind!r}")
        with self.uow.begin() as repo:
            if not repo.first_time(CONSUMER, message_id):
                log.info("message %s seen before", message_id)
                return
            handlers[kind](repo, body)

    def _on_name(self, message_id: str, body: Any) -> None:
        """PlayerRegistered / PlayerRenamed: keep the newest display name for leagues and standings."""
        player_id, name, version = parse_name_message(body)
        with self.uow.begin() as repo:
            if repo.first_time(CONSUMER, message_id):
                repo.save_name(player_id, name, version)

    def _on_game_created(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table(str(body["request_id"]), lock=True)
        if table is None:
            log.warning("GameCreatedForTable for unknown request %s", body["request_id"])
            return
        game_id = str(body["game_id"])
        if table["status"] in {"open", "requested"}:
            repo.update_table(table["request_id"], status="created", game_id=game_id)
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: [
                ("TableGameCreated", {"request_id": table["request_id"], "game_id": game_id})
            ] if lg.tables[table["request_id"]].game_id is None else [])
        else:
            repo.set_table_tickets(table["request_id"], "ready", game_id)

    def _on_game_refused(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        """GameCreationRefused: the table (and its tickets, or the league's table) is ``failed`` with the
        games service's reason; a league table then waits for its organiser to re-seat it."""
        table = repo.table(str(body["request_id"]), lock=True)
        if table is None:
            log.warning("GameCreationRefused for unknown request %s", body["request_id"])
            return
        if table["status"] not in {"open", "requested"}:
            return
        failure = {"reason": str(body.get("reason") or "refused by the games service"),
                   "field": body.get("field"), "rule": body.get("rule")}
        repo.update_table(table["request_id"], status="failed", failure=failure)
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: [
                ("TableCreationFailed", {"request_id": table["request_id"], **failure})
            ] if lg.tables[table["request_id"]].status == "requested" else [])
        else:
            repo.set_table_tickets(table["request_id"], "failed")

    def _on_game_finished(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table_by_game(str(body["game_id"]))
        if table is None:
            log.info("GameFinished for game %s not seated here", body["game_id"])
            return
        repo.update_table(table["request_id"], status="finished")
        outcome = body.get("outcome") or {}
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: lg.record_result(
                str(body["game_id"]), list(body["players"]), list(outcome["ranks"]),
                list(outcome.get("scores") or [0.0] * len(outcome["ranks"])), str(outcome.get("reason", "")),
            ))
        else:
            repo.set_table_tickets(table["request_id"], "finished")

    def _on_game_aborted(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table_by_game(str(body["game_id"]))
        if table is None:
            return
        repo.update_table(table["request_id"], status="aborted")
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: lg.record_abort(
                str(body["game_id"]), str(body.get("reason", "aborted"))))
        else:
            repo.set_table_tickets(table["request_id"], "aborted")

    # ================================================================== leagues
    def _load_league(self, repo: MatchmakingRepository, league_id: str) -> League:
        events = repo.read_stream(f"league-{league_id}")
        if not events:
            raise NotFound(f"no league {league_id}")
        return League.fold([(e.type, e.payload) for e in events])

    def _league_change(
        self, repo: MatchmakingRepository, league_id: str, decide: Callable[[League], list[Event]]
    ) -> League:
        if not repo.lock_league(league_id):
            raise NotFound(f"no league {league_id}")
        league = self._load_league(repo, league_id)
        try:
            events = decide(league)
        except LeagueError as exc:
            if exc.conflict:
                raise Conflict(str(exc), field=exc.field) from None
            raise InvalidRequest(str(exc), field=exc.field) from None
        self._commit_league(repo, league, events)
        return league

    def _commit_league(self, repo: MatchmakingRepository, league: League, events: list[Event]) -> None:
        if not events:
            return
        expected = league.version
        outbox: list[OutboxMessage] = []
        seated: list[str] = []
        for kind, payload in events:
            league.apply(kind, payload)
            if kind == "RoundSeated":
                seated += [t["request_id"] for t in payload["tables"]]
            elif kind == "TableReseated":
                seated.append(payload["new_request_id"])
            elif kind == "ForfeitRecorded" and league.tables[payload["request_id"]].game_id:
                game_id = league.tables[payload["request_id"]].game_id
                outbox += outbox_for("GameAbortRequested", f"abort:{payload['request_id']}", {
                    "game_id": game_id,
                    "reason": f"league {league.league_id}: forfeit recorded ({payload.get('reason') or 'no reason'})",
                })
            elif kind == "DisputeRuled" and payload["ruling"] in {"void", "replay"}:
                outbox += outbox_for("GameVoided", f"void:{payload['dispute_id']}", {
                    "game_id": payload["game_id"],
                    "reason": f"league {league.league_id}: ruled {payload['ruling']} on dispute {payload['dispute_id']}"
                              + (f": {payload['note']}" if payload.get("note") else ""),
                })
                if payload["ruling"] == "replay":
                    seated.append(payload["replay_request_id"])
        for request_id in seated:  # not those forfeited at once (a withdrawn player under the forfeit rule)
            if league.tables[request_id].status == "requested":
                outbox += self._league_table(repo, league, request_id)
        repo.append(f"league-{league.league_id}", expected,
                    [NewEvent(k, p, {"correlation_id": league.league_id}) for k, p in events], outbox)
        repo.update_league(league.league_id, league.status, league.seated_rounds)

    def _league_table(self, repo: MatchmakingRepository, league: League, request_id: str) -> list[OutboxMessage]:
        t = league.tables[request_id]
        repo.insert_table({
            "request_id": request_id, "kind": "league", "game_type": league.game_type, "options": league.options,
            "size": len(t.seats), "seats": t.seats, "reason": t.reason, "league_id": league.league_id,
            "status": "requested",
        })
        body = {"request_id": request_id, "game_type": league.game_type, "options": league.options,
                "seats": t.seats}
        return outbox_for("CreateGameRequested", f"create:{request_id}", body)

    def _require_admin(self, identity: Identity) -> None:
        """Organiser or admin token (kept for league use cases): which league is whose is checked by
        ``authorize_league``, which the HTTP blueprint runs before every league command; a new league use
        case calls ``self.authorize_league(identity, league_id)`` itself."""
        if identity.anonymous:
            raise Unauthorized("this needs the league's organiser token (or the admin token)")
        if not (identity.admin or identity.organiser):
            raise Forbidden("only the league's organiser (or the admin) may do this")

    def authorize_league(self, identity: Identity, league_id: str | None, player_may: bool = False) -> None:
        """The permission check of every league command (service_layer.permissions); ``league_id`` None:
        creating one. 404 for an unknown league."""
        if league_id is None:
            require_league_command(identity, None)
            return
        league_id = _valid_uuid(league_id, "league")
        with self.uow.read() as repo:
            events = repo.read_stream(f"league-{league_id}")
        if not events:
            raise NotFound(f"no league {league_id}")
        require_league_command(identity, str(events[0].payload.get("created_by") or ADMIN), player_may)

    def create_league(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        self.authorize_league(identity, None)
        participants = [_valid_uuid(p, "player", field="participants") for p in body["participants"]]
        sizes = sorted(set(body["table_sizes"]), reverse=True)
        self._check_game(body["game_type"], sizes, body.get("options") or {}, "table_sizes")
        if body.get("seeding") == "rating":
            pool = pool_for(body["game_type"], sizes[0], "solo")
            mus = {p: self.ratings.rating(pool, p)[0].mu for p in participants}
            participants = sorted(participants, key=lambda p: (-mus[p], participants.index(p)))
        league_id = self.new_id()
        with self.uow.begin() as repo:
            missing = [p for p in participants if p not in repo.existing_players(participants)]
            if missing:
                raise InvalidRequest(f"unknown players: {', '.join(missing)}", field="participants")
            try:
                events = League.create(league_id, body["name"], body["game_type"], body.get("options") or {},
                                       participants, body["rounds"], sizes, body.get("format", "auto"),
                                       principal_of(identity), body.get("rules"))
            except LeagueError as exc:
                raise InvalidRequest(str(exc), field=exc.field) from None
            repo.insert_league(league_id, body["name"], body["game_type"], body["rounds"])
            self._commit_league(repo, League(), events)
        return self.get_league(league_id)

    def list_leagues(self, limit: int, offset: int) -> dict[str, Any]:
        with self.uow.read() as repo:
            items, total = repo.list_leagues(limit, offset)
        return {"items": items, "total": total, "limit": limit, "offset": offset}

    def _read_league(self, league_id: str) -> tuple[League, dict[str, str]]:
        league_id = _valid_uuid(league_id, "league")
        with self.uow.read() as repo:
            league = self._load_league(repo, league_id)
            names = repo.display_names(league.participants)
        return league, names

    def get_league(self, league_id: str) -> dict[str, Any]:
        league, names = self._read_league(league_id)
        rounds = []
        for r in range(1, league.seated_rounds + 1):
            rounds.append({
                "round": r,
                "complete": league.round_complete(r),
                "tables": [t.as_dict() for t in league.round_tables(r)],
                "byes": league.byes.get(r, []),
            })
        return {
            "id": league.league_id, "name": league.name, "game_type": league.game_type, "options": league.options,
            "participants": [{"player_id": p, "display_name": names.get(p)} for p in league.participants],
            "rounds": league.rounds, "table_sizes": league.table_sizes, "format": league.format,
            "status": league.status, "seated_rounds": league.seated_rounds, "version": league.version,
            "schedule": rounds, "disputes": [d.as_dict() for d in league.disputes.values()],
            "rules": league.rules.as_dict(),
            "withdrawals": list(league.withdrawn.values()),
            "late_entries": list(league.entered.values()),
            "pairing_overrides": [league.overrides[r] for r in sorted(league.overrides)],
        }

    def standings(self, league_id: str) -> dict[str, Any]:
        league, names = self._read_league(league_id)
        return self._standings(league, names)

    def _standings(self, league: League, names: dict[str, str]) -> dict[str, Any]:
        rows = standings(league)
        for row in rows:
            row["display_name"] = names.get(row["player_id"])
        return {
            "league_id": league.league_id, "status": league.status, "tie_breaks": list(TIE_BREAKS),
            "provisional": bool(league.open_disputes()),
            "disputed_games": [d.game_id for d in league.open_disputes()],
            "rows": rows,
        }

    def export(self, league_id: str, fmt: str) -> tuple[str, str]:
        """(media type, document) of a league's standings and games as JSON or CSV."""
        league, names = self._read_league(league_id)
        table = self._standings(league, names)
        if fmt == "csv":
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            columns = ["place", "player_id", "display_name", "points", "buchholz", "wins", "score", "games",
                       "byes", "provisional", "decided_by"]
            writer.writerow(columns)
            for row in table["rows"]:
                writer.writerow([row[c] for c in columns])
            return "text/csv", out.getvalue()
        import json

        document = {"league": self.get_league(league_id), "standings": table}
        return "application/json", json.dumps(document, default=str)

    def league_events(self, league_id: str) -> dict[str, Any]:
        league_id = _valid_uuid(league_id, "league")
        with self.uow.read() as repo:
            events = repo.read_stream(f"league-{league_id}")
        if not events:
            raise NotFound(f"no league {league_id}")
        return {"league_id": league_id, "events": [
            {"version": e.version, "type": e.type, "payload": e.payload,
             "recorded_at": e.metadata.get("recorded_at"), "hash": e.hash} for e in events
        ]}

    # ================================================================== disputes
    def open_dispute(self, identity: Identity, league_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """The league's organiser (or the admin), or a player about a game they played in."""
        self.authorize_league(identity, league_id, player_may=True)
        league_id = _valid_uuid(league_id, "league")
        game_id = _valid_uuid(body["game_id"], "game", field="game_id")
        with self.uow.read() as repo:  # fail fast before asking the games service
            league = self._load_league(repo, league_id)
        played = league.table_for_game(game_id)
        if identity.player_id is not None and played is not None and identity.player_id not in played.seats:
            raise Forbidden("a player may file a dispute only about a game they played in", field="game_id",
                            code="not_your_game")
        try:
            league.open_dispute("check", game_id, body["reason"], {})
        except LeagueError as exc:
            raise (Conflict if exc.conflict else InvalidRequest)(str(exc), field=exc.field) from None
        audit = self.games.audit(game_id)
        dispute_id = self.new_id()
        with self.uow.begin() as repo:
            self._league_change(repo, league_id, lambda lg: [
                (kind, {**payload, "filed_by": principal_of(identity)})
                for kind, payload in lg.open_dispute(dispute_id, game_id, body["reason"], audit)
            ])
        return self.get_dispute(league_id, dispute_id)

    def get_dispute(self, league_id: str, dispute_id: str) -> dict[str, Any]:
        league, _ = self._read_league(league_id)
        dispute = league.disputes.get(dispute_id)
        if dispute is None:
            raise NotFound(f"no dispute {dispute_id} in league {league_id}")
        return dispute.as_dict()

    def rule(self, identity: Identity, league_id: str, dispute_id: str, body: dict[str, Any]) -> dict[str, Any]:
        self.authorize_league(identity, league_id)
        league_id = _valid_uuid(league_id, "league")
        with self.uow.begin() as repo:
            league = self._load_league(repo, league_id)
            if dispute_id not in league.disputes:
                raise NotFound(f"no dispute {dispute_id} in league {league_id}")
            self._league_change(repo, league_id, lambda lg: lg.rule(dispute_id, body["ruling"], body.get("note")))
        return self.get_dispute(league_id, dispute_id)
