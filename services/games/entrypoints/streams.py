"""The stream gateway's HTTP side: ``GET /v1/games/{id}/events/stream`` (SSE and NDJSON) on aiohttp,
one asyncio loop (uvloop when installed), without a thread per viewer; the reads and the fan-out are
``stream_fanout.Hub`` (one Redis subscription per process, one read per viewer class and batch).

Answers as the threaded endpoint does: same media types, ``Last-Event-ID``/``?after=N`` resume, keep-
alives every ``STREAM_KEEPALIVE_SECONDS``, the ``end`` event, ``timeout``, CORS headers and problem+json
errors (401, 404, 406, 422, 503 with ``Retry-After`` when PostgreSQL or Redis does not answer). aiohttp's own
refusals, before a request reaches the app (an unparsable request 400, a URL over 16 KiB 414, a header line over
16 KiB or more than 128 headers 431: nginx's limits, so what the proxy passes on passes here), are problem+json
too and logged as one line, not a traceback (``ProblemRequestHandler``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import signal
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import marshmallow as ma
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong
from prometheus_client import generate_latest
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from services.games.entrypoints.http import NDJSON_TYPE, SSE_TYPE, STREAM_TYPES
from services.games.entrypoints.schemas import StreamQuery
from services.games.entrypoints.stream_fanout import Hub, StreamSettings, Viewer
from services.games.service_layer.handlers import GamesService
from shared.auth import ANONYMOUS, Identity, PlayerDirectory, UnknownToken, authenticate, bearer_token
from shared.errors import ServiceError, problem_for_status, problem_type, status_phrase
from shared.web.app import RETRY_AFTER_SECONDS, backend_down
from shared.web.cors import CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, origin_pattern

log = logging.getLogger(__name__)
# nginx (deploy/nginx.conf: large_client_header_buffers 4 16k) takes a request line or a header line up to
# 16 KiB; aiohttp counts the URL alone, and a header's name and value without ": " and CRLF. The two limits
# differ by those four bytes, which is also how a LineTooLong tells a URL (414) from a header (431).
MAX_URL_BYTES = 16 * 1024
MAX_HEADER_BYTES = 16 * 1024 - 4
MAX_HEADERS = 128
EDGE_HEADERS: web.RequestKey[dict[str, str]] = web.RequestKey("edge_headers")
CATCH_UP_SECONDS = 10.0  # how long past its timeout a stream waits for its first read (a slow database)
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


class Problem(Exception):
    def __init__(self, status: int, detail: str, name: str | None = None, errors: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.detail, self.errors, self.headers, self.extra = status, detail, errors, headers, extra
        self.name = name or problem_for_status(status)

    def response(self) -> web.Response:
        body: dict[str, Any] = {"type": problem_type(self.name), "title": status_phrase(self.status),
                                "status": self.status, "detail": self.detail}
        if self.errors:
            body["errors"] = self.errors
        body.update({k: v for k, v in self.extra.items() if v is not None})
        return web.Response(status=self.status, body=json.dumps(body).encode(),
                            content_type="application/problem+json", headers=self.headers)



def _send_headers(response: web.StreamResponse) -> None:
    """aiohttp holds the headers back until the first body write; the feed writes to the socket itself,
    so they go out now (older aiohttp wrote them in ``prepare``: nothing to do there)."""
    send = getattr(getattr(response, "_payload_writer", None), "send_headers", None)
    if callable(send):
        send()


def _negotiate(accept: str | None) -> str | None:
    if not accept:
        return SSE_TYPE
    parsed = parse_accept_header(accept, MIMEAccept)
    return parsed.best_match(STREAM_TYPES) if parsed else SSE_TYPE


def _identity_of(authorization: str | None, settings: StreamSettings, directory: PlayerDirectory) -> Identity:
    try:
        return authenticate(authorization, settings.admin_token, directory)
    except UnknownToken:
        raise Problem(401, "the bearer token is not valid", errors={"Authorization": ["the bearer token is not valid"]},
                      headers={"WWW-Authenticate": "Bearer"}) from None


# room in the listen queue: a gateway's viewers reconnect all at once after a restart, and a connection
# the queue has no room for is dropped and retried by its client only after 1, 3, 7 s (the kernel caps
# this at net.core.somaxconn)
LISTEN_BACKLOG = 4096
HUB = web.AppKey("hub", Hub)
DIRECTORY = web.AppKey("directory", PlayerDirectory)


def create_stream_app(service: GamesService, directory: PlayerDirectory, settings: StreamSettings) -> web.Application:
    hub = Hub(service, settings)
    origins = [origin_pattern(o) for o in settings.cors_origins]
    query_schema = StreamQuery()

    @web.middleware
    async def edges(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        """CORS headers on every answer (errors included), X-Request-ID, and every error as problem+json."""
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
        origin = request.headers.get("Origin")
        allowed = origin is not None and any(p.match(origin) for p in origins)
        cors = {"Access-Control-Allow-Origin": origin, "Vary": "Origin",
                "Access-Control-Expose-Headers": ", ".join(CORS_EXPOSE_HEADERS)} if allowed and origin else {}
        if request.method == "OPTIONS" and allowed and request.headers.get("Access-Control-Request-Method"):
            return web.Response(status=200, headers=cors | {
                "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
                "Access-Control-Allow-Headers": ", ".join(CORS_ALLOW_HEADERS), "Access-Control-Max-Age": "600"})
        request[EDGE_HEADERS] = cors | {"X-Request-ID": request_id}
        try:
            response: web.StreamResponse = await handler(request)
        except Problem as exc:
            response = exc.response()
        except ServiceError as exc:
            response = Problem(exc.status, exc.detail, exc.problem, exc.problem_errors(),
                               {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None,
                               **exc.problem_extra()).response()
        except web.HTTPException as exc:
            response = Problem(exc.status, exc.reason or status_phrase(exc.status)).response()
        except Exception as exc:
            backend = backend_down(exc)
            if backend is None:
                log.exception("stream gateway: unexpected error")
                response = Problem(500, "an unexpected error; it was logged").response()
            else:
                log.warning("%s unavailable: %s: %s", backend, type(exc).__name__, exc)
                response = Problem(503, f"{backend} does not answer; retry in {RETRY_AFTER_SECONDS} s",
                                   "service-unavailable", headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                                   backend=backend).response()
        if not response.prepared:
            response.headers.update(request[EDGE_HEADERS])
        return response

    async def stream(request: web.Request) -> web.StreamResponse:
        try:
            args = query_schema.load(dict(request.query))
        except ma.ValidationError as exc:
            raise Problem(422, "the query is invalid", errors={"query": exc.messages}) from None
        media = _negotiate(request.headers.get("Accept"))
        if media is None:
            raise Problem(406, f"this stream is served as {' or '.join(STREAM_TYPES)} (set Accept)")
        game_id = request.match_info["game_id"]
        authorization = request.headers.get("Authorization")
        # no bearer token: anonymous (authenticate's own answer), without a trip to the thread pool, which
        # only a directory look-up needs (most viewers of a popular game have no token)
        who = (ANONYMOUS if bearer_token(authorization) is None
               else await hub.call(_identity_of, authorization, settings, directory))
        header = request.headers.get("Last-Event-ID", "")
        last = int(header) if header.isdigit() else int(args.get("after") or 0)
        if not hub.has_feed(game_id):
            # 404 before the stream starts; its id as the writers spell it (their channel). A game this
            # process has a feed for exists under exactly that id: its joiners (thousands at once when
            # browsers reconnect after a restart) need no read here, their catch-up is the feed's
            game_id = (await hub.call(service.events, game_id, who, last, 1))["game_id"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(args["timeout"])
        viewer = Viewer(who, last, media == SSE_TYPE)
        await hub.join(game_id, viewer)  # before the answer starts: Redis down is a 503
        try:
            headers = {"Content-Type": f"{SSE_TYPE}; charset=utf-8" if viewer.sse else NDJSON_TYPE,
                       "Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Vary": "Accept"}
            edge: dict[str, str] = request[EDGE_HEADERS]
            response = web.StreamResponse(headers=headers | edge)
            if "Vary" in edge:
                response.headers["Vary"] = "Accept, Origin"
            await response.prepare(request)
            await response.write(b"retry: 2000\n\n") if viewer.sse else _send_headers(response)
            if request.transport is None:  # gone already
                return response
            chunked = "chunked" in response.headers.get("Transfer-Encoding", "")  # HTTP/1.1 (1.0: raw)
            viewer.attach(request.transport, chunked)
            keepalive = b": keepalive\n\n" if viewer.sse else b"\n"
            while not viewer.finished.is_set():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    # as the threaded endpoint, which reads before it looks at the clock: the events
                    # stored when the viewer came go out, however short the timeout (a slow database
                    # gets CATCH_UP_SECONDS more: then the stream ends as it is, the client resumes)
                    if viewer.served or remaining <= -CATCH_UP_SECONDS:
                        break
                    viewer.overdue = True
                    remaining += CATCH_UP_SECONDS
                idle = settings.keepalive - (time.monotonic() - viewer.wrote_at)
                if idle <= 0:
                    # also how a client that left is noticed: its transport is closing
                    viewer.send(keepalive)
                    continue
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(idle, remaining)):
                        await viewer.finished.wait()
            viewer.done = True
            await response.write_eof()
        except ConnectionError:
            pass  # the client left (a client that hangs up cancels this handler: the finally still runs)
        finally:
            await hub.leave(game_id, viewer)
        return response

    async def options(request: web.Request) -> web.Response:  # a CORS preflight is answered by edges
        return web.Response(status=200, headers={"Allow": "GET, HEAD, OPTIONS"})

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "checks": {}})

    async def metrics(request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(hub.metrics), content_type="text/plain")

    async def on_startup(app: web.Application) -> None:
        await hub.start()

    async def on_shutdown(app: web.Application) -> None:  # open streams end cleanly (the client resumes)
        for feed in list(hub.feeds.values()):
            for viewer in list(feed.viewers):
                viewer.finished.set()

    async def on_cleanup(app: web.Application) -> None:
        await hub.stop()

    app = web.Application(middlewares=[edges])
    app[HUB] = hub
    app[DIRECTORY] = directory
    app.router.add_get("/v1/games/{game_id}/events/stream", stream)
    app.router.add_route("OPTIONS", "/v1/games/{game_id}/events/stream", options)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


def refusal_status(exc: HttpProcessingError, max_url_bytes: int = MAX_URL_BYTES) -> int:
    """The status of aiohttp's refusal to parse a request: 414 for a URL over its limit, 431 for a header
    (or too many of them), else 400."""
    if isinstance(exc, LineTooLong):
        return 414 if exc.args[1:2] == (max_url_bytes,) else 431
    if "Too many headers" in str(exc.message):
        return 431
    return 400


_REFUSALS = {400: "the request could not be parsed", 414: f"the URL is longer than {MAX_URL_BYTES} bytes",
             431: f"a request header is longer than {MAX_HEADER_BYTES} bytes, or there are more than {MAX_HEADERS}"}


class ProblemRequestHandler(web.RequestHandler):
    """aiohttp's connection protocol, answering what the server itself refuses as problem+json (aiohttp's
    answer is text/plain echoing the request's bytes, and every refusal logs an ERROR traceback): a client's
    malformed request is one INFO line, an error outside the app's middleware keeps its traceback."""

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if request.writer.output_size > 0:  # an answer is under way: nothing else can be sent
            raise ConnectionError("the answer has started; cannot send an error instead")
        if isinstance(exc, HttpProcessingError):
            status = refusal_status(exc, self.max_line_size)
            log.info("stream gateway: refused a request from %s: %s %s", request.remote, status,
                     type(exc).__name__)
            response = Problem(status, f"{_REFUSALS.get(status, status_phrase(status))} (answered by the stream "
                               "gateway's server)").response()
        else:
            log.error("stream gateway: error outside the app", exc_info=exc)
            response = Problem(500, "an unexpected error; it was logged").response()
        response.force_close()
        return response


class _ProblemServer(web.Server):
    def __call__(self) -> web.RequestHandler:
        return ProblemRequestHandler(self, loop=self._loop, **self._kwargs)


class StreamRunner(web.AppRunner):
    """``web.AppRunner`` whose connections use ``ProblemRequestHandler`` with the 16 KiB limits."""

    def __init__(self, app: web.Application, **kwargs: Any) -> None:
        super().__init__(app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0,
                         max_line_size=MAX_URL_BYTES, max_field_size=MAX_HEADER_BYTES, max_headers=MAX_HEADERS,
                         **kwargs)

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _ProblemServer  # the same server; only the protocol it makes per connection differs
        return server


def run(app: web.Application, host: str, port: int) -> None:
    """Serve ``app`` until SIGINT/SIGTERM, on uvloop when it is installed."""
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:  # pragma: no cover - uvloop is a dependency on Linux
        pass
    sys.setswitchinterval(0.001)  # the readers' threads get the interpreter back from the loop sooner

    async def serve() -> None:
        runner = StreamRunner(app)
        await runner.setup()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await web.TCPSite(runner, host, port, backlog=LISTEN_BACKLOG).start()
            await stop.wait()
        finally:
            await runner.cleanup()

    asyncio.run(serve())


__all__ = ["Hub", "ProblemRequestHandler", "StreamRunner", "StreamSettings", "create_stream_app", "run"]
