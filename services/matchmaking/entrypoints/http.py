"""HTTP entrypoints of the matchmaking service (thin: parse, call the service, answer)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context
from flask.views import MethodView

from services.matchmaking.entrypoints import schemas as s
from services.matchmaking.service_layer.errors import Forbidden, Unauthorized
from services.matchmaking.service_layer.handlers import MatchmakingService
from shared.auth import ORGANISER
from shared.web.blueprint import Blueprint
from shared.web.identity import request_identity
from shared.web.roles import SAFE_METHODS, allow_role_writes

tickets = Blueprint("tickets", __name__, url_prefix="/tickets", description="The matchmaking queue")
matching = Blueprint("matching", __name__, url_prefix="/matching", description="Running the matcher")
private = Blueprint(
    "private-tables",
    __name__,
    url_prefix="/private-tables",
    description="Private tables joined by invite code",
)
leagues = Blueprint(
    "leagues",
    __name__,
    url_prefix="/leagues",
    description="Leagues: seatings, standings, exports and disputes (organisers)",
)

AUTH: list[dict[str, list[str]]] = [{"bearerAuth": []}]
TERMINAL = {"ready", "finished", "aborted", "cancelled", "failed"}
# league commands a player may call too (the use case narrows it: a dispute about a game they played in)
PLAYER_LEAGUE_COMMANDS = frozenset({"leagues.open_dispute"})
allow_role_writes(leagues, ORGANISER)  # organisers write here only (shared.web.roles), in their own leagues


@leagues.before_request
def _league_command_permission() -> None:
    """Every league command (every write under /v1/leagues, also ones added later) passes the one
    permission check before its body is validated: 401 without a token, 403 for another organiser's league,
    an auditor, or a player outside PLAYER_LEAGUE_COMMANDS, 404 for an unknown league."""
    if request.method in SAFE_METHODS:
        return
    league_id = (request.view_args or {}).get("league_id")
    service().authorize_league(identity(), league_id, player_may=request.endpoint in PLAYER_LEAGUE_COMMANDS)


def service() -> MatchmakingService:
    svc: MatchmakingService = current_app.extensions["matchmaking_service"]
    return svc


identity = request_identity


# ------------------------------------------------------------------------------ tickets
@tickets.route("", methods=["POST"])
@tickets.arguments(s.TicketCreate)
@tickets.response(201, s.TicketSchema)
@tickets.alt_response(409, description="the player already has an active ticket")
@tickets.doc(security=AUTH)
def create_ticket(body: dict[str, Any]) -> dict[str, Any]:
    """Join the queue. Matching runs at once (and periodically); the answer may already carry a table."""
    return service().create_ticket(identity(), body)


@tickets.route("/<ticket_id>")
class TicketResource(MethodView):
    @tickets.response(200, s.TicketSchema)
    @tickets.doc(security=AUTH)
    def get(self, ticket_id: str) -> dict[str, Any]:
        """The ticket: waiting, matched (table formed, game being created), ready (game_id set), ..."""
        return service().get_ticket(identity(), ticket_id)

    @tickets.response(200, s.TicketSchema)
    @tickets.alt_response(409, description="the ticket's table has formed already")
    @tickets.doc(security=AUTH)
    def delete(self, ticket_id: str) -> dict[str, Any]:
        """Leave the queue (or a private table that is still filling)."""
        return service().cancel_ticket(identity(), ticket_id)


@tickets.route("/<ticket_id>/stream")
@tickets.arguments(s.StreamQuery, location="query")
@tickets.doc(
    security=AUTH,
    responses={
        "200": {
            "description": "Server-Sent Events: one `status` event with the ticket as JSON (the `GET "
            "/v1/tickets/{id}` body) whenever its status changes (first the current one); `end` once it is "
            "ready, finished, aborted or cancelled. Changes are pushed as they are committed; `interval` "
            "is only the fallback check and the keep-alive (`: keepalive`) period.",
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string"},
                    "example": 'event: status\ndata: {"status": "ready"}\n\n',
                }
            },
        }
    },
)
def stream_ticket(args: dict[str, Any], ticket_id: str) -> Response:
    """Live status of a ticket: every committed change is announced on Redis pub/sub, so any instance
    can serve the stream and sends the change at once."""
    who = identity()
    svc = service()
    svc.get_ticket(who, ticket_id)  # 401/403/404 before the stream starts
    subscribe: Callable[[str], Any] = current_app.extensions["subscribe_ticket"]
    deadline = time.monotonic() + float(args["timeout"])
    interval = float(args["interval"])

    # subscribed before the first read, so no change can slip between; and before the answer starts,
    # so Redis being down is a 503 with Retry-After, not a broken stream
    listener = subscribe(ticket_id)

    def generate() -> Iterator[str]:
        last: str | None = None
        try:
            yield "retry: 2000\n\n"
            while True:
                status, view = svc.ticket_status(who, ticket_id)
                if status != last:
                    last = status
                    yield f"event: status\ndata: {json.dumps(view)}\n\n"
                if status in TERMINAL:
                    yield f"event: end\ndata: {json.dumps({'status': status})}\n\n"
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if not listener.wait(min(interval, remaining)):  # no notice: check anyway (a lost one)
                    yield ": keepalive\n\n"  # a client that left is noticed here; finally unsubscribes
        finally:
            listener.close()

    response = Response(
        stream_with_context(generate()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(listener.close)  # also when the generator never started
    return response


@matching.route("/tick", methods=["POST"])
@matching.response(200, s.TickResult)
@matching.doc(security=AUTH)
def tick() -> dict[str, Any]:
    """Admin: run the matcher now (it also runs on every new ticket and in `python -m
    services.matchmaking.entrypoints.ticker`)."""
    who = identity()
    if who.anonymous:
        raise Unauthorized("running the matcher needs the admin token")
    if not who.admin:
        raise Forbidden("only an admin may run the matcher")
    return {"formed": service().tick()}


# ------------------------------------------------------------------------------ private tables
@private.route("", methods=["POST"])
@private.arguments(s.PrivateTableCreate)
@private.response(201, s.PrivateTableSchema)
@private.doc(security=AUTH)
def create_private(body: dict[str, Any]) -> dict[str, Any]:
    """Open a private table; share `invite_code`. The creator sits at seat 0 with a ticket."""
    return service().create_private_table(identity(), body)


@private.route("/join", methods=["POST"])
@private.arguments(s.JoinBody)
@private.response(200, s.PrivateTableSchema)
@private.alt_response(409, description="the table is full or you have an active ticket")
@private.doc(security=AUTH)
def join_private(body: dict[str, Any]) -> dict[str, Any]:
    """Join by invite code; the game is requested when the last seat is taken."""
    return service().join_private_table(identity(), body["code"])


@private.route("/<table_id>")
@private.response(200, s.PrivateTableSchema)
@private.doc(security=AUTH)
def get_private(table_id: str) -> dict[str, Any]:
    """A private table (seated players and admins)."""
    return service().get_private_table(identity(), table_id)


# ------------------------------------------------------------------------------ leagues
@leagues.route("")
class LeagueCollection(MethodView):
    @leagues.arguments(s.ListQuery, location="query")
    @leagues.response(200, s.LeagueList)
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """Leagues, newest first."""
        return service().list_leagues(args["limit"], args["offset"])

    @leagues.arguments(s.LeagueCreate)
    @leagues.response(201, s.LeagueSchema)
    @leagues.alt_response(401, description="no or an unknown bearer token")
    @leagues.alt_response(403, description="not an organiser token (nor the admin token)")
    @leagues.alt_response(422, description="a field the games service would refuse (`errors` names it, e.g. "
                          "`options.mode`, `game_type`, `table_sizes`)")
    @leagues.alt_response(503, description="the games service does not answer (see `Retry-After`)")
    @leagues.doc(security=AUTH)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Organiser: create a league (it is yours to run); round 1 is seated and its games requested at once.
        Game type, table sizes and options are checked against the games service's game types first."""
        return service().create_league(identity(), body)


@leagues.route("/<league_id>")
@leagues.response(200, s.LeagueSchema)
def get_league(league_id: str) -> dict[str, Any]:
    """The league with every round's tables, the reason for each seating, and its disputes."""
    return service().get_league(league_id)


@leagues.route("/<league_id>/standings")
@leagues.response(200, s.StandingsSchema)
def get_standings(league_id: str) -> dict[str, Any]:
    """Standings: points, then Buchholz, wins, total score, seeding order; each row's `decided_by` names
    the tie-break that decided its place. Disputed games make rows provisional; void, aborted and
    re-seated games count for nobody."""
    return service().standings(league_id)


@leagues.route("/<league_id>/export")
@leagues.arguments(s.ExportQuery, location="query")
@leagues.doc(
    responses={
        "200": {
            "description": "`format=json`: the league and its standings; `format=csv`: one standings row per"
            " player.",
            "content": {
                "application/json": {
                    "schema": {"type": "object"},
                    "example": {"league": {"id": "4c1e..."}, "standings": {"rows": []}},
                },
                "text/csv": {
                    "schema": {"type": "string"},
                    "example": "place,player_id,display_name,points,buchholz,wins,score,games,byes,"
                    "provisional\n1,2f0a...,Anneke,7.5,31.0,2,41.0,3,0,False\n",
                },
            },
        }
    }
)
def export_league(args: dict[str, Any], league_id: str) -> Response:
    """Export standings and games as JSON or CSV."""
    media, document = service().export(league_id, args["format"])
    headers = {}
    if args["format"] == "csv":
        headers["Content-Disposition"] = f'attachment; filename="league-{league_id}.csv"'
    return Response(document, mimetype=media, headers=headers)


@leagues.route("/<league_id>/events")
@leagues.response(200, s.LeagueEvents)
def league_events(league_id: str) -> dict[str, Any]:
    """The league's event log (seatings, results, disputes and rulings), hash-chained."""
    return service().league_events(league_id)


@leagues.route("/<league_id>/disputes", methods=["POST"])
@leagues.arguments(s.DisputeCreate)
@leagues.response(201, s.DisputeSchema)
@leagues.alt_response(409, description="the game has no result yet or is already under dispute")
@leagues.alt_response(403, description="another organiser's league (`not_organiser`), an auditor, or a player "
                      "who did not play in the game (`not_your_game`)")
@leagues.doc(security=AUTH)
def open_dispute(body: dict[str, Any], league_id: str) -> dict[str, Any]:
    """The league's organiser, or a player of the game: flag a game. Its result becomes provisional; the
    games service's audit is attached."""
    return service().open_dispute(identity(), league_id, body)


@leagues.route("/<league_id>/disputes/<dispute_id>")
@leagues.response(200, s.DisputeSchema)
def get_dispute(league_id: str, dispute_id: str) -> dict[str, Any]:
    """One dispute with its audit report and ruling."""
    return service().get_dispute(league_id, dispute_id)


@leagues.route("/<league_id>/disputes/<dispute_id>/ruling", methods=["POST"])
@leagues.arguments(s.RulingBody)
@leagues.response(200, s.DisputeSchema)
@leagues.alt_response(409, description="the dispute is ruled already")
@leagues.alt_response(403, description="not this league's organiser (nor the admin): `not_organiser`")
@leagues.doc(security=AUTH)
def rule_dispute(body: dict[str, Any], league_id: str, dispute_id: str) -> dict[str, Any]:
    """The league's organiser: rule. `result_stands` keeps the result; `void` drops it (GameVoided goes to ratings);
    `replay` drops it and requests a new game with the same seats."""
    return service().rule(identity(), league_id, dispute_id, body)


# ------------------------------------------------------------------------------ league operations
_LEAGUE_CONFLICT = "the league's state does not allow it (completed, table settled, player withdrawn ...)"


@leagues.route("/<league_id>/withdraw", methods=["POST"])
@leagues.arguments(s.WithdrawBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description=_LEAGUE_CONFLICT)
@leagues.doc(security=AUTH)
def withdraw(body: dict[str, Any], league_id: str) -> dict[str, Any]:
    """Organiser: withdraw a player (`PlayerWithdrew`) from the next round to be seated. A game of theirs
    seated and not finished is forfeited at once; later rounds follow the league's `withdrawal` rule."""
    return service().withdraw_player(identity(), league_id, body)


@leagues.route("/<league_id>/enter", methods=["POST"])
@leagues.arguments(s.EnterBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description="a round robin, every round seated, or the player plays already")
@leagues.doc(security=AUTH)
def enter(body: dict[str, Any], league_id: str) -> dict[str, Any]:
    """Organiser: a late entry (`PlayerEntered`, Swiss leagues) from the next round to be seated; each
    missed round scores the league's `late_entry` rule."""
    return service().enter_player(identity(), league_id, body)


@leagues.route("/<league_id>/rounds/<int(min=1, max=100):round_no>/tables/<int(min=1, max=1000):table_no>"
               "/forfeit", methods=["POST"])
@leagues.arguments(s.ForfeitBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description="the table is settled already")
@leagues.doc(security=AUTH)
def forfeit(body: dict[str, Any], league_id: str, round_no: int, table_no: int) -> dict[str, Any]:
    """Organiser: record a forfeit (`ForfeitRecorded`): the absent players rank last with 0 points, the
    present score the league's `forfeit` rule. Works on any table not yet settled (also aborted ones)."""
    return service().record_forfeit(identity(), league_id, round_no, table_no, body)


@leagues.route("/<league_id>/rounds/<int(min=1, max=100):round_no>/tables/<int(min=1, max=1000):table_no>"
               "/reseat", methods=["POST"])
@leagues.arguments(s.ReseatBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description="the table is not aborted or failed")
@leagues.doc(security=AUTH)
def reseat(body: dict[str, Any], league_id: str, round_no: int, table_no: int) -> dict[str, Any]:
    """Organiser: re-seat an `aborted` or `failed` table (`TableReseated`): a new game is requested for
    the same seats and settings, or for new `seats` (players of this table or with a bye that round; one
    left out has a bye) and new `options`, `clock`, `timeout_policy` (checked at the door like a new
    league's: 422 naming the field, e.g. `options.mode` with rule HP-47). The old table becomes
    `replaced` and counts for nobody."""
    return service().reseat_table(identity(), league_id, round_no, table_no, body)


@leagues.route("/<league_id>/rounds/<int(min=1, max=100):round_no>/tables/<int(min=1, max=1000):table_no>"
               "/void", methods=["POST"])
@leagues.arguments(s.VoidBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description="the table has a result already (finished, forfeited, void, replaced)")
@leagues.doc(security=AUTH)
def void(body: dict[str, Any], league_id: str, round_no: int, table_no: int) -> dict[str, Any]:
    """Organiser: no result for a table (`TableVoided`, with the reason), e.g. one that cannot be played
    nor re-seated. It scores by the league's `void_table` rule (`no_score`: counts for nobody; `bye`: a
    bye each); a game still running is aborted through the queue. Its round can then complete."""
    return service().void_table(identity(), league_id, round_no, table_no, body)


@leagues.route("/<league_id>/rounds/<int(min=1, max=100):round_no>/pair", methods=["POST"])
@leagues.arguments(s.PairBody)
@leagues.response(200, s.LeagueSchema)
@leagues.alt_response(409, description="the round is seated already")
@leagues.doc(security=AUTH)
def pair(body: dict[str, Any], league_id: str, round_no: int) -> dict[str, Any]:
    """Organiser: pair a round not yet seated by hand (`PairingOverridden`, with the reason); every player
    of that round once, at allowed table sizes. Used when the round is seated (unless a withdrawal or
    late entry since changed who plays; then the rules seat it and the tables say so)."""
    return service().override_pairing(identity(), league_id, round_no, body)


@leagues.route("/<league_id>/rounds/<int(min=1, max=100):round_no>/results")
@leagues.arguments(s.ResultsQuery, location="query")
@leagues.doc(
    responses={
        "200": {
            "description": "One round: every table and game with each seat's rank, game score and league"
            " points, the byes, late entries and withdrawals, and the standings after the round with their"
            " tie-breaks and `decided_by`. `format=csv`: one row per seat (and bye); `format=trf`: a"
            " TRF-16-like player list up to this round (two-player tables only).",
            "content": {
                "application/json": {
                    "schema": {"type": "object"},
                    "example": {"round": 2, "complete": True, "games": [{"table_no": 1, "status": "finished",
                                "seats": [{"seat": 0, "player_id": "2f0a...", "rank": 1, "points": 1.0}]}],
                                "byes": [], "standings": [{"place": 1, "points": 2.0, "decided_by": "points"}]},
                },
                "text/csv": {
                    "schema": {"type": "string"},
                    "example": "round,table_no,request_id,game_id,status,seat,player_id,display_name,rank,"
                    "game_score,points,place_after_round,total_points,buchholz,wins,total_score,decided_by\n"
                    "2,1,league:4c1e...:r2:t1,7d9b...,finished,0,2f0a...,Anneke,1,9.0,1.0,1,2.0,1.0,2,18.0,"
                    "buchholz\n",
                },
                "text/plain": {
                    "schema": {"type": "string"},
                    "example": "012 Spring league\n001    1      Anneke                               0  ...",
                },
            },
        }
    }
)
def round_results(args: dict[str, Any], league_id: str, round_no: int) -> Response:
    """Export one round's results (JSON, CSV or TRF-like)."""
    media, document = service().round_export(league_id, round_no, args["format"])
    headers = {}
    if args["format"] != "json":
        ext = "csv" if args["format"] == "csv" else "trf"
        headers["Content-Disposition"] = f'attachment; filename="league-{league_id}-round-{round_no}.{ext}"'
    return Response(document, mimetype=media, headers=headers)


BLUEPRINTS = (tickets, matching, private, leagues)
