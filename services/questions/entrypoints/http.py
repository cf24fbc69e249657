"""HTTP entrypoints of the questions service (thin: parse, call the service, answer)."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request

from services.questions.entrypoints import schemas as s
from services.questions.service_layer.errors import Forbidden, Unauthorized
from services.questions.service_layer.handlers import QuestionsService
from shared.auth import Identity
from shared.cityhopper.roads import CIRCUITY, ESTIMATE_METHOD
from shared.web.blueprint import Blueprint
from shared.web.identity import request_identity

cities = Blueprint("cities", __name__, url_prefix="/cities", description="The 82 places of CityHopper")
distance = Blueprint(
    "distance", __name__, url_prefix="/distance", description="Road distance, route and map (die 1)"
)
packs = Blueprint("packs", __name__, url_prefix="/packs", description="The question bank (admin)")
questions = Blueprint("questions", __name__, url_prefix="/questions", description="Draw and grade questions")

ADMIN: list[dict[str, list[str]]] = [{"bearerAuth": []}]

ESTIMATE_DOC = (
    "**The distance is an estimate** unless the service runs with `ROUTING_BACKEND=osrm` (then `method` "
    "starts with `osrm:` and `estimate` is false). The estimate is the shortest path over the board's "
    "road, dike and boat links (never flights): each link is as long as the great-circle distance "
    "between its two places' points in cities.json times a circuity factor "
    + ", ".join(f"{k} x{v:.2f}" for k, v in CIRCUITY.items())
    + f" (`{ESTIMATE_METHOD}`), summed in whole metres and rounded to 0.1 km. Island routes include "
    "the ferry. A guess is right when |guess - km| <= 0.15 x km: `lower_km` and `upper_km` are those "
    "inclusive bounds. From a place to itself the distance is 0 km. Results are cached per ordered pair."
)

# shortened: a real map has every road and city of the board
SVG_EXAMPLE = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 720"><title>groningen - leeuwarden</title>'
    '<path d="M 512 88 L 360 102" stroke="#d33" stroke-width="4" fill="none"/></svg>'
)


def service() -> QuestionsService:
    svc: QuestionsService = current_app.extensions["questions_service"]
    return svc


def require_admin() -> Identity:
    who = request_identity()
    if who.anonymous:
        raise Unauthorized("the admin bearer token is required", field="Authorization")
    if not who.admin:
        raise Forbidden("only the admin token maintains the question bank", field="Authorization")
    return who


# -- places ------------------------------------------------------------------------------------


@cities.route("")
@cities.response(200, s.PlaceSchema(many=True))
def list_cities() -> list[dict[str, Any]]:
    """All 82 places (cities and Wadden islands) from the bundled cities.json (GeoNames, see README)."""
    return service().cities()


@cities.route("/<place_id>")
@cities.response(200, s.PlaceSchema)
@cities.alt_response(404, description="no such place")
def get_city(place_id: str) -> dict[str, Any]:
    """One place by id."""
    return service().city(place_id)


# -- distance ----------------------------------------------------------------------------------


@distance.route("")
@distance.arguments(s.DistanceQuery, location="query")
@distance.response(200, s.DistanceSchema)
@distance.alt_response(422, description="unknown place id (`errors` names `from` or `to`)")
@distance.doc(description=ESTIMATE_DOC)
def get_distance(args: dict[str, Any]) -> dict[str, Any]:
    """Road distance A -> Y in km, the route (place ids and a GeoJSON LineString) and the 15% bounds."""
    return service().distance(args["from_"], args["to"])


@distance.route("/map.svg")
@distance.arguments(s.DistanceQuery, location="query")
@distance.alt_response(422, description="unknown place id")
@distance.doc(
    description="The board (places, road, dike, boat and flight links) with the route drawn over it. "
    + ESTIMATE_DOC,
    responses={
        "200": {
            "description": "a self-contained SVG document",
            "content": {"image/svg+xml": {"schema": {"type": "string"}, "example": SVG_EXAMPLE}},
        }
    },
)
def get_map(args: dict[str, Any]) -> Response:
    """The route A -> Y on a map of the board (SVG)."""
    svg = service().map_svg(args["from_"], args["to"])
    return Response(
        svg, status=200, mimetype="image/svg+xml", headers={"Cache-Control": "public, max-age=3600"}
    )


# -- the question bank -----------------------------------------------------------------------------

PACK_BODY: dict[str, Any] = {
    "required": True,
    "description": "A question pack as JSON ({pack, questions}) or as the flat CSV layout (one question "
    "per line, the pack header repeated on every line; columns as in GET /v1/packs/{id}/versions/{v}"
    "?format=csv). Every row is validated; a pack with any error imports nothing.",
    "content": {
        "application/json": {
            "schema": {"type": "object"},
            "example": {
                "pack": {
                    "id": "club-friesland",
                    "version": "2024-05",
                    "title": "Vragen van de Friese club",
                    "licence": "CC-BY-4.0",
                    "attribution": "Spelclub Friesland",
                    "sample": False,
                },
                "questions": [
                    {
                        "id": "facts:harlingen:1",
                        "category": "FACTS",
                        "city": "harlingen",
                        "format": "true_false",
                        "prompt": "Stelling: Harlingen ligt aan de Waddenzee.",
                        "answer": "true",
                        "info": "Klopt: Harlingen is een havenstad aan de Waddenzee.",
                    }
                ],
            },
        },
        "text/csv": {"schema": {"type": "string"}},
    },
}

PACK_REJECTED = {
    "description": "the pack has errors: `rows` lists each as {row, field, message} (`row` is the 0-based "
    "question index, null for the pack header; CSV adds the 1-based file `line`); nothing was imported",
}


@packs.route("", methods=["POST"])
@packs.response(201, s.PackCreated)
@packs.alt_response(401, description="no or unknown bearer token")
@packs.alt_response(403, description="not the admin token")
@packs.alt_response(415, description="neither application/json nor text/csv")
@packs.alt_response(422, **PACK_REJECTED)
@packs.doc(security=ADMIN, requestBody=PACK_BODY)
def import_pack() -> dict[str, Any]:
    """Import a pack (JSON or CSV); re-importing a pack id stores its next version."""
    require_admin()
    return service().import_pack(request.get_data(cache=False), request.headers.get("Content-Type", ""))


@packs.route("")
@packs.response(200, s.PackList)
@packs.alt_response(401, description="no or unknown bearer token")
@packs.alt_response(403, description="not the admin token")
@packs.doc(security=ADMIN)
def list_packs() -> dict[str, Any]:
    """Every pack with its versions; the latest version of each is in the bank."""
    require_admin()
    return {"packs": service().list_packs()}


@packs.route("/<pack_id>")
@packs.response(200, s.PackDetail)
@packs.alt_response(404, description="no such pack")
@packs.doc(security=ADMIN)
def get_pack(pack_id: str) -> dict[str, Any]:
    """One pack and its versions."""
    require_admin()
    return service().get_pack(pack_id)


@packs.route("/<pack_id>/versions/<int(max=2147483647):version>")
@packs.arguments(s.ExportQuery, location="query")
@packs.alt_response(404, description="no such pack version")
@packs.doc(
    security=ADMIN,
    responses={
        "200": {
            "description": "the stored version (header version = the stored version number); importing it "
            "again gives the same content hash",
            "content": {
                "application/json": {"schema": {"type": "object"},
                                     "example": PACK_BODY["content"]["application/json"]["example"]},
                "text/csv": {"schema": {"type": "string"}},
            },
        }
    },
)
def export_pack(args: dict[str, Any], pack_id: str, version: int) -> Response:
    """Export one version of a pack as JSON (default) or CSV (`?format=csv`)."""
    require_admin()
    text, media = service().export_pack(pack_id, version, args["format"])
    filename = f"{pack_id}-v{version}.{args['format']}"
    return Response(
        text,
        status=200,
        content_type=media,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


# -- draws and answers ---------------------------------------------------------------------------


@questions.route("/draw", methods=["POST"])
@questions.arguments(s.DrawBody)
@questions.response(201, s.DrawnQuestion)
@questions.alt_response(422, description="unknown place, category or selector (`errors` names the field)")
def draw_question(body: dict[str, Any]) -> dict[str, Any]:
    """Draw a practice question for arrival city A and the rolled category, without its answer key.

    The question id is random and the options come in an order that says nothing about the
    answer. A game draws with its selector transformed (and keeps that selector secret from its
    seats), so giving a game's selector here does not serve the game's question; and a bank question
    a running game is waiting on is left out of practice draws until that game moves on.

    When the bank has no question for A in that category a generated one is served instead
    (`generated` true, `reason` says which and why): a game is never blocked. Road distance
    (die 1) is always computed from the route A -> `yellow_city`."""
    return service().draw(body)


@questions.route("/<question_id>")
@questions.response(200, s.QuestionState)
@questions.alt_response(403, description="the question was drawn for a game (the games service grades it)")
@questions.alt_response(404, description="no such question")
def get_question(question_id: str) -> dict[str, Any]:
    """A practice question (without its key); after the answer also `correct` and the reveal."""
    return service().get_question(question_id)


@questions.route("/<question_id>/answer", methods=["POST"])
@questions.arguments(s.AnswerBody)
@questions.response(200, s.AnswerResult)
@questions.alt_response(403, description="the question was drawn for a game: answer it with a move to the games service")
@questions.alt_response(404, description="no such question")
@questions.alt_response(409, description="already answered, or a running game is asking this (bank) question now: "
                        "it is graded once that game has moved on")
@questions.alt_response(422, description="an answer that cannot be graded (`errors` names the field)")
def answer_question(body: dict[str, Any], question_id: str) -> dict[str, Any]:
    """Grade the answer to a practice question (once) and return `correct` and what to show afterwards.

    Questions drawn for a game are refused (403): the game's answering seat answers with an
    `answer` move and the games service grades it from the key in the game's log."""
    return service().answer(question_id, body["answer"])


BLUEPRINTS = (cities, distance, packs, questions)
