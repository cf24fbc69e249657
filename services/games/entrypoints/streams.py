"""The stream gateway: ``GET /v1/games/{id}/events/stream`` (SSE and NDJSON) without a thread per viewer.

An aiohttp server on one asyncio loop (uvloop when installed). Every open stream is a coroutine and a
socket; the process holds **one** Redis pub/sub connection for all its viewers (one channel per game
with viewers). When a game's notice arrives, the game's feed reads the new events once per viewer class
and fans them out:

* spectators (anonymous callers and players without a seat) share one read as an anonymous caller:
  the game's rules show them the same copy (README "What is revealed after the end");
* each seated player gets the read of its own identity (its seat's copy);
* admins share one read as the admin.

The reads are the games service's own use case (``GamesService.events``), run on a small thread pool,
so redaction, the reveal policy and 404s are exactly those of ``GET .../events``. Seats only ever fill
(nobody leaves a seat), and the seats are looked up *after* the spectators' read, so a viewer counted
as a spectator there was one when that read ran: a spectator's copy never reaches a seat that should
see more, nor a seat's copy a spectator.

Answers as the threaded endpoint does: same media types, ``Last-Event-ID``/``?after=N`` resume, keep-
alives every ``STREAM_KEEPALIVE_SECONDS``, the ``end`` event, ``timeout``, CORS headers and problem+json
errors (401, 404, 406, 422, 503 with ``Retry-After`` when PostgreSQL or Redis does not answer)."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import marshmallow as ma
import redis.asyncio as aioredis
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from services.games.adapters.notifications import channel
from services.games.entrypoints.http import ENDED, NDJSON_TYPE, SSE_TYPE, STREAM_TYPES
from services.games.entrypoints.schemas import StreamQuery
from services.games.service_layer.handlers import GamesService
from shared.auth import ANONYMOUS, Identity, PlayerDirectory, UnknownToken, authenticate
from shared.errors import ServiceError, problem_for_status, problem_type, status_phrase
from shared.web.app import (
    CORS_ALLOW_HEADERS,
    CORS_EXPOSE_HEADERS,
    RETRY_AFTER_SECONDS,
    backend_down,
    origin_pattern,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
PAGE = 500  # events per read, as the threaded endpoint reads them
ADMIN = Identity(admin=True)
EDGE_HEADERS: web.RequestKey[dict[str, str]] = web.RequestKey("edge_headers")
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True)
class StreamSettings:
    admin_token: str | None
    redis_url: str
    keepalive: float = 15.0
    cors_origins: tuple[str, ...] = ()
    threads: int = 8  # the pool that runs the service's (blocking) reads: per class, not per viewer
    batch: float = 0.025  # seconds between two reads of one game (STREAM_BATCH_SECONDS)


MAX_BUFFERED = 8 << 20  # bytes a viewer may fall behind by before it is cut off (it resumes with Last-Event-ID)


@dataclass(eq=False)
class Viewer:
    """One open stream. The feed writes a batch straight to its socket (no coroutine wakes per batch):
    the bytes of one batch are shared by every viewer of a class at the same version."""

    identity: Identity
    last: int
    sse: bool
    transport: asyncio.Transport | None = None  # None until the answer's headers are out
    chunked: bool = True
    pending: list[bytes] = field(default_factory=list)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    wrote_at: float = 0.0
    done: bool = False  # the end was written: nothing more goes to it

    def send(self, data: bytes) -> None:
        transport = self.transport
        if transport is None:
            self.pending.append(data)
            return
        if transport.is_closing():  # the client left
            self.finished.set()
            return
        if self.chunked:
            transport.writelines((b"%x\r\n" % len(data), data, b"\r\n"))
        else:
            transport.write(data)
        self.wrote_at = time.monotonic()
        if transport.get_write_buffer_size() > MAX_BUFFERED:  # a client that does not read
            log.warning("a viewer fell %d bytes behind: cut off", transport.get_write_buffer_size())
            transport.close()
            self.finished.set()

    def attach(self, transport: asyncio.Transport, chunked: bool) -> None:
        """The headers are out: from now on straight to the socket, what waited first."""
        self.transport, self.chunked = transport, chunked
        pending, self.pending = self.pending, []
        for data in pending:
            self.send(data)
        self.wrote_at = time.monotonic()

    def end(self) -> None:
        self.done = True
        self.finished.set()


@dataclass(eq=False)
class Feed:
    """The viewers of one game in this process, and the task that reads for them."""

    game_id: str
    viewers: set[Viewer] = field(default_factory=set)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    seats: set[str] | None = None  # the seated players once the game has started (seats are final then)
    task: asyncio.Task[None] | None = None


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


def _encode(item: dict[str, Any], sse: bool) -> bytes:
    data = json.dumps(item)  # as the threaded endpoint writes it
    return (f"id: {item['version']}\nevent: {item['type']}\ndata: {data}\n\n" if sse else data + "\n").encode()


def _end(status: str) -> bytes:
    return f"event: end\ndata: {json.dumps({'status': status})}\n\n".encode()


class Hub:
    """One Redis subscription for the process; one feed per game with viewers."""

    def __init__(self, service: GamesService, settings: StreamSettings) -> None:
        self.service, self.settings = service, settings
        self.feeds: dict[str, Feed] = {}
        self.pool = ThreadPoolExecutor(settings.threads, thread_name_prefix="stream-read")
        self.redis: aioredis.Redis | None = None
        self.pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.metrics = CollectorRegistry()
        self.viewers_gauge = Gauge("speltafel_stream_viewers", "open live streams", registry=self.metrics)
        self.games_gauge = Gauge("speltafel_stream_games", "games with open live streams", registry=self.metrics)
        self.reads = Counter("speltafel_stream_reads", "event reads (one per viewer class and batch)",
                             registry=self.metrics)
        self.sent = Counter("speltafel_stream_events", "events written to viewers", registry=self.metrics)
        self.lag = Histogram("speltafel_stream_lag_seconds", "from an event's recorded_at to its batch being "
                             "handed to the viewers' sockets (the oldest event of each batch)", registry=self.metrics,
                             buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def start(self) -> None:
        self.redis = aioredis.Redis.from_url(self.settings.redis_url, socket_connect_timeout=2)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)

    async def stop(self) -> None:
        for feed in list(self.feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
        if self._reader is not None:
            self._reader.cancel()
        if self.pubsub is not None:
            await self.pubsub.aclose()
        if self.redis is not None:
            await self.redis.aclose()
        self.pool.shutdown(wait=False, cancel_futures=True)

    # --- viewers come and go -------------------------------------------------------------------------
    async def join(self, game_id: str, viewer: Viewer) -> None:
        """Subscribed (when the game's first viewer) before the first read, so no change slips between;
        raises when Redis does not answer (the caller answers 503)."""
        async with self._lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                await self.pubsub.subscribe(channel(game_id))
                feed = self.feeds[game_id] = Feed(game_id)
                feed.task = asyncio.create_task(self._run(feed))
                if self._reader is None or self._reader.done():
                    self._reader = asyncio.create_task(self._read_notices())
            feed.viewers.add(viewer)
            feed.wake.set()  # its catch-up read
        self.viewers_gauge.inc()
        self.games_gauge.set(len(self.feeds))

    async def leave(self, game_id: str, viewer: Viewer) -> None:
        self.viewers_gauge.dec()
        async with self._lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                return
            feed.viewers.discard(viewer)
            if feed.viewers:
                return
            del self.feeds[game_id]
            if feed.task is not None:
                feed.task.cancel()
            try:
                await self.pubsub.unsubscribe(channel(game_id))
            except Exception as exc:  # Redis away: the subscription went with the connection
                log.warning("unsubscribe %s: %s", game_id, exc)
        self.games_gauge.set(len(self.feeds))

    # --- notices -------------------------------------------------------------------------------------
    async def _read_notices(self) -> None:
        prefix = channel("")
        while self.feeds:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis went away: retry; the feeds re-read at their keep-alive tick
                log.warning("pub/sub: %s: %s", type(exc).__name__, exc)
                await asyncio.sleep(1.0)
                for lost in self.feeds.values():
                    lost.wake.set()  # notices may have been lost meanwhile
                continue
            if message is None or message.get("type") != "message":
                continue
            name = message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
            feed = self.feeds.get(name[len(prefix):])
            if feed is not None:
                feed.wake.set()

    # --- one game's reads ----------------------------------------------------------------------------
    async def _run(self, feed: Feed) -> None:
        loop = asyncio.get_running_loop()
        last_round = -1e9
        while True:
            # a read also every keep-alive period: a lost notice delays an event by that at most
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(feed.wake.wait(), self.settings.keepalive)
            # at most one batch per game every ``batch`` seconds: a busy game's moves share reads (an
            # idle game's next move is read at once)
            wait = self.settings.batch - (loop.time() - last_round)
            if wait > 0:
                await asyncio.sleep(wait)
            feed.wake.clear()
            last_round = loop.time()
            try:
                while await self._round(feed):
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # PostgreSQL away: the viewers keep their keep-alives; retry later
                log.warning("stream read %s: %s: %s", feed.game_id, type(exc).__name__, exc)

    async def _round(self, feed: Feed) -> bool:
        """Read what the feed's viewers have not had, once per class; True when a page was full.

        The reads of one batch run in one trip to the thread pool (one hand-over of the interpreter lock
        instead of one per class: with thousands of sockets on the loop that hand-over is what waits)."""
        viewers = [v for v in feed.viewers if not v.done]
        if not viewers:
            return False
        groups = await self.call(self._read_batch, feed, viewers)
        full = False
        for members, page in groups:
            full |= self._deliver(page, members)
        return full

    def _read_batch(self, feed: Feed, viewers: list[Viewer]) -> list[tuple[list[Viewer], dict[str, Any]]]:
        """(viewers, their page) per class; runs on the pool. The spectators' read comes first and the
        seats are looked up after it while seats can still fill (see the module's doc)."""
        game_id = feed.game_id
        admins = [v for v in viewers if v.identity.admin]
        others = [v for v in viewers if not v.identity.admin]
        out: list[tuple[list[Viewer], dict[str, Any]]] = []

        def after(members: list[Viewer]) -> int:
            return min(v.last for v in members)

        first: dict[str, Any] | None = None
        seated = feed.seats
        if seated is None:
            if others:
                first = self._read(game_id, ANONYMOUS, after(others))
            view = self.service.game_view(game_id, ANONYMOUS)
            seated = {s["player_id"] for s in view["seats"] if s["player_id"]}
            if view["status"] != "open":  # seats fill only while the table is open
                feed.seats = seated
        groups: dict[str | None, list[Viewer]] = {}
        for v in others:
            groups.setdefault(v.identity.player_id if v.identity.player_id in seated else None, []).append(v)
        spectators = groups.pop(None, [])
        if spectators:
            page = first if first is not None else self._read(game_id, ANONYMOUS, after(spectators))
            out.append((spectators, page))
        for members in groups.values():
            out.append((members, self._read(game_id, members[0].identity, after(members))))
        if admins:
            out.append((admins, self._read(game_id, ADMIN, after(admins))))
        return out

    def _read(self, game_id: str, identity: Identity, after: int) -> dict[str, Any]:
        self.reads.inc()
        return self.service.events(game_id, identity, after, PAGE)

    def _deliver(self, page: dict[str, Any], viewers: Iterable[Viewer]) -> bool:
        items: list[dict[str, Any]] = page["events"]
        versions = [item["version"] for item in items]
        encoded: dict[bool, list[bytes]] = {}
        joined: dict[tuple[bool, int], bytes] = {}  # viewers at the same version share one buffer
        ended = page["status"] in ENDED
        sent = 0
        for v in viewers:
            start = bisect.bisect_right(versions, v.last)
            if start < len(items):
                key = (v.sse, start)
                chunk = joined.get(key)
                if chunk is None:
                    chunks = encoded.get(v.sse)
                    if chunks is None:
                        chunks = encoded[v.sse] = [_encode(item, v.sse) for item in items]
                    chunk = joined[key] = b"".join(chunks[start:])
                v.send(chunk)
                v.last = versions[-1]
                sent += len(items) - start
            if ended and v.last >= page["version"]:  # the final event is out
                if v.sse:
                    v.send(_end(page["status"]))
                v.end()
        self.sent.inc(sent)
        if sent and items[0].get("recorded_at"):
            with contextlib.suppress(ValueError, TypeError):
                self.lag.observe(time.time() - datetime.fromisoformat(items[0]["recorded_at"]).timestamp())
        return len(items) >= PAGE


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


HUB = web.AppKey("hub", Hub)


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
        who = await hub.call(_identity_of, request.headers.get("Authorization"), settings, directory)
        header = request.headers.get("Last-Event-ID", "")
        last = int(header) if header.isdigit() else int(args.get("after") or 0)
        # 404 before the stream starts; its id as the writers spell it (their channel)
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
                    break
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
    app.router.add_get("/v1/games/{game_id}/events/stream", stream)
    app.router.add_route("OPTIONS", "/v1/games/{game_id}/events/stream", options)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


def run(app: web.Application, host: str, port: int) -> None:
    """Serve ``app`` until SIGINT/SIGTERM, on uvloop when it is installed."""
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:  # pragma: no cover - uvloop is a dependency on Linux
        pass
    sys.setswitchinterval(0.001)  # the readers' threads get the interpreter back from the loop sooner
    web.run_app(app, host=host, port=port, access_log=None, print=None,
                handler_cancellation=True, shutdown_timeout=1.0)


__all__ = ["Hub", "StreamSettings", "create_stream_app", "run"]
