"""Request and response schemas of the matchmaking API (marshmallow, documented in OpenAPI)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from services.matchmaking.domain.league_rules import CHOICES
from shared.bots import BOT_LEVELS
from shared.players import player_field, players_field
from shared.web.bounds import bounded

TICKET_STATUSES = ("waiting", "matched", "ready", "finished", "aborted", "cancelled", "failed")
PLAYER = "2f0a4c8e-8d0b-4a53-9b0e-4d6f8a3c1b2e"
GAME = "7d9b1c52-3f0e-5a8e-9c1d-2b4e6f8a0c13"


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


CLOCK_DOC = ("the tables' clock, as POST /v1/games of the games service takes it (README \"Clocks\"): "
             "`{\"kind\": \"fischer\", \"base_seconds\": 300, \"increment_seconds\": 5}`, `{\"kind\": "
             "\"per_move\", \"seconds\": 60}` or `{\"kind\": \"correspondence\", \"days_per_move\": 3}`; "
             "checked against the games service's `GET /v1/game-types` `clock.schema` (422 naming e.g. "
             "`clock.base_seconds`); leave it out for no clock")
POLICY_DOC = ("what happens to a seat whose time runs out: `forfeit` (default) or `auto_move` (only the game "
              "types whose `clock.timeout_policies` list it)")


def clock_field() -> ma.fields.Dict:
    return ma.fields.Dict(metadata={"description": CLOCK_DOC, "example": {"kind": "per_move", "seconds": 60}})


def policy_field() -> ma.fields.String:
    return ma.fields.String(validate=validate.Length(1, 40), metadata={"description": POLICY_DOC,
                                                                       "example": "forfeit"})


def clock_view() -> ma.fields.Dict:
    return ma.fields.Dict(allow_none=True, metadata={
        "example": {"kind": "per_move", "seconds": 60},
        "description": "the clock (normalized by the games service; null: none)"})


def policy_view() -> ma.fields.String:
    return ma.fields.String(allow_none=True, metadata={"example": "forfeit"})


class TicketCreate(Strict):
    game_type = ma.fields.String(required=True, validate=validate.Regexp(r"^[a-z][a-z0-9_-]{0,39}$"),
                                 metadata={"example": "paardenkoppen"})
    options = ma.fields.Dict(load_default=dict, metadata={"example": {}, "description": "only tickets with"
                             " exactly these options meet"})
    player_counts = ma.fields.List(
        ma.fields.Integer(validate=validate.Range(2, 8)), required=True, validate=validate.Length(1, 7),
        metadata={"example": [4, 3], "description": "acceptable table sizes; larger tables form first"},
    )
    mode = ma.fields.String(load_default="solo", validate=validate.OneOf(("solo", "team")),
                            metadata={"example": "solo", "description": "solo: free-for-all; team: the table is"
                                      " split into two teams balanced by predicted win probability"})
    allow_bots = ma.fields.Boolean(load_default=False, metadata={
        "example": True, "description": "solo tickets: after MATCHMAKING_BOT_FILL_AFTER seconds (default 30)"
        " of waiting, fill the table's other seats with bots"})
    bot_level = ma.fields.String(load_default="rules", validate=validate.OneOf(BOT_LEVELS),
                                 metadata={"example": "rules", "description": "the level of those bots"})
    clock = clock_field()
    timeout_policy = policy_field()


class RatingInfo(ma.Schema):
    pool = ma.fields.String(metadata={"example": "paardenkoppen"})
    mu = ma.fields.Float(metadata={"example": 25.0})
    sigma = ma.fields.Float(metadata={"example": 8.333})
    source = ma.fields.String(metadata={"example": "ratings", "description": "ratings, or default when the"
                                        " ratings service did not answer"})


class FailureSchema(ma.Schema):
    reason = ma.fields.String(metadata={"example": "the team game needs exactly 4 players",
                                        "description": "the games service's reason for refusing the game"})
    field = ma.fields.String(allow_none=True, metadata={"example": "options.mode"})
    rule = ma.fields.String(allow_none=True, metadata={"example": "HP-47"})


def failure_field() -> ma.fields.Nested:
    return ma.fields.Nested(FailureSchema, allow_none=True, metadata={
        "example": None, "description": "status failed: why the games service refused the table's game (else null)"})


class TicketSchema(ma.Schema):
    id = ma.fields.String(metadata={"example": "0b3c6a1e-2f4d-4b8a-9e7c-5d1f3a2b4c6d"})
    player_id = ma.fields.String(metadata={"example": PLAYER})
    player = player_field("the ticket's player with their display name")
    game_type = ma.fields.String(metadata={"example": "paardenkoppen"})
    options = ma.fields.Dict(metadata={"example": {}})
    player_counts = ma.fields.List(ma.fields.Integer(), metadata={"example": [4]})
    mode = ma.fields.String(metadata={"example": "solo"})
    allow_bots = ma.fields.Boolean(metadata={"example": False})
    bot_level = ma.fields.String(metadata={"enum": list(BOT_LEVELS), "example": "rules"})
    clock = clock_view()
    timeout_policy = policy_view()
    status = ma.fields.String(metadata={"enum": list(TICKET_STATUSES), "example": "ready"})
    rating = ma.fields.Nested(RatingInfo)
    waited_seconds = ma.fields.Float(metadata={"example": 12.5})
    table_id = ma.fields.String(allow_none=True, metadata={"description": "request id sent to the games service",
                                                           "example": None})
    private = ma.fields.Boolean(metadata={"example": False})
    seat = ma.fields.Integer(allow_none=True, metadata={"example": 2})
    team = ma.fields.Integer(allow_none=True, metadata={"example": None})
    seats = ma.fields.List(ma.fields.String(allow_none=True), allow_none=True, metadata={
        "example": [PLAYER], "description": "player ids in seat order; null where a bot sits"})
    players = players_field("the seated players with their display names, in seat order; null where a bot sits",
                            nullable_items=True, allow_none=True)
    teams = ma.fields.List(ma.fields.List(ma.fields.Integer()), allow_none=True,
                           metadata={"example": [[0, 2], [1, 3]], "description": "seat indices per team"})
    reason = ma.fields.String(allow_none=True, metadata={"example": "4 tickets for paardenkoppen (solo); rating"
                                                         " spread 1.20; longest wait 14s"})
    invite_code = ma.fields.String(allow_none=True, metadata={"example": None})
    game_id = ma.fields.String(allow_none=True, metadata={"example": GAME})
    failure = failure_field()
    created_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:00+00:00"})
    updated_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:14+00:00"})


class StreamQuery(Strict):
    timeout = ma.fields.Float(load_default=300.0, validate=validate.Range(0.1, 3600),
                              metadata={"example": 60, "description": "seconds before the server closes"})
    interval = ma.fields.Float(load_default=15.0, validate=validate.Range(0.05, 300),
                               metadata={"example": 15.0, "description": "seconds between fallback checks and"
                                         " keep-alives (changes are pushed at once)"})


class TickResult(ma.Schema):
    formed = ma.fields.List(ma.fields.String(), metadata={"example": ["5e8f2a1c-9b3d-4e6f-8a2c-1d3e5f7a9b0c"]})


class PrivateTableCreate(Strict):
    game_type = ma.fields.String(required=True, validate=validate.Regexp(r"^[a-z][a-z0-9_-]{0,39}$"),
                                 metadata={"example": "klapper"})
    options = ma.fields.Dict(load_default=dict, metadata={"example": {}})
    num_players = ma.fields.Integer(required=True, validate=validate.Range(2, 8), metadata={"example": 4})
    clock = clock_field()
    timeout_policy = policy_field()


class JoinBody(Strict):
    code = ma.fields.String(required=True, validate=validate.Length(4, 16), metadata={"example": "K7QW2MZP"})


class PrivateTableSchema(ma.Schema):
    id = ma.fields.String(metadata={"example": "5e8f2a1c-9b3d-4e6f-8a2c-1d3e5f7a9b0c"})
    game_type = ma.fields.String(metadata={"example": "klapper"})
    options = ma.fields.Dict(metadata={"example": {}})
    num_players = ma.fields.Integer(metadata={"example": 4})
    seats = ma.fields.List(ma.fields.String(), metadata={"example": [PLAYER]})
    players = players_field("the seated players with their display names, in seat order")
    invite_code = ma.fields.String(metadata={"example": "K7QW2MZP"})
    clock = clock_view()
    timeout_policy = policy_view()
    status = ma.fields.String(metadata={"enum": ["open", "requested", "created", "finished", "aborted", "failed"],
                                        "example": "open"})
    game_id = ma.fields.String(allow_none=True, metadata={"example": None})
    your_ticket_id = ma.fields.String(allow_none=True, metadata={"example": "0b3c6a1e-2f4d-4b8a-9e7c-5d1f3a2b4c6d"})
    created_by = ma.fields.String(metadata={"example": PLAYER})
    creator = player_field("who made the table, with their display name")
    created_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:00+00:00"})


class LeagueRulesSchema(Strict):
    withdrawal = ma.fields.String(load_default="not_paired", validate=validate.OneOf(CHOICES["withdrawal"]),
                                  metadata={"example": "not_paired", "description": "not_paired: a withdrawn player"
                                            " is no longer seated; forfeit: they stay in the seatings and each"
                                            " later game is a forfeit loss"})
    forfeit = ma.fields.String(load_default="win", validate=validate.OneOf(CHOICES["forfeit"]),
                               metadata={"example": "win", "description": "win: every present player scores a"
                                         " win (n-1 points at a table of n); shared: the present tie for first;"
                                         " the absent score 0"})
    bye = ma.fields.String(load_default="half", validate=validate.OneOf(CHOICES["bye"]),
                           metadata={"example": "half", "description": "a bye scores half a win ((n-1)/2 at the"
                                     " round's largest table), a win (n-1) or zero"})
    late_entry = ma.fields.String(load_default="zero", validate=validate.OneOf(CHOICES["late_entry"]),
                                  metadata={"example": "half", "description": "points for each round a late"
                                            " entrant missed: zero, or half (a half-point bye each)"})
    void_table = ma.fields.String(load_default="no_score", validate=validate.OneOf(CHOICES["void_table"]),
                                  metadata={"example": "no_score", "description": "a table the organiser voids"
                                            " (no result): no_score (counts for nobody) or bye (a bye each)"})


class LeagueCreate(Strict):
    name = ma.fields.String(required=True, validate=validate.Length(1, 120), metadata={"example": "Spring league"})
    game_type = ma.fields.String(required=True, validate=validate.Regexp(r"^[a-z][a-z0-9_-]{0,39}$"),
                                 metadata={"example": "paardenkoppen"})
    options = ma.fields.Dict(load_default=dict, metadata={"example": {}})
    participants = ma.fields.List(ma.fields.String(), required=True, validate=validate.Length(2, 2000),
                                  metadata={"example": [PLAYER, "5b1d...", "..."],
                                            "description": "player ids, in seeding order"})
    rounds = ma.fields.Integer(required=True, validate=validate.Range(1, 100), metadata={"example": 3})
    table_sizes = ma.fields.List(ma.fields.Integer(validate=validate.Range(2, 8)), required=True,
                                 validate=validate.Length(1, 7),
                                 metadata={"example": [4, 3], "description": "the first size is preferred; the"
                                           " others absorb the remainder, then byes"})
    format = ma.fields.String(load_default="auto", validate=validate.OneOf(("auto", "round_robin", "swiss")),
                              metadata={"example": "auto", "description": "auto: round robin when every player"
                                        " can meet every other, else Swiss"})
    seeding = ma.fields.String(load_default="given", validate=validate.OneOf(("given", "rating")),
                               metadata={"example": "given", "description": "rating: seed by the ratings service"})
    rules = ma.fields.Nested(LeagueRulesSchema, load_default=dict, metadata={
        "description": "how withdrawals, forfeits, byes, late entries and voided tables score (see README: Running"
        " a league)"})
    clock = clock_field()
    timeout_policy = policy_field()


class LeagueTableSchema(ma.Schema):
    request_id = ma.fields.String(metadata={"example": "league:4c1e...:r1:t1"})
    round = ma.fields.Integer(metadata={"example": 1})
    table_no = ma.fields.Integer(metadata={"example": 1})
    seats = ma.fields.List(ma.fields.String(), metadata={"example": [PLAYER]})
    players = players_field("the seated players with their display names, in seat order")
    reason = ma.fields.String(metadata={"example": "Swiss round 2, table 1: standings places 1, 2, 3, 5 (points"
                                        " 3, 3, 2, 2); places skipped to avoid repeat table-mates; seats by"
                                        " earlier seat positions (earliest seats move last)"})
    replay_of = ma.fields.String(allow_none=True, metadata={"example": None,
                                                           "description": "the game this one replays (a ruling)"})
    game_id = ma.fields.String(allow_none=True, metadata={"example": GAME})
    status = ma.fields.String(metadata={"enum": ["requested", "created", "finished", "aborted", "failed",
                                                 "forfeited", "void", "replaced"], "example": "finished",
                                        "description": "aborted and failed tables count for nobody and wait"
                                        " for a re-seat, a forfeit or a void; replaced: re-seated or replayed;"
                                        " void: a ruling, or no result by the organiser"})
    failure = failure_field()
    ranks = ma.fields.List(ma.fields.Integer(), allow_none=True, metadata={"example": [2, 1, 4, 3]})
    scores = ma.fields.List(ma.fields.Float(), allow_none=True, metadata={"example": [12, 15, 3, 8]})
    points = ma.fields.List(ma.fields.Float(), allow_none=True, metadata={
        "example": [2.0, 3.0, 0.0, 1.0], "description": "league points per seat (finished or forfeited)"})
    absent = ma.fields.List(ma.fields.String(), allow_none=True, metadata={
        "example": None, "description": "forfeits: the seated players who did not show (or ran out of time)"})
    options = ma.fields.Dict(allow_none=True, metadata={
        "example": None, "description": "a re-seat's own options (null: the league's)"})
    clock = ma.fields.Dict(allow_none=True, metadata={
        "example": None, "description": "a re-seat's own clock (null: the league's)"})
    timeout_policy = ma.fields.String(allow_none=True, metadata={"example": None})
    no_clock = ma.fields.Boolean(metadata={
        "example": False, "description": "true: a re-seat took the clock away (this table's game has none)"})
    void_reason = ma.fields.String(allow_none=True, metadata={
        "example": None, "description": "void: why the organiser gave the table no result"})


class RoundSchema(ma.Schema):
    round = ma.fields.Integer(metadata={"example": 1})
    complete = ma.fields.Boolean(metadata={"example": True})
    tables = ma.fields.List(ma.fields.Nested(LeagueTableSchema))
    byes = ma.fields.List(ma.fields.String(), metadata={"example": []})
    bye_players = players_field("the players with a bye this round, with their display names")


class DisputeSchema(ma.Schema):
    dispute_id = ma.fields.String(metadata={"example": "9a7b5c3d-1e2f-4a6b-8c0d-2e4f6a8b0c1d"})
    game_id = ma.fields.String(metadata={"example": GAME})
    reason = ma.fields.String(metadata={"example": "a player says a card was shown"})
    audit = ma.fields.Dict(metadata={"example": {"available": True, "ok": True},
                                     "description": "the games service's audit report at the time of the flag"})
    status = ma.fields.String(metadata={"enum": ["open", "ruled"], "example": "open"})
    ruling = ma.fields.String(allow_none=True, metadata={"enum": ["result_stands", "void", "replay", None],
                                                         "example": None, "description": "null until ruled"})
    note = ma.fields.String(allow_none=True, metadata={"example": None})
    replay_request_id = ma.fields.String(allow_none=True, metadata={"example": None})


class LeagueSchema(ma.Schema):
    id = ma.fields.String(metadata={"example": "4c1e8a2b-6d3f-4b5a-9c7e-1f3a5b7d9e0c"})
    name = ma.fields.String(metadata={"example": "Spring league"})
    game_type = ma.fields.String(metadata={"example": "paardenkoppen"})
    options = ma.fields.Dict(metadata={"example": {}})
    participants = players_field("the league's players with their display names")
    rounds = ma.fields.Integer(metadata={"example": 3})
    table_sizes = ma.fields.List(ma.fields.Integer(), metadata={"example": [4]})
    format = ma.fields.String(metadata={"enum": ["round_robin", "swiss"], "example": "swiss"})
    status = ma.fields.String(metadata={"enum": ["running", "completed"], "example": "running"})
    seated_rounds = ma.fields.Integer(metadata={"example": 1})
    version = ma.fields.Integer(metadata={"example": 4, "description": "events in the league's stream"})
    schedule = ma.fields.List(ma.fields.Nested(RoundSchema))
    disputes = ma.fields.List(ma.fields.Nested(DisputeSchema))
    rules = ma.fields.Dict(metadata={"example": {"withdrawal": "not_paired", "forfeit": "win", "bye": "half",
                                                 "late_entry": "zero", "void_table": "no_score"}})
    clock = clock_view()
    timeout_policy = policy_view()
    withdrawals = ma.fields.List(ma.fields.Dict(), metadata={"example": [{
        "player_id": PLAYER, "display_name": "Anneke", "from_round": 2, "rule": "not_paired", "reason": "moved abroad", "by": "admin"}]})
    late_entries = ma.fields.List(ma.fields.Dict(), metadata={"example": [{
        "player_id": PLAYER, "display_name": "Anneke", "from_round": 3, "missed_rounds": [1, 2], "points_per_missed_round": 0.5,
        "rule": "half", "by": "admin"}]})
    pairing_overrides = ma.fields.List(ma.fields.Dict(), metadata={"example": [{
        "round": 3, "tables": [[PLAYER, "5b1d..."]], "byes": [], "reason": "brothers may not meet",
        "by": "admin"}]})


class LeagueSummary(ma.Schema):
    id = ma.fields.String(metadata={"example": "4c1e8a2b-6d3f-4b5a-9c7e-1f3a5b7d9e0c"})
    name = ma.fields.String(metadata={"example": "Spring league"})
    game_type = ma.fields.String(metadata={"example": "paardenkoppen"})
    status = ma.fields.String(metadata={"example": "running"})
    rounds = ma.fields.Integer(metadata={"example": 3})
    seated_rounds = ma.fields.Integer(metadata={"example": 1})
    created_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:00+00:00"})


class LeagueList(ma.Schema):
    items = ma.fields.List(ma.fields.Nested(LeagueSummary))
    total = ma.fields.Integer(metadata={"example": 1})
    limit = ma.fields.Integer(metadata={"example": 50})
    offset = ma.fields.Integer(metadata={"example": 0})


class ListQuery(Strict):
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(1, 200), metadata={"example": 50})
    offset = ma.fields.Integer(load_default=0, validate=bounded(), metadata={"example": 0})


class StandingRow(ma.Schema):
    place = ma.fields.Integer(metadata={"example": 1})
    player_id = ma.fields.String(metadata={"example": PLAYER})
    display_name = ma.fields.String(allow_none=True, metadata={"example": "Anneke"})
    points = ma.fields.Float(metadata={"example": 7.5})
    buchholz = ma.fields.Float(metadata={"example": 31.0})
    wins = ma.fields.Integer(metadata={"example": 2})
    score = ma.fields.Float(metadata={"example": 41.0})
    games = ma.fields.Integer(metadata={"example": 3})
    byes = ma.fields.Integer(metadata={"example": 0})
    provisional = ma.fields.Boolean(metadata={"example": False, "description": "a counted game is under dispute"})
    seed = ma.fields.Integer(metadata={"example": 4, "description": "seeding order (late entrants last)"})
    withdrawn_from_round = ma.fields.Integer(allow_none=True, metadata={"example": None})
    entered_round = ma.fields.Integer(metadata={"example": 1, "description": "the first round played"})
    missed_rounds = ma.fields.List(ma.fields.Integer(), metadata={"example": []})
    decided_by = ma.fields.String(metadata={
        "enum": ["points", "buchholz", "wins", "score", "seed"], "example": "buchholz",
        "description": "the deepest tie-break needed to separate this place from the ones above and below"})
    explanation = ma.fields.String(metadata={"example": "behind 5b1d...: points 3 to 2; ahead of 9c2e...: level"
                                             " on points (2), buchholz 5 to 4"})


class StandingsSchema(ma.Schema):
    league_id = ma.fields.String(metadata={"example": "4c1e8a2b-6d3f-4b5a-9c7e-1f3a5b7d9e0c"})
    status = ma.fields.String(metadata={"example": "running"})
    tie_breaks = ma.fields.List(ma.fields.String(), metadata={"example": ["points", "buchholz", "wins", "score",
                                                                          "seed"]})
    provisional = ma.fields.Boolean(metadata={"example": False})
    disputed_games = ma.fields.List(ma.fields.String(), metadata={"example": []})
    rows = ma.fields.List(ma.fields.Nested(StandingRow))


class ExportQuery(Strict):
    format = ma.fields.String(load_default="json", validate=validate.OneOf(("json", "csv")),
                              metadata={"example": "csv"})


class DisputeCreate(Strict):
    game_id = ma.fields.String(required=True, metadata={"example": GAME})
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000),
                              metadata={"example": "a player says a card was shown"})


class RulingBody(Strict):
    ruling = ma.fields.String(required=True, validate=validate.OneOf(("result_stands", "void", "replay")),
                              metadata={"example": "void"})
    note = ma.fields.String(validate=validate.Length(1, 1000), metadata={"example": "the deal was misdealt"})


class LeagueEvent(ma.Schema):
    version = ma.fields.Integer(metadata={"example": 1})
    type = ma.fields.String(metadata={"example": "DisputeRuled"})
    payload = ma.fields.Dict(metadata={"example": {"ruling": "void"}})
    recorded_at = ma.fields.String(allow_none=True, metadata={"example": "2024-05-01T12:00:14+00:00"})
    hash = ma.fields.String(metadata={"example": "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c1b3d5f7e9a1c3b5d7f9e1a3c5b7d9f1e"})


class LeagueEvents(ma.Schema):
    league_id = ma.fields.String(metadata={"example": "4c1e8a2b-6d3f-4b5a-9c7e-1f3a5b7d9e0c"})
    events = ma.fields.List(ma.fields.Nested(LeagueEvent))


class WithdrawBody(Strict):
    player_id = ma.fields.String(required=True, metadata={"example": PLAYER})
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000), metadata={"example": "moved abroad"})


class EnterBody(Strict):
    player_id = ma.fields.String(required=True, metadata={"example": PLAYER})


class ForfeitBody(Strict):
    absent = ma.fields.List(ma.fields.String(), required=True, validate=validate.Length(1, 7),
                            metadata={"example": [PLAYER], "description": "the seated players who did not show"
                                      " (or whose clock fell)"})
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000),
                              metadata={"example": "did not show within 15 minutes"})


class ReseatBody(Strict):
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000),
                              metadata={"example": "the server restarted during the game"})
    seats = ma.fields.List(ma.fields.String(), validate=validate.Length(2, 8), metadata={
        "example": [PLAYER, "5b1d..."], "description": "new seats in seat order (players of this table or with a bye that"
        " round; one left out has a bye); omit for the same seats"})
    options = ma.fields.Dict(metadata={"example": {"mode": "solo"}, "description": "the new game's options"
                                       " (omit: the table's); checked at the door"})
    clock = clock_field()
    timeout_policy = policy_field()
    no_clock = ma.fields.Boolean(load_default=False, metadata={
        "example": False, "description": "true: the new game has no clock, whatever the league's or the table's"
        " (not with clock or timeout_policy: 422 naming no_clock); a later re-seat keeps it so unless it gives"
        " a clock"})

    @ma.validates_schema
    def _no_clock_alone(self, data: dict[str, object], **_: object) -> None:
        if data.get("no_clock") and (data.get("clock") is not None or data.get("timeout_policy") is not None):
            raise ma.ValidationError("no_clock takes the clock away: give no clock or timeout_policy with it",
                                     field_name="no_clock")


class VoidBody(Strict):
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000),
                              metadata={"example": "the team game cannot be played at a table of three"})


class PairBody(Strict):
    tables = ma.fields.List(ma.fields.List(ma.fields.String(), validate=validate.Length(2, 8)), required=True,
                            validate=validate.Length(1, 1000),
                            metadata={"example": [[PLAYER, "5b1d..."]], "description": "player ids per table,"
                                      " in seat order"})
    byes = ma.fields.List(ma.fields.String(), load_default=list, validate=validate.Length(0, 1000),
                          metadata={"example": []})
    reason = ma.fields.String(required=True, validate=validate.Length(1, 1000),
                              metadata={"example": "brothers may not meet in the last round"})


class ResultsQuery(Strict):
    format = ma.fields.String(load_default="json", validate=validate.OneOf(("json", "csv", "trf")),
                              metadata={"example": "csv", "description": "trf: FIDE TRF-16-like, leagues of"
                                        " two-player tables only"})
