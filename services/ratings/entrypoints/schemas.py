"""Request and response schemas of the ratings API (marshmallow, documented in OpenAPI)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from shared.web.bounds import bounded

PLAYER_ID = "2f0a4c8e-8d0b-4a53-9b0e-4d6f8a3c1b2e"
GAME_ID = "7c1e9a52-0f4b-4d3e-a1c2-5b6d7e8f9a01"


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


def player_id_field() -> ma.fields.String:
    return ma.fields.String(validate=validate.Length(1, 100))


class PoolItem(ma.Schema):
    pool = ma.fields.String(metadata={"example": "klapper/4"})
    game_type = ma.fields.String(metadata={"example": "klapper"})
    mode = ma.fields.String(metadata={"enum": ["free-for-all", "teams"], "example": "teams"})
    player_counts = ma.fields.List(ma.fields.Integer(), metadata={
        "example": [4], "description": "numbers of players of the pool's games (`player_counts` as in GET "
        "/v1/game-types of the games service; empty for a pool outside the catalogue)"})
    description = ma.fields.String(metadata={"example": "Klapper, 2 v 2 partnerships (fixed seating or omboeren)."})
    games_rated = ma.fields.Integer(metadata={"example": 120})
    players_rated = ma.fields.Integer(metadata={"example": 37})


class Initial(ma.Schema):
    mu = ma.fields.Float(metadata={"example": 25.0})
    sigma = ma.fields.Float(metadata={"example": 8.333333333333334})


class PoolList(ma.Schema):
    items = ma.fields.List(ma.fields.Nested(PoolItem))
    model = ma.fields.String(metadata={"example": "openskill Weng-Lin Plackett-Luce"})
    initial = ma.fields.Nested(Initial)
    ordinal = ma.fields.String(metadata={"example": "mu - 3 * sigma"})
    provisional_sigma = ma.fields.Float(
        metadata={"example": 7.0, "description": "a rating is provisional while sigma is above this"}
    )


class LeaderboardQuery(Strict):
    limit = ma.fields.Integer(load_default=50, validate=validate.Range(1, 200), metadata={"example": 50})
    offset = ma.fields.Integer(load_default=0, validate=bounded(), metadata={"example": 0})
    provisional = ma.fields.Boolean(
        load_default=True, metadata={"description": "include provisional ratings", "example": True}
    )
    bots = ma.fields.Boolean(
        load_default=True,
        metadata={"description": "include bot players (false: people only; positions count people only)",
                  "example": True},
    )


class RatingFields(ma.Schema):
    mu = ma.fields.Float(metadata={"example": 27.79})
    sigma = ma.fields.Float(metadata={"example": 6.91})
    ordinal = ma.fields.Float(metadata={"example": 7.06, "description": "mu - 3 sigma; leaderboards sort by it"})
    games_played = ma.fields.Integer(metadata={"example": 12})
    provisional = ma.fields.Boolean(metadata={"example": True, "description": "sigma is still high"})


class BotInfo(ma.Schema):
    level = ma.fields.String(metadata={"example": "rules", "enum": ["random", "rules", "strong"]})


class LeaderboardItem(RatingFields):
    position = ma.fields.Integer(metadata={"example": 1})
    player_id = ma.fields.String(metadata={"example": PLAYER_ID})
    display_name = ma.fields.String(
        allow_none=True, metadata={"example": "Anneke", "description": "null until the name has arrived"}
    )
    last_game_id = ma.fields.String(metadata={"example": GAME_ID})
    bot = ma.fields.Nested(BotInfo, allow_none=True, metadata={
        "example": None, "description": "a computer player: its level; null for a person"})


class Leaderboard(ma.Schema):
    pool = ma.fields.String(metadata={"example": "klapper/4"})
    total = ma.fields.Integer(metadata={"example": 37})
    limit = ma.fields.Integer(metadata={"example": 50})
    offset = ma.fields.Integer(metadata={"example": 0})
    items = ma.fields.List(ma.fields.Nested(LeaderboardItem))


class RatingsQuery(Strict):
    history = ma.fields.Boolean(
        load_default=True, metadata={"description": "include every adjustment per pool", "example": True}
    )


class HistoryItem(ma.Schema):
    game = ma.fields.Integer(metadata={"example": 1, "description": "the player's n-th game in the pool"})
    game_id = ma.fields.String(metadata={"example": GAME_ID})
    rank = ma.fields.Integer(metadata={"example": 2, "description": "rank of the player's seat or team"})
    side = ma.fields.Integer(metadata={"example": 0, "description": "team index (seat for free-for-all)"})
    mu_before = ma.fields.Float(metadata={"example": 25.0})
    sigma_before = ma.fields.Float(metadata={"example": 8.333})
    mu = ma.fields.Float(metadata={"example": 24.69})
    sigma = ma.fields.Float(metadata={"example": 8.18})
    ordinal = ma.fields.Float(metadata={"example": 0.15})
    recorded_at = ma.fields.String(metadata={"example": "2025-05-01T20:15:00+00:00",
                                             "description": "when this rating row was written (a rebuild rewrites it)"})
    finished_at = ma.fields.String(metadata={"example": "2025-05-01T20:14:58+00:00",
                                             "description": "when the game finished, as the games service recorded it"})


class PlayerPool(RatingFields):
    pool = ma.fields.String(metadata={"example": "paardenkoppen"})
    last_game_id = ma.fields.String(metadata={"example": GAME_ID})
    history = ma.fields.List(ma.fields.Nested(HistoryItem), metadata={
        "x-only-for": "history=true", "description": "with `?history=true` only: every rated game, oldest first"})


class PlayerRatings(ma.Schema):
    player_id = ma.fields.String(metadata={"example": PLAYER_ID})
    display_name = ma.fields.String(allow_none=True, metadata={"example": "Anneke"})
    bot = ma.fields.Nested(BotInfo, allow_none=True, metadata={
        "example": None, "description": "a computer player: its level; null for a person"})
    pools = ma.fields.List(ma.fields.Nested(PlayerPool))


class PredictBody(Strict):
    # exactly one of the two (as _one_of checks); the example is a partnership table
    OPENAPI_EXTRAS = {
        "oneOf": [{"required": ["teams"]}, {"required": ["players"]}],
        "example": {"pool": "klapper/4", "teams": [["anneke", "bram"], ["carla", "daan"]]},
    }
    pool = ma.fields.String(required=True, validate=validate.Length(1, 100), metadata={"example": "klapper/4"})
    teams = ma.fields.List(
        ma.fields.List(player_id_field(), validate=validate.Length(1, 8)),
        validate=validate.Length(2, 16),
        metadata={
            "description": "the proposed sides (partners together); use `players` for free-for-all",
            "example": [["anneke", "bram"], ["carla", "daan"]],
        },
    )
    players = ma.fields.List(
        player_id_field(),
        validate=validate.Length(2, 16),
        metadata={"description": "a free-for-all table: one side per player", "example": ["anneke", "bram", "carla"]},
    )

    @ma.validates_schema
    def _one_of(self, data: dict[str, object], **_: object) -> None:
        if ("teams" in data) == ("players" in data):
            raise ma.ValidationError("give either teams or players", field_name="teams")


class PredictPlayer(RatingFields):
    player_id = ma.fields.String(metadata={"example": "anneke"})
    display_name = ma.fields.String(allow_none=True, metadata={
        "example": "Anneke", "description": "null until ratings has learned the player's name"})


class PredictTeam(ma.Schema):
    players = ma.fields.List(ma.fields.Nested(PredictPlayer))
    win_probability = ma.fields.Float(metadata={"example": 0.62})
    predicted_rank = ma.fields.Integer(metadata={"example": 1})
    rank_probability = ma.fields.Float(metadata={"example": 0.62})


class Prediction(ma.Schema):
    pool = ma.fields.String(metadata={"example": "klapper/4"})
    draw_probability = ma.fields.Float(metadata={"example": 0.21})
    teams = ma.fields.List(ma.fields.Nested(PredictTeam))
