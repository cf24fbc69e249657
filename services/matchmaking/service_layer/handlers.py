"""Use cases of the matchmaking service: leagues and disputes here; queue tickets, matching and private
tables in :mod:`tables`, the organiser's league operations in :mod:`leagues`, the messages from the
games service in :mod:`messages`."""

from __future__ import annotations

import csv
import io
import logging
import uuid
from collections.abc import Callable
from typing import Any

from services.matchmaking.adapters.ports import GamesPort, RatingsPort
from services.matchmaking.adapters.postgres import MatchmakingRepository, UnitOfWork
from services.matchmaking.domain.league import TIE_BREAKS, Event, League, LeagueError, standings
from services.matchmaking.domain.matching import MatchPolicy, pool_for
from services.matchmaking.service_layer.common import _timing, _valid_uuid
from services.matchmaking.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from services.matchmaking.service_layer.leagues import LeagueOperations
from services.matchmaking.service_layer.messages import CONSUMER, MessageHandlers
from services.matchmaking.service_layer.permissions import ADMIN, principal_of, require_league_command
from services.matchmaking.service_layer.tables import TicketsAndTables
from shared.auth import Identity
from shared.eventstore.model import NewEvent, OutboxMessage
from shared.messages import outbox_for
from shared.players import player_refs

log = logging.getLogger(__name__)
ACTIVE = ("waiting", "matched")
__all__ = ["ACTIVE", "CONSUMER", "MatchmakingService", "_valid_uuid"]


class MatchmakingService(LeagueOperations, TicketsAndTables, MessageHandlers):
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
            elif kind == "ForfeitRecorded" and league.tables[payload["request_id"]].game_id \
                    and payload.get("by") != "clock":  # by the clock: the game ended so, nothing to abort
                game_id = league.tables[payload["request_id"]].game_id
                outbox += outbox_for("GameAbortRequested", f"abort:{payload['request_id']}", {
                    "game_id": game_id,
                    "reason": f"league {league.league_id}: forfeit recorded ({payload.get('reason') or 'no reason'})",
                })
            elif kind == "TableVoided" and league.tables[payload["request_id"]].game_id:
                outbox += outbox_for("GameAbortRequested", f"abort:{payload['request_id']}", {
                    "game_id": league.tables[payload["request_id"]].game_id,
                    "reason": f"league {league.league_id}: table voided ({payload['reason']})",
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
        options, clock, policy = league.table_settings(t)
        timing = _timing(clock, policy)
        repo.insert_table({
            "request_id": request_id, "kind": "league", "game_type": league.game_type, "options": options,
            "size": len(t.seats), "seats": t.seats, "reason": t.reason, "league_id": league.league_id,
            "status": "requested", **timing,
        })
        body = {"request_id": request_id, "game_type": league.game_type, "options": options, "seats": t.seats}
        body |= {k: v for k, v in timing.items() if v is not None}
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
        clock, policy = self._check_game(body["game_type"], sizes, body.get("options") or {}, "table_sizes",
                                         body.get("clock"), body.get("timeout_policy"))
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
                                       principal_of(identity), body.get("rules"), clock, policy)
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
                "tables": [t.as_dict() | {"players": player_refs(t.seats, names)} for t in league.round_tables(r)],
                "byes": league.byes.get(r, []),
                "bye_players": player_refs(league.byes.get(r, []), names),
            })
        return {
            "id": league.league_id, "name": league.name, "game_type": league.game_type, "options": league.options,
            "participants": player_refs(league.participants, names),
            "rounds": league.rounds, "table_sizes": league.table_sizes, "format": league.format,
            "status": league.status, "seated_rounds": league.seated_rounds, "version": league.version,
            "schedule": rounds, "disputes": [d.as_dict() for d in league.disputes.values()],
            "rules": league.rules.as_dict(),
            "clock": league.clock, "timeout_policy": league.timeout_policy,
            "withdrawals": [w | {"display_name": names.get(w["player_id"])} for w in league.withdrawn.values()],
            "late_entries": [e | {"display_name": names.get(e["player_id"])} for e in league.entered.values()],
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
