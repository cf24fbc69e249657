"""The app factory every service uses: /v1 blueprints, OpenAPI at /openapi.json, docs at /docs,
problem+json errors from one handler, /healthz, /readyz and /metrics."""

from __future__ import annotations

import hmac
import http
import json
import logging
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import marshmallow as ma
import psycopg
import psycopg_pool
import redis.exceptions
from apispec import BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, Response, request, send_from_directory
from flask_smorest import Api
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from shared.config import GATEWAY_HEADER, Settings
from shared.db import recheck_pools
from shared.errors import ServiceError
from shared.web import ratelimit, roles
from shared.web.blueprint import Blueprint
from shared.web.cors import install_cors
from shared.web.hygiene import MAX_JSON_DEPTH, lone_surrogates, too_deep, unstorable_numbers
from shared.web.observability import Gauges, install_metrics
from shared.web.problems import (
    PROBLEM_MEDIA_TYPE,
    ApiProblem,
    from_api_problem,
    from_http_exception,
    problem_response,
    problem_type,
)

log = logging.getLogger(__name__)

ReadyCheck = Callable[[], None]  # raises when the dependency does not answer
RETRY_AFTER_SECONDS = 5  # what a 503 tells the client to wait
def backend_down(exc: BaseException) -> str | None:
    """The backend an exception says is unreachable ("PostgreSQL", "Redis"), else None."""
    if isinstance(exc, psycopg_pool.PoolTimeout | psycopg.OperationalError):
        return "PostgreSQL"
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return "Redis"
    return None


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details; extension members beyond these may be added (RFC 9457 §3.2)."""

    class Meta:
        unknown = ma.INCLUDE  # documented without additionalProperties: false

    type = ma.fields.String(metadata={"example": "https://speltafel.example/problems/illegal-move"})
    title = ma.fields.String(metadata={"example": "Unprocessable Content", "description": "the RFC 9110 status phrase"})
    status = ma.fields.Integer(metadata={"example": 422})
    detail = ma.fields.String(metadata={"example": "PK-12: the 5 of horses does not join a row"})
    errors = ma.fields.Dict(metadata={"description": "per-field messages for validation failures"})
    rule = ma.fields.String(metadata={"description": "the rules spec id the request breaks"})
    code = ma.fields.String(metadata={"description": "short stable error code"})
    version = ma.fields.Integer(metadata={"description": "the game's current version (stale expected_version)"})
    ticket_id = ma.fields.String(metadata={"description": "the matchmaking ticket already queued"})
    rows = ma.fields.List(ma.fields.Dict(), metadata={"description": "a rejected question pack's errors per row"})
    backend = ma.fields.String(metadata={"description": "503: the backend that does not answer",
                                         "example": "PostgreSQL"})


def _problem_content(response: dict[str, Any]) -> None:
    """An error response's ``application/json`` content documented as ``application/problem+json``,
    the media type every error is answered with."""
    content = response.get("content")
    if isinstance(content, dict) and "application/json" in content:
        response["content"] = {
            (PROBLEM_MEDIA_TYPE if key == "application/json" else key): value for key, value in content.items()
        }


def _is_error(status: Any) -> bool:
    text = str(status)
    return text == "default" or (text[:1] in {"4", "5"})


class ProblemMediaTypePlugin(BasePlugin):
    """apispec plugin: every documented error response (4xx, 5xx, default) has problem+json content with
    the problem schema, as the errors are answered."""

    def __init__(self, marshmallow: MarshmallowPlugin, schema: type[ma.Schema]) -> None:
        self.marshmallow, self.schema = marshmallow, schema

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            if not isinstance(operation, dict):
                continue
            for status, response in (operation.get("responses") or {}).items():
                if not _is_error(status) or not isinstance(response, dict) or "$ref" in response:
                    continue
                if response.get("content"):
                    _problem_content(response)
                else:
                    ref = self.marshmallow.converter.resolve_nested_schema(self.schema)  # type: ignore[union-attr]
                    response["content"] = {PROBLEM_MEDIA_TYPE: {"schema": ref}}


class TrustedGateway:
    """WSGI middleware: the client address is the last ``X-Forwarded-For`` entry only for a request that
    carries ``make run``'s gateway secret in ``X-Speltafel-Gateway`` (the gateway appends the address it
    sees); any other request keeps its own peer address, so a client talking to a service's own port
    cannot name another address. The header goes no further than this."""

    def __init__(self, app: Any, secret: str) -> None:
        self.app, self.secret = app, secret.encode()
        self.proxied = ProxyFix(app, x_for=1)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        given = environ.pop("HTTP_" + GATEWAY_HEADER.upper().replace("-", "_"), "")
        if given and hmac.compare_digest(given.encode("latin-1"), self.secret):
            return self.proxied(environ, start_response)
        return self.app(environ, start_response)


class SchemaExtrasPlugin(BasePlugin):
    """apispec plugin: a marshmallow schema's ``OPENAPI_EXTRAS`` (JSON Schema keywords marshmallow has no
    field for, such as a ``oneOf`` between two alternative fields) are added to its component."""

    def schema_helper(self, name: str, definition: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        extras = getattr(kwargs.get("schema"), "OPENAPI_EXTRAS", None)
        return dict(extras) if isinstance(extras, dict) else None


class ProblemApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, *args: Any, extra_plugins: Any = None, marshmallow_plugin: Any = None,
                   **kwargs: Any) -> None:
        marshmallow = marshmallow_plugin or MarshmallowPlugin()
        plugins = [*(extra_plugins or ()), SchemaExtrasPlugin(), ratelimit.TokenFailureDocPlugin(),
                   ProblemMediaTypePlugin(marshmallow, self.ERROR_SCHEMA)]
        super()._init_spec(
            *args, extra_plugins=plugins, marshmallow_plugin=marshmallow, **kwargs
        )

    def _register_responses(self) -> None:
        """flask-smorest's reusable responses (``UNAUTHORIZED``, ``DEFAULT_ERROR`` ...), errors as problem+json."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["content"] = {PROBLEM_MEDIA_TYPE: {"schema": self.ERROR_SCHEMA}}
            self.spec.components.response(status.name, response, lazy=True)
        self.spec.components.response(
            self.DEFAULT_ERROR_RESPONSE_NAME,
            {"description": "Default error response", "content": {PROBLEM_MEDIA_TYPE: {"schema": self.ERROR_SCHEMA}}},
            lazy=True,
        )

    def handle_http_exception(self, error: HTTPException) -> Response:
        if (error.code or 500) >= 500:
            log.error("server error: %s", error)
        return from_http_exception(error)


class HealthSchema(ma.Schema):
    status = ma.fields.String(metadata={"example": "ok"})
    down = ma.fields.String(metadata={"example": "postgres", "x-only-for": "503",
                                      "description": "503 only: the backends that do not answer"})
    checks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String())


_NO_EXAMPLE = object()


def compose_examples(schemas: dict[str, dict[str, Any]]) -> None:
    """A component schema whose every property has an example (its own, or a nested component's composed
    one) gets them together as its ``example``: /docs and schemathesis then show a whole request or answer.
    A schema with a property without one is left alone (no half examples), except a property marked
    ``x-only-for`` (present only for some kinds, e.g. a FLAG question's palette), which the example leaves out."""

    def example_of(node: dict[str, Any], seen: frozenset[str]) -> Any:
        if "example" in node:
            return node["example"]
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[1]
            return composed(name, seen) if name in schemas and name not in seen else _NO_EXAMPLE
        if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:  # a nullable nested schema
            return example_of(node["allOf"][0], seen)
        if node.get("type") == "array" and isinstance(node.get("items"), dict):
            item = example_of(node["items"], seen)
            return _NO_EXAMPLE if item is _NO_EXAMPLE else [item]
        if isinstance(node.get("enum"), list) and node["enum"]:
            return node["enum"][0]
        return _NO_EXAMPLE

    def composed(name: str, seen: frozenset[str]) -> Any:
        schema = schemas[name]
        if "example" in schema:
            return schema["example"]
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return _NO_EXAMPLE
        out = {key: example_of(prop, seen | {name}) for key, prop in properties.items()
               if "example" in prop or "x-only-for" not in prop}  # x-only-for: absent in the usual case
        if any(value is _NO_EXAMPLE for value in out.values()):
            return _NO_EXAMPLE
        schema["example"] = out
        return out

    for name in list(schemas):
        composed(name, frozenset())


def component_refs(node: Any) -> set[str]:
    """Names of the component schemas ``node`` refers to, directly or inside."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                found.add(ref.rsplit("/", 1)[1])
            stack.extend(v for k, v in item.items() if k != "example")
        elif isinstance(item, list):
            stack.extend(item)
    return found


def mark_always_present(document: dict[str, Any], schemas: dict[str, dict[str, Any]]) -> None:
    """Each component schema that only answers describe (reached from a 2xx response, never from a request
    body or parameter) lists its always-present properties as ``required``: every property but those marked
    ``x-only-for`` (present only for some answers, e.g. once a question is answered). A client generated
    from the document then types them as present, and the answers are checked against it."""

    def closure(roots: set[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in seen or name not in schemas:
                continue
            seen.add(name)
            todo.extend(component_refs(schemas[name]) - seen)
        return seen

    answers: set[str] = set()
    asks: set[str] = set()
    for item in (document.get("paths") or {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            asks |= component_refs(operation.get("requestBody") or {}) | component_refs(
                operation.get("parameters") or [])
            for status, response in (operation.get("responses") or {}).items():
                if str(status).startswith("2"):
                    answers |= component_refs(response)
    for name in sorted(closure(answers) - closure(asks)):
        schema = schemas[name]
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            continue
        always = [key for key, prop in properties.items() if not (isinstance(prop, dict) and "x-only-for" in prop)]
        order = {key: k for k, key in enumerate(properties)}
        schema["required"] = sorted(set(schema.get("required") or []) | set(always), key=lambda k: order.get(k, len(order)))


def _reads_json(app: Flask) -> bool:
    """Whether the view of this request takes a JSON body (a flask-smorest ``arguments`` in json)."""
    view: Any = app.view_functions.get(request.endpoint or "")
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        view = getattr(view_class, request.method.lower(), None)
    parameters = (getattr(view, "_apidoc", None) or {}).get("arguments", {}).get("parameters", [])
    return any(p.get("in") == "json" for p in parameters)


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
                        "description": "player token from POST /v1/players, organiser or auditor token from "
                        "the games service's POST /v1/tokens, or the admin token",
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
    if settings.gateway_secret:
        app.wsgi_app = TrustedGateway(app.wsgi_app, settings.gateway_secret)  # type: ignore[method-assign]
    install_cors(app, settings.cors_origins)

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
    blueprints = list(blueprints)
    roles.install(app, blueprints)
    for blueprint in blueprints:
        api.register_blueprint(blueprint, url_prefix=f"/v1{blueprint.url_prefix or ''}")

    if "Health" in api.spec.components.schemas:
        api.spec.components.schemas["Health"]["example"] = {"status": "ok", "checks": {"postgres": "ok", "redis": "ok"}}
    compose_examples(api.spec.components.schemas)
    mark_always_present(api.spec.to_dict(), api.spec.components.schemas)
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
        numbers = unstorable_numbers(raw)
        if numbers:
            return problem_response(
                422,
                "Unprocessable Content",
                "a number in the body could not be kept exactly: "
                + "; ".join(f"{field} {why}" for field, why in sorted(numbers.items())),
                problem_type("validation-failed"),
                errors={field: [why] for field, why in numbers.items()},
            )
        return None

    @app.before_request
    def _json_body_or_problem() -> Response | None:
        """A body sent to an endpoint that reads JSON must say it is JSON and be JSON: the problem
        names ``Content-Type`` or ``body`` (not a werkzeug page or "Missing data for required field")."""
        if request.method not in {"POST", "PUT", "PATCH", "DELETE"} or not _reads_json(app):
            return None
        raw = request.get_data(cache=True)
        if not raw:
            return None
        if not request.headers.get("Content-Type"):
            return problem_response(
                415,
                "Unsupported Media Type",
                "the request has a body but no Content-Type header; send the body as application/json",
                problem_type("unsupported-media-type"),
                errors={"Content-Type": ["missing; expected application/json"]},
            )
        if not request.is_json:
            return problem_response(
                415,
                "Unsupported Media Type",
                f"Content-Type {request.mimetype} is not accepted here; send the body as application/json",
                problem_type("unsupported-media-type"),
                errors={"Content-Type": [f"{request.mimetype} is not application/json"]},
            )
        try:
            json.loads(raw)
        except ValueError as exc:
            return problem_response(
                400,
                "Bad Request",
                f"the body is not valid JSON: {exc}",
                problem_type("bad-request"),
                errors={"body": [f"not valid JSON: {exc}"]},
            )
        return None

    assets = _swagger_assets()

    @app.route("/docs/assets/<path:filename>")
    def swagger_assets(filename: str) -> Response:
        return send_from_directory(assets, filename)

    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError) -> Response:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        if exc.status == 503:  # a backend (or another service) is down: say when to retry
            headers = {"Retry-After": str(exc.extra.get("retry_after") or RETRY_AFTER_SECONDS)}
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
            if backend == "PostgreSQL":
                # replace connections a PostgreSQL restart broke before they meet a request (this app's database)
                recheck_pools(conninfo=settings.database_url)
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
