"""The app factory every service uses: /v1 blueprints, OpenAPI at /openapi.json, docs at /docs,
problem+json errors from one handler, /healthz, /readyz and /metrics."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import marshmallow as ma
import psycopg
import psycopg_pool
import redis.exceptions
from flask import Flask, Response, request, send_from_directory
from flask_cors import CORS
from flask_smorest import Api, Blueprint
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from shared.config import Settings
from shared.errors import ServiceError
from shared.web import ratelimit
from shared.web.hygiene import MAX_JSON_DEPTH, lone_surrogates, too_deep
from shared.web.observability import Gauges, install_metrics
from shared.web.problems import (
    ApiProblem,
    from_api_problem,
    from_http_exception,
    problem_response,
    problem_type,
)

log = logging.getLogger(__name__)

ReadyCheck = Callable[[], None]  # raises when the dependency does not answer
RETRY_AFTER_SECONDS = 5  # what a 503 tells the client to wait
# request headers a browser client may send, response headers it may read (CORS)
CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "If-Match",
                      "Last-Event-ID", "X-Request-ID"]
CORS_EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "X-Request-ID", "Idempotency-Key", "Link",
                       "Content-Disposition"]


def backend_down(exc: BaseException) -> str | None:
    """The backend an exception says is unreachable ("PostgreSQL", "Redis"), else None."""
    if isinstance(exc, psycopg_pool.PoolTimeout | psycopg.OperationalError):
        return "PostgreSQL"
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return "Redis"
    return None


def origin_pattern(origin: str) -> re.Pattern[str]:
    """``CORS_ORIGINS`` entry to an anchored pattern: ``:*`` at the end is any port, another ``*`` one
    DNS label (``https://*.example.org``); everything else is literal."""
    text = re.escape(origin.rstrip("/"))
    text = re.sub(r":\\\*$", "(:[0-9]{1,5})?", text)
    text = text.replace(r"\*", "[a-z0-9-]+")
    return re.compile(f"^{text}$", re.IGNORECASE)


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details."""

    type = ma.fields.String(metadata={"example": "https://speltafel.example/problems/illegal-move"})
    title = ma.fields.String(metadata={"example": "Unprocessable Content", "description": "the RFC 9110 status phrase"})
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
    down = ma.fields.String(metadata={"example": "postgres", "description": "the backends that do not answer"})
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
    settings: Settings = app.config.get("SPELTAFEL_SETTINGS") or Settings.from_env()
    api = ProblemApi(app)
    ratelimit.install(app, ratelimit.Limiter.build(settings.rate_limits, settings.redis_url, service))
    if settings.proxy_hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops)  # type: ignore[method-assign]
    if settings.cors_origins:
        CORS(
            app,
            origins=[origin_pattern(o) for o in settings.cors_origins],
            allow_headers=CORS_ALLOW_HEADERS,
            expose_headers=CORS_EXPOSE_HEADERS,
            methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            max_age=600,
            vary_header=True,
        )

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
        if ok:
            return {"status": "ok", "checks": results}
        down = ", ".join(name for name, result in results.items() if result != "ok")
        return (
            {"status": "unavailable", "down": down, "checks": results},
            503,
            {"Retry-After": str(RETRY_AFTER_SECONDS)},
        )

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
            return _refuse_hostile_json(raw)
        return problem_response(
            400,
            "Bad Request",
            "NUL characters are not allowed in paths, queries or bodies",
            errors={where: ["contains a NUL character"]},
        )

    def _refuse_hostile_json(raw: bytes) -> Response | None:
        """Nesting a parser would recurse on, and lone surrogates PostgreSQL cannot store."""
        if not raw or not request.is_json:
            return None
        if too_deep(raw):
            return problem_response(
                400,
                "Bad Request",
                f"the JSON body nests arrays/objects deeper than {MAX_JSON_DEPTH} levels",
                problem_type("bad-request"),
                errors={"body": [f"nested deeper than {MAX_JSON_DEPTH} levels"]},
            )
        bad = lone_surrogates(raw)
        if bad:
            return problem_response(
                422,
                "Unprocessable Content",
                "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff without its pair), which is not text",
                problem_type("validation-failed"),
                errors={field: ["contains a lone UTF-16 surrogate"] for field in bad},
            )
        return None

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
            problem_type(exc.problem),
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
        backend = backend_down(exc)
        if backend is not None:
            log.warning("%s unavailable: %s: %s", backend, type(exc).__name__, exc)
            return problem_response(
                503,
                "Service Unavailable",
                f"{backend} does not answer; retry in {RETRY_AFTER_SECONDS} s (GET /readyz says which backend is down)",
                problem_type("service-unavailable"),
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                backend=backend,
            )
        log.exception("unhandled error")
        return problem_response(
            500, "Internal Server Error", "An unexpected error occurred; it has been logged."
        )

    app.extensions["speltafel_api"] = api
    return app
