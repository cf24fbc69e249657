"""The gateway of ``make run``: one base URL for the four services (``/games/...`` is the games
service's ``/...``, as docker-compose's nginx does it), their OpenAPI documents combined at
``/openapi.json`` (interactive at ``/docs``) and the web client (``services/web/static``) at ``/``.

Answers stream through as they arrive (live event streams included); a service that does not answer
is a 502 problem+json with ``Retry-After``."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import requests
import urllib3
from flask import Flask, Response, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException
from werkzeug.http import is_hop_by_hop_header
from werkzeug.wsgi import ClosingIterator

from services.gateway.openapi import combine
from shared.config import GATEWAY_HEADER, cors_origins_from_env
from shared.web.cors import install_cors
from shared.web.problems import from_http_exception, problem_response

RETRY_AFTER_SECONDS = 5
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 3600.0  # between two reads; a live stream stays open this long without a byte
MAX_BODY_BYTES = 2 << 20
_DROP_REQUEST = {"host", "content-length", GATEWAY_HEADER.lower()}  # a client's own secret header goes no further
_DROP_RESPONSE = {"content-length", "transfer-encoding"}
# the games service's live streams, served by the stream gateway (`speltafel streams`) when one is given
STREAM_PATH = re.compile(r"v1/games/[^/]+/events/stream")


# the web client's files: the checkout's services/web/static (SPELTAFEL_WEB_ROOT names another folder)
WEB_ROOT = Path(os.environ.get("SPELTAFEL_WEB_ROOT") or Path(__file__).resolve().parents[1] / "web" / "static")


def _swagger_assets() -> Path:
    return Path(str(resources.files("flask_swagger_ui") / "dist"))


def create_gateway_app(upstreams: Mapping[str, str], web_root: Path = WEB_ROOT, streams: str | None = None,
                       max_streams: int | None = None, forward_secret: str | None = None,
                       cors_origins: Sequence[str] | None = None) -> Flask:
    """``upstreams``: ``{service: its base URL}``; ``/<service>/...`` is forwarded there. ``web_root``: the
    web client's static files (``services/web/static``), served at ``/`` with its ``js``, ``css``,
    ``vendor``, ``img`` and ``dev`` (the renderers' example pages) folders. ``streams``: the stream
    gateway's base URL; ``/games/v1/games/<id>/events/stream`` goes there instead of to the games service.
    ``max_streams``: live streams forwarded at once (each holds one of this WSGI server's threads for its
    life); one more is a 503 with ``Retry-After`` naming the stream gateway, so the threads left keep
    answering everything else (None: no limit). ``forward_secret``: sent with every forwarded request in
    ``X-Speltafel-Gateway``, so the services (given the same ``SPELTAFEL_GATEWAY_SECRET``) trust this
    gateway's ``X-Forwarded-For`` (the address it sees appended) and no one else's: each client address
    behind it gets its own rate-limit bucket. ``cors_origins``: ``CORS_ORIGINS`` (None: from the environment,
    as the services read it); the gateway's own answers (its refusals, the combined document, the web client)
    carry the CORS headers the services' answers carry, and a forwarded answer keeps the service's."""
    upstreams = {name: url.rstrip("/") for name, url in upstreams.items()}
    streams = streams.rstrip("/") if streams else None
    app = Flask("gateway")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    http = requests.Session()
    stream_slots = threading.BoundedSemaphore(max_streams) if max_streams else None
    app.register_error_handler(HTTPException, from_http_exception)  # its own refusals are problem+json too
    install_cors(app, cors_origins_from_env() if cors_origins is None else cors_origins)

    def base_url() -> str:
        return request.host_url.rstrip("/")

    @app.get("/")
    def index() -> Response:  # the web client (services/web); today's service table is its #/status page
        response = send_from_directory(web_root, "index.html")
        response.headers["Cache-Control"] = "no-cache"
        return response

    @app.get("/<any(js, css, vendor, img, dev):folder>/<path:filename>")
    def web_files(folder: str, filename: str) -> Response:
        response = send_from_directory(web_root / folder, filename)
        response.headers["Cache-Control"] = "no-cache"  # revalidated (ETag): an edited module shows at once
        return response

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "checks": {}}

    @app.get("/openapi.json")
    def openapi() -> Response:
        documents: dict[str, Any] = {}
        for name, upstream in upstreams.items():
            try:
                answer = http.get(upstream + "/openapi.json", timeout=CONNECT_TIMEOUT)
                answer.raise_for_status()
                documents[name] = answer.json()
            except (requests.RequestException, ValueError):
                return problem_response(
                    503, "Service Unavailable", f"the {name} service does not answer; retry shortly",
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, backend=name,
                )
        response = jsonify(combine(documents, base_url()))
        response.headers["Cache-Control"] = "no-cache"
        return response

    def docs_page(spec_url: str) -> str:
        return (
            "<!doctype html><html><head><meta charset='utf-8'><title>Speltafel API</title>"
            "<link rel='stylesheet' href='/docs/assets/swagger-ui.css'></head><body><div id='ui'></div>"
            "<script src='/docs/assets/swagger-ui-bundle.js'></script>"
            f"<script>SwaggerUIBundle({{url: '{spec_url}', dom_id: '#ui'}});</script></body></html>"
        )

    @app.get("/docs")
    def docs() -> str:
        return docs_page("/openapi.json")

    # one service's docs and document under its prefix, with ``servers`` pointing there ("try it out")
    @app.get("/<service>/docs")
    def service_docs(service: str) -> Any:
        return docs_page(f"/{service}/openapi.json") if service in upstreams else forward(service, "docs")

    @app.get("/<service>/openapi.json")
    def service_openapi(service: str) -> Any:
        upstream = upstreams.get(service)
        if upstream is None:
            return forward(service, "openapi.json")
        try:
            answer = http.get(upstream + "/openapi.json", timeout=CONNECT_TIMEOUT)
            answer.raise_for_status()
            document = answer.json()
        except (requests.RequestException, ValueError):
            return problem_response(503, "Service Unavailable", f"the {service} service does not answer; "
                                    "retry shortly", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, backend=service)
        return jsonify({**document, "servers": [{"url": f"{base_url()}/{service}"}]})

    @app.get("/docs/assets/<path:filename>")
    def docs_assets(filename: str) -> Response:
        return send_from_directory(_swagger_assets(), filename)

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    @app.route("/<service>/", defaults={"rest": ""}, methods=methods)
    @app.route("/<service>/<path:rest>", methods=methods)
    def forward(service: str, rest: str) -> Response:
        upstream = upstreams.get(service)
        if upstream is None and request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            # a preflight passes (with CORS headers for an allowed origin), so the page reads the 404 itself
            return Response(status=204, headers={"Allow": ", ".join(methods)})
        if upstream is None:
            return problem_response(404, "Not Found", f"no service {service!r}; the services are "
                                    + ", ".join(f"/{n}" for n in upstreams), errors={"path": ["unknown service"]})
        release: Callable[[], None] | None = None
        if streams and service == "games" and STREAM_PATH.fullmatch(rest):
            upstream = streams
            if stream_slots is not None:
                if not stream_slots.acquire(blocking=False):
                    return problem_response(
                        503, "Service Unavailable", f"this base URL forwards at most {max_streams} live streams at "
                        f"once (a thread each); open the stream at the stream gateway itself: {streams}/{rest}",
                        headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, backend="streams")
                release = _once(stream_slots.release)
        try:
            response, streaming = _forward(service, upstream, rest, release)
        except BaseException:
            if release is not None:
                release()
            raise
        if release is not None and not streaming:
            release()
        return response

    def _forward(service: str, upstream: str, rest: str, release: Callable[[], None] | None) -> tuple[Response, bool]:
        """The upstream's answer, and whether its body was handed over (``release`` runs when the server
        closes it: the stream's thread is free again)."""
        url = f"{upstream}/{rest}"
        if request.query_string:
            url += "?" + request.query_string.decode("latin-1")
        headers = {k: v for k, v in request.headers.items()
                   if k.lower() not in _DROP_REQUEST and not is_hop_by_hop_header(k)}
        forwarded_for = request.headers.get("X-Forwarded-For")
        headers["X-Forwarded-For"] = ", ".join(x for x in (forwarded_for, request.remote_addr) if x)
        headers["X-Forwarded-Host"] = request.host
        headers["X-Forwarded-Proto"] = request.scheme
        headers["X-Forwarded-Prefix"] = f"/{service}"
        if forward_secret:
            headers[GATEWAY_HEADER] = forward_secret
        try:
            answer = http.request(request.method, url, data=request.get_data(), headers=headers, stream=True,
                                  allow_redirects=False, timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
        except requests.Timeout:
            return problem_response(504, "Gateway Timeout", f"the {service} service did not answer in time",
                                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, backend=service), False
        except requests.RequestException:
            return problem_response(502, "Bad Gateway", f"the {service} service does not answer; retry shortly",
                                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)}, backend=service), False
        out_headers = [(k, v) for k, v in answer.raw.headers.items()
                       if k.lower() not in _DROP_RESPONSE and not is_hop_by_hop_header(k)]
        out_headers = [(k, f"/{service}{v}" if k.lower() == "location" and v.startswith("/v1/") else v)
                       for k, v in out_headers]
        length = answer.headers.get("Content-Length")
        if length is not None and "chunked" not in answer.headers.get("Transfer-Encoding", ""):
            out_headers.append(("Content-Length", length))

        def body() -> Iterator[bytes]:
            try:  # each chunk as it arrives: a live stream's events are not held back
                yield from answer.raw.stream(64 * 1024, decode_content=False)
            except (urllib3.exceptions.HTTPError, OSError):  # the upstream went away mid-answer (a stream
                return  # whose server stopped): the answer ends here, the client reconnects
            finally:
                answer.close()

        # the server closes what it is given (a passthrough body is not wrapped by werkzeug)
        chunks = ClosingIterator(body(), release) if release is not None else body()
        return Response(chunks, status=answer.status_code, headers=out_headers, direct_passthrough=True), True

    return app


def _once(fn: Callable[[], None]) -> Callable[[], None]:
    lock, done = threading.Lock(), [False]

    def call() -> None:
        with lock:
            if done[0]:
                return
            done[0] = True
        fn()

    return call
