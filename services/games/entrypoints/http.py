"""HTTP entrypoints of the games service (thin: parse, call the service, answer)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, g, request, stream_with_context
from flask.views import MethodView

from services.games.entrypoints import schemas as s
from services.games.service_layer.errors import IdempotencyInFlight, InvalidRequest
from services.games.service_layer.handlers import GamesService
from services.games.service_layer.players import PlayersService
from shared.auth import bearer_token
from shared.bots import BOT_PLAYER_IDS
from shared.web.blueprint import Blueprint, json_response
from shared.web.identity import identity_checked_later, player_key, request_identity
from shared.web.problems import ApiProblem, problem_type
from shared.web.ratelimit import rate_limited
from shared.web.roles import reads_only

players = Blueprint("players", __name__, url_prefix="/players", description="Players: registration, profiles, names and tokens")
tokens = Blueprint(
    "tokens",
    __name__,
    url_prefix="/tokens",
    description="Role tokens (admin): organisers run the leagues they create, auditors read every audit and "
    "export and change nothing",
)
game_types = Blueprint("game-types", __name__, url_prefix="/game-types", description="Hosted games")
games = Blueprint("games", __name__, url_prefix="/games", description="Tables, moves, logs and audits")

AUTH: list[dict[str, list[str]]] = [{"bearerAuth": []}]
IDEMPOTENCY_HEADER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 200},
    "description": "a retry with the same key returns the first answer (marked `Idempotent-Replayed: true`) "
    "and writes nothing; concurrent requests with one key wait for the first. An answer is kept 24 hours (the "
    "default); after that the key is forgotten and a request with it is a new one",
}


def service() -> GamesService:
    svc: GamesService = current_app.extensions["games_service"]
    return svc


identity = request_identity


def players_service() -> PlayersService:
    svc: PlayersService = current_app.extensions["players_service"]
    return svc


@players.route("", methods=["POST"])
@players.arguments(s.PlayerCreate)
@players.response(201, s.PlayerCreated)
@rate_limited(players, "register")
def register_player(body: dict[str, Any]) -> dict[str, Any]:
    """Register a player; the token is returned once."""
    return players_service().register(body["display_name"])


@players.route("/me")
class Me(MethodView):
    @players.response(200, s.PlayerProfile)
    @players.alt_response(401, description="no or an unknown bearer token")
    @players.doc(security=AUTH)
    def get(self) -> dict[str, Any]:
        """The calling player: display name, registration time and finished games per game type."""
        return players_service().me(identity())

    @players.arguments(s.PlayerRename)
    @players.response(200, s.PlayerProfile)
    @players.alt_response(401, description="no or an unknown bearer token")
    @players.doc(security=AUTH)
    def patch(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change your display name (trimmed, 1-40 characters, no control characters).

        Other services learn it through a PlayerRenamed message (leaderboards, standings, charts)."""
        return players_service().rename(identity(), body["display_name"])


@players.route("/me/tokens", methods=["POST"])
@players.response(201, s.TokenIssued)
@players.alt_response(401, description="no or an unknown bearer token")
@players.doc(security=AUTH)
def issue_token() -> dict[str, Any]:
    """A new bearer token for you, returned once. Revoke the old one with DELETE .../tokens/current."""
    return players_service().issue_token(identity())


@players.route("/me/tokens/current", methods=["DELETE"])
@players.response(204)
@players.alt_response(401, description="no or an unknown bearer token")
@players.doc(security=AUTH)
def revoke_current_token() -> None:
    """Revoke the token of this request: every later request with it is a 401, in every service."""
    players_service().revoke_current(identity(), bearer_token(request.headers.get("Authorization")))


@players.route("/<player_id>")
@players.response(200, s.PlayerProfile)
@players.alt_response(404, description="no such player")
def get_player(player_id: str) -> dict[str, Any]:
    """A player's display name, registration time and finished games per game type."""
    return players_service().profile(player_id)


@tokens.route("")
class RoleTokens(MethodView):
    @tokens.arguments(s.RoleTokenCreate)
    @tokens.response(201, s.RoleTokenIssued)
    @tokens.alt_response(401, description="no or an unknown bearer token")
    @tokens.alt_response(403, description="not the admin token")
    @tokens.alt_response(404, description="`principal_id` names no organiser or auditor of that role")
    @tokens.doc(security=AUTH)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Admin: mint an organiser or auditor token (returned once). With `principal_id`, another token
        for that organiser or auditor (rotate, then revoke the old one)."""
        return players_service().issue_role_token(identity(), body)

    @tokens.arguments(s.RoleTokenQuery, location="query")
    @tokens.response(200, s.RoleTokenList)
    @tokens.alt_response(401, description="no or an unknown bearer token")
    @tokens.alt_response(403, description="not the admin token")
    @tokens.doc(security=AUTH)
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """Admin: the role tokens (without their secrets), oldest first."""
        return players_service().role_tokens(identity(), args["role"], args["include_revoked"])


@tokens.route("/<token_id>", methods=["DELETE"])
@tokens.response(200, s.RoleToken)
@tokens.alt_response(401, description="no or an unknown bearer token")
@tokens.alt_response(403, description="not the admin token")
@tokens.alt_response(404, description="no such role token")
@tokens.doc(security=AUTH)
def revoke_role_token(token_id: str) -> dict[str, Any]:
    """Admin: revoke a role token; every later request with it is a 401, in every service."""
    return players_service().revoke_role_token(identity(), token_id)


@game_types.route("")
@game_types.response(200, s.GameTypeSchema(many=True))
def list_game_types() -> list[dict[str, Any]]:
    """Games, variants, option schemas, player counts and move vocabulary."""
    return service().game_types()


@game_types.route("/table-checks", methods=["POST"])
@reads_only(game_types)
@game_types.arguments(s.TableCheckBody)
@game_types.response(200, s.TableCheckSchema)
@game_types.alt_response(422, description="what `POST /v1/games` would refuse: the field, the rule, the table size")
def check_tables(body: dict[str, Any]) -> dict[str, Any]:
    """Check tables before creating them (writes nothing): the options, clock and timeout policy `POST
    /v1/games` would make of a table of each of `player_counts` players, normalized, or its 422 naming the
    field and the rule (with the table size in the detail). Other services check their tickets and leagues
    here at their door, where the options schema cannot say it (an option against the table size: HP-47)."""
    return service().check_tables(body["game_type"], body)


@games.route("")
class GamesCollection(MethodView):
    @games.arguments(s.ListQuery, location="query")
    @games.response(200, s.GameList)
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """List games, filtered by player, status and game type, newest first."""
        return service().list_games(
            args.get("player"), args.get("status"), args.get("game_type"), args["limit"], args["offset"]
        )

    @games.arguments(s.GameCreate)
    @games.response(201, s.GameSchema)
    @games.doc(security=AUTH)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create a table. Seats are player ids or null (open); the game starts when all are taken."""
        return service().create_game(identity(), body)


@games.route("/<game_id>")
@games.response(200, s.GameSchema)
@games.doc(security=AUTH)
def get_game(game_id: str) -> dict[str, Any]:
    """The caller's view: a seat's, a spectator's, or the full one for admins. After the end each game's
    reveal rules still hold (README, "What is revealed after the end")."""
    return service().game_view(game_id, identity())


@games.route("/<game_id>/join", methods=["POST"])
@games.arguments(s.JoinBody)
@games.response(200, s.GameSchema)
@games.doc(security=AUTH)
def join_game(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Take an open seat, optionally adding a client seed."""
    return service().join(identity(), game_id, body.get("seat"), body.get("client_seed"))


@games.route("/<game_id>/seats/<int(max=63):seat>/bot", methods=["POST"])
@games.arguments(s.SeatBotBody)
@games.response(200, s.GameSchema)
@games.alt_response(401, description="no or an unknown bearer token")
@games.alt_response(403, description="not the table's creator nor an admin (`not_creator`)")
@games.alt_response(404, description="no such game or seat")
@games.alt_response(
    409, description="the seat is taken (`seat_taken`) or the game has started (`game_not_open`)"
)
@games.alt_response(422, description="an unknown level")
@games.alt_response(503, description="bots are not configured (BOTS_SECRET unset)")
@games.doc(security=AUTH)
def seat_bot(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Put a bot in an open seat (the table's creator or an admin). The bot is a player account of its
    level (`seats[].bot`); the bots worker plays its moves through this API with the bot's own token."""
    return service().seat_bot(identity(), game_id, seat, body["level"])


@games.route("/<game_id>/legal-moves")
@games.response(200, s.LegalMoves)
@games.doc(security=AUTH)
def legal_moves(game_id: str) -> dict[str, Any]:
    """The caller's legal moves now; spectators get an empty list."""
    return service().legal_moves(game_id, identity())


def move_key() -> str | None:
    """Moves are limited per player; a bot account (which plays many games at once) per player and game."""
    identity_checked_later()  # a known token is checked inside the move's transaction (one round trip)
    who = player_key()
    if who is not None and who.removeprefix("player:") in BOT_PLAYER_IDS:
        return f"{who}:game:{(request.view_args or {}).get('game_id')}"
    return who


@games.route("/<game_id>/moves", methods=["POST"])
@games.arguments(s.MoveBody)
@games.response(
    201,
    s.MoveResult,
    headers={
        "Idempotent-Replayed": {
            "description": "`true` when this is the stored answer of an earlier request with the same "
            "Idempotency-Key (nothing was written this time)",
            "schema": {"type": "string", "enum": ["true"]},
        }
    },
)
@games.alt_response(401, description="no or an unknown bearer token")
@games.alt_response(403, description="not your move or no seat")
@games.alt_response(
    409,
    description="stale expected_version or game not running; `code: time_expired`: the move came at or after "
    "its seat's clock deadline (the timeout is recorded, see README \"Clocks\"); or `code: idempotency_in_flight`: a request "
    "with the same Idempotency-Key is still running (after waiting for it up to 10 s): retry after "
    "`Retry-After` seconds to get its answer",
    headers={"Retry-After": {"description": "seconds (idempotency_in_flight only)", "schema": {"type": "integer"}}},
)
@games.alt_response(422, description="illegal move: `rule` is the spec's rule id")
@games.doc(security=AUTH, parameters=[IDEMPOTENCY_HEADER])
@rate_limited(games, "moves", move_key)
def post_move(body: dict[str, Any], game_id: str) -> Response:
    """Make a move. Returns the new version and the new events as the caller may see them."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise InvalidRequest("Idempotency-Key must be 1-200 characters", field="Idempotency-Key")
    try:
        status, result, replayed = service().make_move(
            identity_checked_later(), game_id, body["move"], body["expected_version"], key,
            token_check=g.get("speltafel_token_check"),
        )
    except IdempotencyInFlight as exc:
        raise ApiProblem(
            409,
            "Conflict",
            exc.detail,
            type_=problem_type("idempotency-in-flight"),
            errors={"Idempotency-Key": [exc.detail]},
            headers={"Retry-After": str(exc.retry_after)},
            code="idempotency_in_flight",
        ) from None
    return json_response(result, status, {"Idempotent-Replayed": "true"} if replayed else None)


@games.route("/<game_id>/events")
@games.arguments(s.EventsQuery, location="query")
@games.response(200, s.EventLog)
@games.doc(security=AUTH)
def get_events(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The event log after version `after`, redacted for the caller (also after the end) by the game's rules."""
    return service().events(game_id, identity(), args["after"], args["limit"])


SSE_TYPE, NDJSON_TYPE = "text/event-stream", "application/x-ndjson"
STREAM_TYPES = (SSE_TYPE, NDJSON_TYPE)  # the first is the default for */*
ENDED = {"finished", "aborted"}
STREAM_DOC = (
    "The caller's events, redacted by the game's rules, as they are recorded; the same items as "
    "`GET .../events` (`{version, type, payload, recorded_at}`). Pick the media type with `Accept`:\n\n"
    "* `text/event-stream` (Server-Sent Events; also for `*/*` or no Accept): per event `id` is its "
    "version, `event` its type and `data` the whole item as JSON (`{version, type, payload, recorded_at}`, "
    "not only the payload). Resume with `Last-Event-ID` (or `?after=N`). Comments (`: keepalive`) keep "
    "the connection open; a last `end` event (`data: {\"status\": ...}`) follows the game's final event "
    "at once. On a clocked table a `clock` event (no `id`; `data`: the game's `clock` with each seat's "
    "remaining time and the deadline, plus `version`) follows each batch of new events.\n"
    "* `application/x-ndjson` (newline-delimited JSON, as Lichess streams): one item per line; empty "
    "lines are keep-alives (skip them). Resume with `?after=N` (the last version you read). On a clocked "
    "table a clock line `{\"type\": \"clock\", \"clock\": {...}}` (no `version`: not an event; the same "
    "`clock` as the SSE event's `data`) follows each batch of new events. The server "
    "closes the stream right after the game's final event (GameFinished or GameAborted).\n\n"
    "Either stream also closes after `timeout` seconds, once it has sent the events stored when it opened "
    "(however short the timeout: a short poll gets what is new); reconnect with the last version to go on."
)


@games.route("/<game_id>/events/stream")
@games.arguments(s.StreamQuery, location="query")
@games.doc(
    security=AUTH,
    responses={
        "200": {
            "description": STREAM_DOC,
            "content": {
                SSE_TYPE: {
                    "schema": {"type": "string"},
                    "example": 'id: 7\nevent: MoveMade\ndata: {"version": 7, "type": "MoveMade", '
                    '"payload": {"seat": 0}, "recorded_at": "2026-05-01T20:15:00.000000+00:00"}\n\n',
                },
                # each line: an event (it has a version) or, on a clocked table, a clock line (it has none)
                NDJSON_TYPE: {"schema": {"oneOf": [s.EventItem, s.ClockLine]}},
            },
        },
        "406": {"description": "`Accept` names neither text/event-stream nor application/x-ndjson"},
    },
)
def stream_events(args: dict[str, Any], game_id: str) -> Response:
    """Live events for the caller, fanned out through Redis pub/sub (any instance can serve any stream).

    One open stream holds one server thread until the game ends, `timeout` passes or the client
    leaves (noticed at the next keep-alive at the latest)."""
    media = request.accept_mimetypes.best_match(STREAM_TYPES) if request.accept_mimetypes else SSE_TYPE
    if media is None:
        raise ApiProblem(
            406, "Not Acceptable", f"this stream is served as {' or '.join(STREAM_TYPES)} (set Accept)"
        )
    who = identity()
    svc = service()
    header = request.headers.get("Last-Event-ID", "")
    last = int(header) if header.isdigit() else int(args.get("after") or 0)
    svc.events(game_id, who, last, 1)  # 404 before the stream starts
    subscribe: Callable[[str], Any] = current_app.extensions["subscribe"]
    keepalive = float(current_app.config.get("STREAM_KEEPALIVE_SECONDS", 15.0))
    deadline = time.monotonic() + float(args["timeout"])
    sse = media == SSE_TYPE

    # subscribed before the first read, so no change can slip between; and before the answer starts,
    # so Redis being down is a 503 with Retry-After, not a broken stream
    listener = subscribe(game_id)

    def generate() -> Iterator[str]:
        nonlocal last
        try:
            if sse:
                yield "retry: 2000\n\n"
            while True:
                page = svc.events(game_id, who, last, 500)
                for item in page["events"]:
                    last = item["version"]
                    if sse:
                        yield f"id: {last}\nevent: {item['type']}\ndata: {json.dumps(item)}\n\n"
                    else:
                        yield json.dumps(item) + "\n"
                if page["events"] and (clock := svc.clock_now(game_id)) is not None:
                    if sse:
                        yield f"event: clock\ndata: {json.dumps(clock)}\n\n"
                    else:
                        yield json.dumps({"type": "clock", "clock": clock}) + "\n"
                if page["status"] in ENDED and last >= page["version"]:  # the final event is out
                    if sse:
                        yield f"event: end\ndata: {json.dumps({'status': page['status']})}\n\n"
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if not listener.wait(min(keepalive, remaining)):
                    # also how a client that left is noticed: writing to its closed connection fails,
                    # the server closes this generator and the finally below unsubscribes
                    yield ": keepalive\n\n" if sse else "\n"
        finally:
            listener.close()

    response = Response(
        stream_with_context(generate()),
        mimetype=media,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Vary": "Accept"},
    )
    response.call_on_close(listener.close)  # also when the generator never started
    return response


@games.route("/<game_id>/state")
@games.arguments(s.StateQuery, location="query")
@games.response(200, s.GameSchema)
@games.doc(security=AUTH)
def state_at(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The game as it stood after event `version`, through the caller's eyes as the game's rules allow now."""
    return service().state_at(game_id, args["version"], identity())


@games.route("/<game_id>/export")
@games.response(200, s.ExportSchema)
@games.alt_response(401, description="no token: the export is for the game's players, admins and auditors")
@games.alt_response(403, description="not a player of this game (nor an admin or auditor)")
@games.alt_response(409, description="the game is still running")
@games.doc(security=AUTH)
def export_game(game_id: str) -> dict[str, Any]:
    """A finished or aborted game for its players, admins and auditor tokens: the whole unredacted log with hashes and
    the revealed seed, every top-level field derived from the log (`speltafel verify` checks each)."""
    return service().export(game_id, identity())


@games.route("/<game_id>/audit")
@games.response(200, s.AuditSchema)
def audit_game(game_id: str) -> dict[str, Any]:
    """Checks: hash chain, seed commitment, chance re-derived, moves re-validated, outcome reproduced."""
    return service().audit(game_id)


@games.route("/<game_id>/resign", methods=["POST"])
@games.response(200, s.GameSchema)
@games.doc(security=AUTH)
def resign(game_id: str) -> dict[str, Any]:
    """Resign: your seat (and team) ranks last, the game ends."""
    return service().resign(identity(), game_id)


@games.route("/<game_id>/timeout-claims", methods=["POST"])
@games.response(201, s.GameSchema)
@games.alt_response(401, description="no or an unknown bearer token")
@games.alt_response(403, description="no seat at this table (`not_seated`)")
@games.alt_response(404, description="no such game")
@games.alt_response(
    409,
    description="no seat has run out of time yet (`clock_running`; detail gives the next deadline), or the game "
    "is not running (`game_finished`, `game_aborted`, `game_open`)",
)
@games.alt_response(422, description="the table has no clock (`no_clock`, field `clock`)")
@games.doc(security=AUTH)
def claim_timeout(game_id: str) -> dict[str, Any]:
    """Claim that a seat's time has run out (a player of the game, or an admin): the timeout is recorded
    (`TimeExpired{seat, policy}`) and handled by the table's policy, as the ticker would do it."""
    return service().claim_timeout(identity(), game_id)


@games.route("/<game_id>/abort", methods=["POST"])
@games.arguments(s.AbortBody)
@games.response(200, s.GameSchema)
@games.alt_response(401, description="no token: aborting needs the admin token")
@games.alt_response(403, description="a player token: only an admin may abort")
@games.doc(security=AUTH)
def abort(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Admin: abort a game; its seed is revealed."""
    return service().abort(identity(), game_id, body["reason"])


BLUEPRINTS = (players, tokens, game_types, games)
