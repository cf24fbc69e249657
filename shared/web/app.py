"""The app factory every service uses: /v1 blueprints, OpenAPI at /openapi.json, docs at /docs,
problem+json errors from one handler, /healthz, /readyz and /metrics."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import marshmallow as ma
from flask import Flask, Response, request, send_from_directory
from flask_smorest import Api, Blueprint
from werkzeug.exceptions import HTTPException

from shared.errors import ServiceError
from shared.web.observability import Gauges, install_metrics
from shared.web.problems import (
    PROBLEM_TYPE_BASE,
    ApiProblem,
    from_api_problem,
    from_http_exception,
    problem_response,
)

log = logging.getLogger(__name__)

ReadyCheck = Callable[[], None]  # raises when the dependency does not answer


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details."""

    type = ma.fields.String(metadata={"example": "https://speltafel.example/problems/illegal-move"})
    title = ma.fields.String(metadata={"example": "Illegal move"})
    status = ma.fields.Integer(metadata={"example": 422})
    detail = ma.fields.String(metadata={"example": "PK-12: the 5 of horses does not join a row"})
    errors = ma.fields.Dict(metadata={"description": "per-field messages for validation failures"})
    rule = ma.fields.String(metadata={"description": "the rules spec id the request breaks"})
    code = ma.fields.String(metadata={"description": "short stable error code"})


class ProblemApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        if (error.code or 500) >= 500:
            log.error("server error: %s", error)
        return from_http_exception(error)


class HealthSchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ok"})
    checks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String())


def _swagger_assets() -> Path:
    return Path(str(resources.files("flask_swagger_ui") / "dist"))


def create_service_app(
    service: str,
    title: str,
    description: str,
    blueprints: Iterable[Blueprint],
    ready_checks: dict[str, ReadyCheck],
    gauges: Gauges | None = None,
    config: dict[str, Any] | None = None,
) -> Flask:
    app = Flask(service)
    app.config.update(
        API_TITLE=title,
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        API_SPEC_OPTIONS={
            "info": {"description": description},
            "components": {
                "securitySchemes": {
                    "bearerAuth": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "player token from POST /v1/players, or the admin token",
                    }
                }
            },
        },
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=1 << 20,
    )
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    api = ProblemApi(app)

    ops = Blueprint("ops", __name__, description="Liveness, readiness and metrics")

    @ops.route("/healthz")
    @ops.response(200, HealthSchema)
    def healthz() -> dict[str, Any]:
        """The process is up."""
        return {"status": "ok", "checks": {}}

    @ops.route("/readyz")
    @ops.response(200, HealthSchema)
    @ops.alt_response(503, schema=HealthSchema, description="a dependency does not answer")
    def readyz() -> Any:
        """PostgreSQL and Redis answer."""
        results: dict[str, str] = {}
        ok = True
        for name, check in ready_checks.items():
            try:
                check()
                results[name] = "ok"
            except Exception as exc:
                ok = False
                results[name] = f"error: {type(exc).__name__}"
        return ({"status": "ok" if ok else "unavailable", "checks": results}, 200 if ok else 503)

    api.register_blueprint(ops)
    for blueprint in blueprints:
        api.register_blueprint(blueprint, url_prefix=f"/v1{blueprint.url_prefix or ''}")

    install_metrics(app, service, gauges)

    @app.before_request
    def _refuse_nul() -> Response | None:
        """PostgreSQL cannot store NUL characters; refuse them at the door instead of failing later."""
        raw = request.get_data(cache=True)
        if "\x00" in request.path:
            where = "path"
        elif any("\x00" in v for v in request.args.values()):
            where = "query"
        elif b"\x00" in raw or b"\\u0000" in raw:
            where = "body"
        else:
            return None
        return problem_response(
            400,
            "Bad Request",
            "NUL characters are not allowed in paths, queries or bodies",
            errors={where: ["contains a NUL character"]},
        )

    assets = _swagger_assets()

    @app.route("/docs/assets/<path:filename>")
    def swagger_assets(filename: str) -> Response:
        return send_from_directory(assets, filename)

    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError) -> Response:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return problem_response(
            exc.status,
            exc.title,
            exc.detail,
            PROBLEM_TYPE_BASE + type(exc).__name__.lower(),
            exc.problem_errors(),
            headers,
            **exc.problem_extra(),
        )

    @app.errorhandler(ApiProblem)
    def _problem(exc: ApiProblem) -> Response:
        return from_api_problem(exc)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return from_http_exception(exc)
        log.exception("unhandled error")
        return problem_response(
            500, "Internal Server Error", "An unexpected error occurred; it has been logged."
        )

    app.extensions["speltafel_api"] = api
    return app
