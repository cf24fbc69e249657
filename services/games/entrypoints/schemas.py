"""Request and response schemas of the games API (marshmallow, documented in OpenAPI)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from services.games.engines.registry import BUILTIN
from shared.auth import DISPLAY_NAME_MAX, InvalidDisplayName, clean_display_name
from shared.bots import BOT_LEVELS
from shared.web.bounds import bounded

STATUSES = ("open", "running", "finished", "aborted")
# the OpenAPI component documenting each hosted game's view (registered by ``view_docs``)
VIEW_COMPONENTS = {game_type: f"View{game_type.capitalize()}" for game_type in BUILTIN}


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


def _display_name(value: str) -> None:
    try:
        clean_display_name(value)
    except InvalidDisplayName as exc:
        raise ma.ValidationError(str(exc)) from None


def display_name_field() -> ma.fields.String:
    return ma.fields.String(
        required=True,
        validate=_display_name,
        metadata={
            "example": "Anneke",
            "description": f"shown next to the player id; trimmed, 1-{DISPLAY_NAME_MAX} characters, "
            "no control characters",
        },
    )


class BotSchema(ma.Schema):
    level = ma.fields.String(
        metadata={"enum": list(BOT_LEVELS), "example": "rules", "description": "the bot's playing level"}
    )


def bot_field() -> ma.fields.Nested:
    return ma.fields.Nested(
        BotSchema,
        allow_none=True,
        metadata={"description": "a computer player: its level; null for a person", "example": None},
    )


class PlayerCreate(Strict):
    display_name = display_name_field()


class PlayerCreated(ma.Schema):
    id = ma.fields.String(metadata={"example": "2f0a4c8e-8d0b-4a53-9b0e-4d6f8a3c1b2e"})
    display_name = ma.fields.String()
    created_at = ma.fields.String()
    token = ma.fields.String(metadata={"description": "bearer token, shown once; only its hash is stored"})


class PlayerRename(Strict):
    display_name = display_name_field()


class PlayerProfile(ma.Schema):
    id = ma.fields.String(metadata={"example": "2f0a4c8e-8d0b-4a53-9b0e-4d6f8a3c1b2e"})
    display_name = ma.fields.String(metadata={"example": "Anneke"})
    created_at = ma.fields.String(metadata={"example": "2026-12-01T09:47:08+00:00"})
    games_played = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Integer(),
        metadata={"description": "finished games per game type", "example": {"klapper": 3, "hoppaa": 1}},
    )
    games_played_total = ma.fields.Integer(metadata={"example": 4})
    bot = bot_field()


class TokenIssued(ma.Schema):
    player_id = ma.fields.String()
    token = ma.fields.String(
        metadata={"description": "a new bearer token, shown once; the calling token keeps working"}
    )


CLOCK_DOC = (
    "the table's clock (README \"Clocks\"); leave it out for no clock. `fischer`: `base_seconds` for the "
    "game plus `increment_seconds` after each own move; `per_move`: `seconds` afresh every turn; "
    "`correspondence`: `days_per_move` days every turn. No clock runs while the game waits for another "
    "service (a CityHopper question)."
)


class ClockCreate(Strict):
    kind = ma.fields.String(
        required=True, metadata={"enum": ["fischer", "per_move", "correspondence"], "example": "fischer"}
    )
    base_seconds = ma.fields.Integer(
        strict=True, metadata={"minimum": 1, "maximum": 86_400, "example": 300, "description": "fischer"}
    )
    increment_seconds = ma.fields.Integer(
        strict=True, metadata={"minimum": 0, "maximum": 3_600, "example": 5, "description": "fischer (default 0)"}
    )
    seconds = ma.fields.Integer(
        strict=True, metadata={"minimum": 1, "maximum": 86_400, "description": "per_move: seconds per turn"}
    )
    days_per_move = ma.fields.Integer(
        strict=True, metadata={"minimum": 1, "maximum": 60, "description": "correspondence: days per turn"}
    )


class RoleTokenCreate(Strict):
    role = ma.fields.String(
        required=True,
        validate=validate.OneOf(["organiser", "auditor"]),
        metadata={"example": "organiser", "description": "organiser: runs the leagues they create; auditor: "
                  "reads every game's audit and export, changes nothing"},
    )
    label = ma.fields.String(
        load_default="", validate=validate.Length(0, 80),
        metadata={"example": "Schaakclub Utrecht, spring cup", "description": "who holds it (for the admin's list)"},
    )
    principal_id = ma.fields.String(
        load_default=None, allow_none=True,
        metadata={"example": None, "description": "another token for an existing organiser or auditor "
                  "(rotation: the organiser keeps their leagues); omit for a new one"},
    )


class RoleToken(ma.Schema):
    id = ma.fields.String(metadata={"example": "5b0c1c9e-3f7a-4d3e-8f43-9a1f6e2b7c10", "description": "the token's id (to revoke it)"})
    role = ma.fields.String(metadata={"example": "organiser"})
    principal_id = ma.fields.String(metadata={
        "example": "0d9c5e7a-1b2f-4c3d-9e8f-7a6b5c4d3e2f",
        "description": "the organiser or auditor; a league records its organiser's id"})
    label = ma.fields.String(metadata={"example": "Schaakclub Utrecht, spring cup"})
    created_at = ma.fields.String(metadata={"example": "2026-05-01T20:15:00+00:00"})
    revoked_at = ma.fields.String(allow_none=True, metadata={"example": None})


class RoleTokenIssued(RoleToken):
    token = ma.fields.String(metadata={"example": "q3V...", "description": "the bearer token, shown once; only its hash is stored"})


class RoleTokenList(ma.Schema):
    items = ma.fields.List(ma.fields.Nested(RoleToken))


class RoleTokenQuery(Strict):
    role = ma.fields.String(load_default=None, validate=validate.OneOf(["organiser", "auditor"]))
    include_revoked = ma.fields.Boolean(load_default=False)


class GameCreate(Strict):
    game_type = ma.fields.String(required=True, metadata={"example": "paardenkoppen"})
    options = ma.fields.Dict(load_default=dict, metadata={"example": {}})
    seats = ma.fields.List(
        ma.fields.String(allow_none=True),
        validate=validate.Length(1, 8),
        metadata={"description": "player id per seat, null for an open seat", "example": [None, None, None]},
    )
    num_players = ma.fields.Integer(
        strict=True, validate=validate.Range(1, 8), metadata={"description": "all seats open; use instead of seats"}
    )
    seed = ma.fields.String(
        validate=validate.Regexp(r"^[0-9a-fA-F]{64}$"),
        metadata={"description": "admin only: fixed 32-byte server seed (hex), flagged by the audit"},
    )
    setup = ma.fields.List(
        ma.fields.List(ma.fields.Integer(strict=True, validate=bounded())),
        metadata={
            "description": "admin only: values of the first chance events "
            "(e.g. a deal recorded at a physical table), flagged by the audit"
        },
    )
    clock = ma.fields.Nested(
        ClockCreate,
        metadata={
            "description": CLOCK_DOC,
            "example": {"kind": "fischer", "base_seconds": 300, "increment_seconds": 5},
        },
    )
    timeout_policy = ma.fields.String(
        metadata={
            "enum": ["forfeit", "auto_move"],
            "example": "forfeit",
            "description": "what happens to a seat whose time runs out (default forfeit): `forfeit` ends the game "
            "with that seat (and its partners) last; `auto_move` plays a legal move for it, chosen from the "
            "committed seed, and the game goes on (only the game types whose `clock.timeout_policies` in "
            "GET /v1/game-types list it: the card games)",
        }
    )


class TableCheckBody(Strict):
    game_type = ma.fields.String(required=True, metadata={"example": "hoppaa"})
    player_counts = ma.fields.List(
        ma.fields.Integer(strict=True, validate=validate.Range(1, 8)),
        required=True,
        validate=validate.Length(1, 8),
        metadata={"description": "the table sizes to check", "example": [3, 4]},
    )
    options = ma.fields.Dict(load_default=dict, metadata={"example": {"mode": "team"}})
    clock = ma.fields.Dict(
        metadata={"description": "as `clock` of POST /v1/games", "example": {"kind": "per_move", "seconds": 60}}
    )
    timeout_policy = ma.fields.String(metadata={"example": "forfeit", "description": "as in POST /v1/games"})


class TableCheckSchema(ma.Schema):
    game_type = ma.fields.String(metadata={"example": "hoppaa"})
    tables = ma.fields.List(
        ma.fields.Dict(),
        metadata={
            "description": "per table size: `num_players`, the normalized `options` (with the length option) "
            "and `max_length`",
            "example": [{"num_players": 4, "options": {"mode": "team", "max_rounds": 300}, "max_length": {
                "option": "max_rounds", "unit": "rounds", "limit": 300, "rule": "HP-R-LEN"}}],
        },
    )
    clock = ma.fields.Dict(
        allow_none=True, metadata={"description": "the normalized clock (defaults filled in); null: none",
                                   "example": {"kind": "per_move", "seconds": 60}},
    )
    timeout_policy = ma.fields.String(allow_none=True, metadata={"example": "forfeit"})


class SeatSchema(ma.Schema):
    seat = ma.fields.Integer()
    player_id = ma.fields.String(allow_none=True)
    display_name = ma.fields.String(allow_none=True, metadata={"example": "Anneke"})
    bot = bot_field()


class SeatBotBody(Strict):
    level = ma.fields.String(
        required=True,
        validate=validate.OneOf(BOT_LEVELS),
        metadata={
            "example": "rules",
            "description": "random: a uniformly random legal move; rules: a heuristic from the rules spec; "
            "strong: a search (ISMCTS) within the think budget",
        },
    )


class GameSummarySchema(ma.Schema):
    """A game in ``GET /v1/games``: the same fields, with the same names, as the game detail."""

    id = ma.fields.String()
    game_type = ma.fields.String()
    options = ma.fields.Dict()
    num_players = ma.fields.Integer()
    status = ma.fields.String(metadata={"enum": list(STATUSES)})
    version = ma.fields.Integer(
        metadata={"description": "number of events so far; send it as expected_version"}
    )
    seats = ma.fields.List(ma.fields.Nested(SeatSchema))
    to_move = ma.fields.List(ma.fields.Integer())
    outcome = ma.fields.Dict(allow_none=True, metadata={"description": "ranks and scores per seat and team"})
    deadline = ma.fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "when the first seat to run out of time does so, if it does not move (the earliest "
            "deadline of a running clock; null: no clock, a paused clock or a game that ended)",
        },
    )


class GameSchema(GameSummarySchema):
    """``GET /v1/games/{id}``: the summary plus the caller's seat and view."""

    your_seat = ma.fields.Integer(allow_none=True)
    waiting_for = ma.fields.Dict(
        allow_none=True,
        metadata={
            "description": "content the game waits for from another service (e.g. a CityHopper question)"
        },
    )
    view = ma.fields.Dict(
        allow_none=True,
        metadata={
            "description": "the game as the caller may see it: the View<GameType> schema of its `game_type` "
            "(" + ", ".join(f"{g}: {name}" for g, name in VIEW_COMPONENTS.items()) + "), also in "
            "`view_schema` of GET /v1/game-types",
            "anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in VIEW_COMPONENTS.values()],
        },
    )
    commitment = ma.fields.String(metadata={"description": "SHA-256 of the secret server seed"})
    revealed_seed = ma.fields.String(allow_none=True)
    status_now = ma.fields.String(metadata={
        "x-only-for": "GET .../state", "description": "GET .../state only: the game's status now (`status` is "
        "the status at the version asked for)"})
    clock = ma.fields.Nested(
        "ClockView",
        allow_none=True,
        metadata={"description": "the table's clock and each seat's time left (null: no clock)"},
    )


class ClockSeat(ma.Schema):
    seat = ma.fields.Integer(metadata={"example": 0})
    remaining_seconds = ma.fields.Float(metadata={"example": 287.5, "description": "time left at `as_of`"})
    running = ma.fields.Boolean(metadata={"example": True, "description": "this seat's clock runs now"})
    deadline = ma.fields.String(
        allow_none=True,
        metadata={"example": "2026-12-01T17:05:12.250000+00:00", "description": "when its time runs out"},
    )


class ClockView(ma.Schema):
    kind = ma.fields.String(metadata={"enum": ["fischer", "per_move", "correspondence"], "example": "fischer"})
    base_seconds = ma.fields.Integer(metadata={"example": 300, "x-only-for": "fischer"})
    increment_seconds = ma.fields.Integer(metadata={"example": 5, "x-only-for": "fischer"})
    seconds = ma.fields.Integer(metadata={"x-only-for": "per_move", "description": "per_move: seconds per move"})
    days_per_move = ma.fields.Integer(metadata={"x-only-for": "correspondence",
                                                "description": "correspondence: days per move"})
    timeout_policy = ma.fields.String(metadata={"enum": ["forfeit", "auto_move"], "example": "forfeit"})
    as_of = ma.fields.String(
        allow_none=True,
        metadata={"example": "2026-12-01T17:00:24.750000+00:00",
                  "description": "the time the remaining times are given for: the server's now while the game "
                  "runs (at a past version: the time recorded with it)"},
    )
    paused = ma.fields.Boolean(
        metadata={"example": False, "description": "the game waits for another service (a question); no clock runs"}
    )
    deadline = ma.fields.String(
        allow_none=True, metadata={"example": "2026-12-01T17:05:12.250000+00:00",
                                   "description": "the earliest deadline of a running clock"}
    )
    seats = ma.fields.List(ma.fields.Nested(ClockSeat))
    version = ma.fields.Integer(metadata={
        "x-only-for": "live streams", "description": "in a live stream's clock event or line only: the game's "
        "version the times are for"})


class GameList(ma.Schema):
    items = ma.fields.List(ma.fields.Nested(GameSummarySchema))
    total = ma.fields.Integer()
    limit = ma.fields.Integer()
    offset = ma.fields.Integer()


class ListQuery(Strict):
    player = ma.fields.String()
    status = ma.fields.String(validate=validate.OneOf(STATUSES))
    game_type = ma.fields.String()
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(1, 200))
    offset = ma.fields.Integer(load_default=0, validate=bounded())


class JoinBody(Strict):
    seat = ma.fields.Integer(strict=True, validate=validate.Range(0, 7))
    client_seed = ma.fields.String(
        metadata={"example": "my-lucky-words", "description": "mixed into every chance value (fairness)"}
    )


class MoveBody(Strict):
    move = ma.fields.Dict(required=True, metadata={"example": {"type": "play_card", "card": "H6"}})
    expected_version = ma.fields.Integer(
        required=True, strict=True, validate=bounded(), metadata={"example": 7, "description": "a JSON integer"}
    )


class EventItem(ma.Schema):
    version = ma.fields.Integer()
    type = ma.fields.String()
    payload = ma.fields.Dict()
    recorded_at = ma.fields.String()


class ClockLine(ma.Schema):
    """A line of the NDJSON stream that is not an event: on a clocked table, the clock after each batch."""

    type = ma.fields.String(required=True, metadata={"enum": ["clock"], "example": "clock"})
    clock = ma.fields.Nested(ClockView, required=True, metadata={
        "description": "the game's `clock` with each seat's remaining time and the deadline, plus `version`"})


class MoveResult(ma.Schema):
    version = ma.fields.Integer()
    status = ma.fields.String()
    events = ma.fields.List(ma.fields.Nested(EventItem))


class LegalMoves(ma.Schema):
    version = ma.fields.Integer()
    seat = ma.fields.Integer(allow_none=True)
    moves = ma.fields.List(ma.fields.Dict(), metadata={"description": "each can be POSTed unchanged as move"})


class EventsQuery(Strict):
    after = ma.fields.Integer(load_default=0, validate=bounded())
    limit = ma.fields.Integer(load_default=500, validate=validate.Range(1, 1000))


class StreamQuery(Strict):
    after = ma.fields.Integer(validate=bounded())
    timeout = ma.fields.Float(load_default=300.0, validate=validate.Range(0.1, 3600))


class EventLog(ma.Schema):
    game_id = ma.fields.String()
    version = ma.fields.Integer()
    status = ma.fields.String()
    events = ma.fields.List(ma.fields.Nested(EventItem))


class StateQuery(Strict):
    version = ma.fields.Integer(required=True, validate=bounded(1))


class AbortBody(Strict):
    reason = ma.fields.String(load_default="aborted by an organiser", validate=validate.Length(1, 500))


class GameTypeSchema(ma.Schema):
    id = ma.fields.String()
    title = ma.fields.String()
    spec = ma.fields.String()
    player_counts = ma.fields.List(ma.fields.Integer(), metadata={"description": "allowed num_players"})
    card_notation = ma.fields.Dict(metadata={
        "description": "how this game writes cards in moves, views and events: family, description, pattern,"
        " examples (one notation per family: french for Klapper, HopPaa, ROPARUN)",
        "example": {"family": "animal", "description": "animal, hyphen, rank 1-13", "examples": ["horse-13"]},
    })
    options_schema = ma.fields.Dict()
    max_length = ma.fields.Dict(
        allow_none=True,
        metadata={
            "description": "the game's documented maximum length (issue 17.2, README \"Game length\"): `unit` "
            "(rounds, deals, turns), `default`, `minimum`, `maximum`, the table `option` that sets it and the "
            "`rule` (a platform ruling: the specs are silent, and HopPaa's HP-46 'no round limit' governs its "
            "rules of play, not the platform's adjudication); a game that would start unit limit+1 is ended by "
            "`GameAdjudicated` and `GameFinished`",
            "example": {"option": "max_deals", "unit": "deals", "default": 100, "minimum": 1, "maximum": 1000,
                        "rule": "KL-R-LEN", "description": "KL-R-LEN: at most this many deals ..."},
        },
    )
    view_schema = ma.fields.Dict(
        allow_none=True,
        metadata={"description": "JSON Schema (2020-12) of the game's `view`: a seat's, a spectator's and the "
                  "admins' full view"},
    )
    variants = ma.fields.List(ma.fields.Dict())
    moves = ma.fields.List(ma.fields.Dict())
    clock = ma.fields.Dict(
        metadata={
            "description": "the clocks a table of this game can have (`clock` of POST /v1/games) and the "
            "timeout policies it allows: `auto_move` only where a seat can be played for (the card games); "
            "`schema`: the JSON Schema (2020-12) of `clock` and `timeout_policy` as POST /v1/games takes them "
            "(per kind its fields with unit `x-unit`, bounds and default; the game's timeout policies), which "
            "other services validate with at their door",
            "example": {
                "kinds": ["fischer", "per_move", "correspondence"],
                "timeout_policies": ["forfeit", "auto_move"],
                "limits": {"base_seconds": [1, 86400], "increment_seconds": [0, 3600], "seconds": [1, 86400],
                           "days_per_move": [1, 60]},
            },
        }
    )


class ExportSchema(ma.Schema):
    format = ma.fields.String()
    game_id = ma.fields.String()
    game_type = ma.fields.String()
    status = ma.fields.String()
    scheme = ma.fields.String()
    commitment = ma.fields.String()
    revealed_seed = ma.fields.String(allow_none=True)
    head = ma.fields.Dict()
    events = ma.fields.List(ma.fields.Dict())


class AuditSchema(ma.Schema):
    game_id = ma.fields.String()
    ok = ma.fields.Boolean()
    checks = ma.fields.List(ma.fields.Dict())
    flags = ma.fields.List(ma.fields.String())
