"""The services' flask-smorest ``Blueprint``: a request schema given as a class is made into an
instance once, when the view is declared. webargs instantiates a schema class on every request
(``Parser._get_schema``), which on a move was a marshmallow ``Schema.__init__`` per call (issue 19);
the schemas hold no per-request state, so one instance serves every request and thread."""

from __future__ import annotations

import json
from typing import Any

import flask_smorest
import marshmallow as ma
import orjson
from flask import Response


class Blueprint(flask_smorest.Blueprint):
    def arguments(self, schema: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(schema, type) and issubclass(schema, ma.Schema):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)


def json_response(body: Any, status: int, headers: dict[str, str] | None = None) -> Response:
    """``body`` as a JSON answer encoded by orjson, for a hot endpoint whose body already has its
    documented shape (the ``response`` schema then documents it and is not run: a marshmallow dump and
    Flask's ``jsonify`` were ~8% of a games worker's CPU per move, issue 19). Integer keys become
    strings as ``jsonify`` makes them; what orjson does not take (an integer past 64 bits) goes through
    the standard library."""
    try:
        encoded = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        encoded = json.dumps(body, separators=(",", ":")).encode()
    return Response(encoded, status=status, headers=headers, mimetype="application/json")
