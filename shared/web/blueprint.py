"""The services' flask-smorest ``Blueprint``: a request schema given as a class is made into an
instance once, when the view is declared. webargs instantiates a schema class on every request
(``Parser._get_schema``), which on a move was a marshmallow ``Schema.__init__`` per call (issue 19);
the schemas hold no per-request state, so one instance serves every request and thread."""

from __future__ import annotations

from typing import Any

import flask_smorest
import marshmallow as ma
from flask import Response

from shared import jsoncodec


class Blueprint(flask_smorest.Blueprint):
    def arguments(self, schema: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(schema, type) and issubclass(schema, ma.Schema):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)


def json_response(body: Any, status: int, headers: dict[str, str] | None = None) -> Response:
    """``body`` as a JSON answer encoded by orjson (``shared.jsoncodec``), for a hot endpoint whose body
    already has its documented shape (the ``response`` schema then documents it and is not run: a
    marshmallow dump and Flask's ``jsonify`` were ~8% of a games worker's CPU per move, issue 19)."""
    return Response(jsoncodec.dumps(body), status=status, headers=headers, mimetype="application/json")
