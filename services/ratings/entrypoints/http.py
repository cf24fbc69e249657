"""HTTP entrypoints of the ratings service (thin: parse, call the service, answer).

Pool names contain a slash (``klapper/4``). Routes match them with Werkzeug's ``path`` converter, so
``/v1/pools/klapper/4/leaderboard`` works as written and so does the percent-encoded
``/v1/pools/klapper%2F4/leaderboard``.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app

from services.ratings.entrypoints import schemas as s
from services.ratings.service_layer.handlers import RatingsService
from shared.web.blueprint import Blueprint
from shared.web.roles import reads_only

pools = Blueprint(
    "pools", __name__, url_prefix="/pools",
    description="Rating pools (one per game type and mode) and their leaderboards",
)
players = Blueprint("player-ratings", __name__, url_prefix="/players", description="A player's ratings")
predict = Blueprint("predict", __name__, url_prefix="/predict", description="Win and rank probabilities")

POOL_PARAM = {
    "in": "path",
    "name": "pool",
    "required": True,
    "schema": {"type": "string", "example": "klapper/4"},
    "description": "pool name; its slash may be written as is or percent-encoded (klapper%2F4)",
}


def service() -> RatingsService:
    svc: RatingsService = current_app.extensions["ratings_service"]
    return svc


@pools.route("")
@pools.response(200, s.PoolList)
def list_pools() -> dict[str, Any]:
    """Every pool: the catalogue of game types and modes, plus any pool that has rated games.

    Mapping of a finished game to its pool: `hoppaa` without teams -> `hoppaa/solo`, with teams ->
    `hoppaa/team`; `klapper` with n players -> `klapper/n` (2 and 3 free-for-all, 4 and 6
    partnerships); `paardenkoppen`, `roparun`, `cityhopper` -> the game type (free-for-all); any other
    game type `g` -> `g`, or `g/team` when the outcome has teams.
    """
    return service().pools()


@pools.route("/<path:pool>/leaderboard", parameters=[POOL_PARAM])
@pools.arguments(s.LeaderboardQuery, location="query")
@pools.response(200, s.Leaderboard)
@pools.alt_response(404, description="unknown pool")
def leaderboard(args: dict[str, Any], pool: str) -> dict[str, Any]:
    """Players of a pool by ordinal (mu - 3 sigma), best first, with paging."""
    return service().leaderboard(pool, args["limit"], args["offset"], args["provisional"], args["bots"])


@players.route("/<player_id>/ratings")
@players.arguments(s.RatingsQuery, location="query")
@players.response(200, s.PlayerRatings)
def player_ratings(args: dict[str, Any], player_id: str) -> dict[str, Any]:
    """The player's rating in every pool they played, with every adjustment (an empty list if none)."""
    return service().player_ratings(player_id, args["history"])


@players.route("/<player_id>/ratings/<path:pool>.svg", parameters=[POOL_PARAM])
@players.doc(
    responses={
        "200": {
            "description": "SVG line chart titled with the display name: the rating (ordinal) per game with point markers, the likely range of skill (mu +- 2 sigma) as a band, game numbers and dates",
            "content": {"image/svg+xml": {"schema": {"type": "string"}, "example": (
                '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 360"><title>Anneke - klapper/4</title>'
                '<polyline points="40,300 120,260 200,270 280,210" fill="none" stroke="#1f77b4"/></svg>'
            )}},
        },
        "404": {"description": "unknown pool or no rated games of the player in it"},
    },
)
def player_chart(player_id: str, pool: str) -> Response:
    """The player's rating history in one pool as an SVG chart."""
    svg = service().player_chart(player_id, pool)
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


@predict.route("", methods=["POST"])
@reads_only(predict)
@predict.arguments(s.PredictBody, example={"pool": "klapper/4", "teams": [["anneke", "bram"], ["carla", "daan"]]})
@predict.response(200, s.Prediction)
@predict.alt_response(404, description="unknown pool")
def predict_table(body: dict[str, Any]) -> dict[str, Any]:
    """Probabilities for a proposed table (openskill predict_win / predict_rank / predict_draw).

    Players without a rating in the pool count as new players (mu 25, sigma 8.33). Matchmaking uses
    this to balance tables.
    """
    sides = body["teams"] if "teams" in body else [[p] for p in body["players"]]
    return service().predict(body["pool"], sides)


BLUEPRINTS = (pools, players, predict)
