"""Use cases of queue tickets, matching and private tables (a mixin of :class:`MatchmakingService`):
each checked at the door (game type, table sizes, options and clock, against the games service's
``GET /v1/game-types`` and its table check) and sent to the games service as ``CreateGameRequested``
with the table's clock."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from services.matchmaking.adapters.ports import GamesPort, RatingsPort
from services.matchmaking.adapters.postgres import MatchmakingRepository
from services.matchmaking.domain.matching import (
    TEAM,
    MatchPolicy,
    Rating,
    Ticket,
    bot_tables,
    find_tables,
    pool_for,
)
from services.matchmaking.service_layer.common import _iso, _timing, _valid_uuid
from services.matchmaking.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from services.matchmaking.service_layer.validation import check_table_request, check_tables_answer
from shared.auth import Identity
from shared.eventstore.model import NewEvent
from shared.messages import outbox_for
from shared.players import player_ref, player_refs

if TYPE_CHECKING:
    from services.matchmaking.adapters.postgres import UnitOfWork

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


class TicketsAndTables:
    """``/v1/tickets``, ``/v1/matching/tick`` and ``/v1/private-tables``."""

    if TYPE_CHECKING:  # provided by MatchmakingService
        uow: UnitOfWork
        ratings: RatingsPort
        games: GamesPort
        policy: MatchPolicy
        new_id: Callable[[], str]

    def _require_player(self, identity: Identity) -> str:
        if identity.player_id is None:
            raise Unauthorized("this needs a player token (Authorization: Bearer <token>)")
        return identity.player_id

    def _check_game(
        self, game_type: str, counts: Sequence[int], options: dict[str, Any], counts_field: str = "player_counts",
        clock: dict[str, Any] | None = None, timeout_policy: str | None = None,
    ) -> tuple[dict[str, Any] | None, str | None]:
        """422 for what the games service would refuse, 503 when it does not answer (service_layer.validation):
        first against the schemas of its ``GET /v1/game-types`` (every invalid field at once), then the
        table sizes with these options and clock by its table check (HP-47: team mode needs 4). Returns
        the clock and timeout policy as the games service normalizes them (defaults filled in)."""
        check_table_request(self.games.game_types(), game_type, counts, options, counts_field, clock, timeout_policy)
        answer = check_tables_answer(
            self.games.check_tables(game_type, counts, options, clock, timeout_policy), counts_field)
        return answer.get("clock"), answer.get("timeout_policy")

    def create_ticket(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        player = self._require_player(identity)
        counts = sorted(set(body["player_counts"]))
        mode = body.get("mode", "solo")
        if mode == TEAM and any(n % 2 or n < 4 for n in counts):
            raise InvalidRequest("team tables need an even number of at least 4 players", field="player_counts")
        clock, policy = self._check_game(body["game_type"], counts, body.get("options") or {}, "player_counts",
                                         body.get("clock"), body.get("timeout_policy"))
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
                "clock": clock, "timeout_policy": policy,
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
            names = repo.display_names([ticket["player_id"], *(table["seats"] if table else [])])
            now = repo.now()
        return self._ticket_view(ticket, table, now, names)

    def _ticket_view(
        self, t: dict[str, Any], table: dict[str, Any] | None, now: datetime, names: Mapping[str, str]
    ) -> dict[str, Any]:
        return {
            "id": t["id"],
            "player_id": t["player_id"],
            "player": player_ref(t["player_id"], names),
            "game_type": t["game_type"],
            "options": t["options"],
            "player_counts": t["player_counts"],
            "mode": t["mode"],
            "allow_bots": bool(t.get("allow_bots")),
            "bot_level": t.get("bot_level") or "rules",
            "clock": t.get("clock"),
            "timeout_policy": t.get("timeout_policy"),
            "status": t["status"],
            "rating": {"pool": t["pool"], "mu": t["mu"], "sigma": t["sigma"], "source": t["rating_source"]},
            "waited_seconds": round(((t["updated_at"] if t["status"] != "waiting" else now)
                                     - t["created_at"]).total_seconds(), 3),
            "table_id": t["table_id"],
            "private": bool(table and table["kind"] == "private"),
            "seat": t["seat"],
            "team": t["team"],
            "seats": table["seats"] if table else None,
            "players": player_refs(table["seats"], names) if table else None,
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
                return self._ticket_view(ticket, None, repo.now(), repo.display_names([player]))
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
            return self._ticket_view(ticket, None, repo.now(), repo.display_names([player]))

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
                       r.get("bot_level") or "rules", r.get("clock"), r.get("timeout_policy"))
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
                anchor = proposal.tickets[0]  # the tickets of a table share one clock (their pool key)
                timing = _timing(dict(anchor.clock) if anchor.clock is not None else None, anchor.timeout_policy)
                repo.insert_table({
                    "request_id": request_id, "kind": "queue", "game_type": proposal.game_type,
                    "options": dict(proposal.options), "size": len(proposal.tickets), "seats": proposal.seats,
                    "teams": [list(t) for t in proposal.teams] if proposal.teams else None,
                    "reason": proposal.reason, "status": "requested", **timing,
                })
                for seat, ticket in enumerate(proposal.tickets):
                    repo.update_ticket(ticket.id, status="matched", table_id=request_id, seat=seat,
                                       team=team_of.get(seat))
                bots = [{"seat": seat, "level": level} for seat, level in proposal.bots]
                self._request_game(repo, request_id, proposal.game_type, dict(proposal.options), proposal.seats,
                                   {"kind": "queue", "tickets": [t.id for t in proposal.tickets],
                                    "reason": proposal.reason}, bots, timing)
                formed.append(request_id)
        return formed

    def _request_game(
        self, repo: MatchmakingRepository, request_id: str, game_type: str, options: dict[str, Any],
        seats: list[str | None], detail: dict[str, Any], bots: list[dict[str, Any]] | None = None,
        timing: dict[str, Any] | None = None,
    ) -> None:
        """``CreateGameRequested`` (with the table's ``clock`` and ``timeout_policy`` when it has a clock)."""
        body: dict[str, Any] = {"request_id": request_id, "game_type": game_type, "options": options, "seats": seats}
        body |= {k: v for k, v in (timing or {}).items() if v is not None}
        if bots:  # the games service puts bot accounts in these seats
            body["bots"] = bots
        repo.append(
            f"table-{request_id}", 0, [NewEvent("TableFormed", {**body, **detail})],
            outbox_for("CreateGameRequested", f"create:{request_id}", body),
        )

    # ================================================================== private tables
    def create_private_table(self, identity: Identity, body: dict[str, Any]) -> dict[str, Any]:
        player = self._require_player(identity)
        clock, policy = self._check_game(body["game_type"], [body["num_players"]], body.get("options") or {},
                                         "num_players", body.get("clock"), body.get("timeout_policy"))
        timing = _timing(clock, policy)
        request_id, ticket_id = self.new_id(), self.new_id()
        pool = pool_for(body["game_type"], body["num_players"], "solo")
        with self.uow.begin() as repo:
            self._no_active_ticket(repo, player)
            code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
            repo.insert_table({
                "request_id": request_id, "kind": "private", "game_type": body["game_type"],
                "options": body.get("options") or {}, "size": body["num_players"], "seats": [player],
                "reason": "private table: seats in the order players joined", "invite_code": code,
                "created_by": player, "status": "open", **timing,
            })
            repo.insert_ticket({
                "id": ticket_id, "player_id": player, "game_type": body["game_type"],
                "options": body.get("options") or {}, "player_counts": [body["num_players"]], "mode": "solo",
                "pool": pool, "mu": 25.0, "sigma": 25.0 / 3.0, "rating_source": "not used",
                "status": "waiting", "table_id": request_id, "seat": 0, **timing,
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
                "seat": len(seats) - 1, **_timing(table["clock"], table["timeout_policy"]),
            })
            if len(seats) == table["size"]:
                repo.update_table(table["request_id"], seats=seats, status="requested")
                repo.set_table_tickets(table["request_id"], "matched")
                self._request_game(repo, table["request_id"], table["game_type"], table["options"], seats,
                                   {"kind": "private"}, timing=_timing(table["clock"], table["timeout_policy"]))
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
        names = repo.display_names([*table["seats"], table["created_by"]])
        return {
            "id": table["request_id"], "game_type": table["game_type"], "options": table["options"],
            "num_players": table["size"], "seats": table["seats"], "players": player_refs(table["seats"], names),
            "invite_code": table["invite_code"],
            "clock": table["clock"], "timeout_policy": table["timeout_policy"],
            "status": table["status"], "game_id": table["game_id"], "your_ticket_id": ticket_id,
            "created_by": table["created_by"], "creator": player_ref(table["created_by"], names),
            "created_at": _iso(table["created_at"]),
        }
