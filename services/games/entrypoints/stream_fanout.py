"""The stream gateway: ``GET /v1/games/{id}/events/stream`` (SSE and NDJSON) without a thread per viewer.

An aiohttp server on one asyncio loop (uvloop when installed). Every open stream is a coroutine and a
socket; the process holds **one** Redis pub/sub connection for all its viewers (one channel per game
with viewers). A game's writer publishes each commit's new events on that channel
(``adapters/notifications.py``); the game's feed makes its viewers' copies from them without reading
PostgreSQL (``GamesService.live_batch_known``: folded once from the cached table), and reads the store
instead (``GamesService.live_batch``: one query for all its viewers) whenever the notices do not follow
on without a gap: a viewer joins or resumes behind the feed, a notice was lost (the next one shows the
gap, or the read every ``STREAM_KEEPALIVE_SECONDS`` finds it), a notice came without its events (too big,
an older writer), Redis reconnected, or the cache lacks the table. Either way each viewer class's copies
are made as ``GET .../events`` makes them:

* spectators (anonymous callers and players without a seat) share the spectators' copy (README "What is
  revealed after the end");
* each seated player gets its seat's copy (``redact_event`` of the game's engine);
* admins share the full log.

Each viewer's class is ``viewer_of`` on the table as of the batch's last event, so a player who takes a
seat gets its seat's copy from that batch on (seats only fill; nobody leaves a seat). Each class's batch
is encoded and framed once; every viewer of the class at the same version gets the same bytes in one
socket write (no coroutine wakes per viewer and batch). The reads run on a small thread pool.

Answers as the threaded endpoint does: same media types, ``Last-Event-ID``/``?after=N`` resume, keep-
alives every ``STREAM_KEEPALIVE_SECONDS``, the ``end`` event, ``timeout``, the ``clock`` event (SSE) or
line (NDJSON) after each batch on a clocked table, CORS headers and problem+json errors (401, 404, 406,
422, 503 with ``Retry-After`` when PostgreSQL or Redis does not answer)."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import redis.asyncio as aioredis
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from services.games.adapters.notifications import Row, channel, decode_notice
from services.games.entrypoints.http import ENDED
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity

log = logging.getLogger(__name__)
T = TypeVar("T")
PAGE = 500  # events per read, as the threaded endpoint reads them
ADMIN = Identity(admin=True)


@dataclass(frozen=True)
class StreamSettings:
    admin_token: str | None
    redis_url: str
    keepalive: float = 15.0
    cors_origins: tuple[str, ...] = ()
    threads: int = 8  # the pool that runs the service's (blocking) reads: per class, not per viewer
    batch: float = 0.05  # seconds between two batches of one game (STREAM_BATCH_SECONDS)


KNOWN_MAX = 4 * PAGE  # events from notices a feed holds at most (past that it forgets them and reads)
MAX_BUFFERED = 8 << 20  # bytes a viewer may fall behind by before it is cut off (it resumes with Last-Event-ID)


@dataclass(eq=False, slots=True)
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
    served: bool = False  # a round has given it what was stored when it joined (its catch-up)
    overdue: bool = False  # its timeout passed before that: the catch-up ends the stream

    def send(self, data: bytes, framed: bytes | None = None) -> None:
        """``data`` to the socket in one write; ``framed``: the same as one HTTP/1.1 chunk, when the
        caller has it (the fan-out frames a batch once for all its viewers)."""
        transport = self.transport
        if transport is None:
            self.pending.append(data)
            return
        if transport.is_closing():  # the client left
            self.finished.set()
            return
        if self.chunked:
            transport.write(framed if framed is not None else _frame(data, True))
        else:
            transport.write(data)
        self.wrote_at = time.monotonic()
        if transport.get_write_buffer_size() > MAX_BUFFERED:  # a client that does not read
            self.cut_off()

    def cut_off(self) -> None:
        assert self.transport is not None
        log.warning("a viewer fell %d bytes behind: cut off", self.transport.get_write_buffer_size())
        self.transport.close()
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
    # the viewers by caller ((admin, player_id): ``viewer_of`` gives them one class), for the round
    callers: dict[tuple[bool, str | None], list[Viewer]] = field(default_factory=dict)
    version: int = 0  # the game's version as of the last round
    last_round: float = -1e9  # loop.time() of its last round
    reading: bool = False  # a read of PostgreSQL is under way
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    known: dict[int, Row] = field(default_factory=dict)  # version -> a stored event from a notice, not yet sent
    stale: bool = True  # PostgreSQL may hold events that no notice brought: the next round reads it
    noticed_at: float | None = None  # time.time() of the first notice since the last round (the stage metric)


def _caller(identity: Identity) -> tuple[bool, str | None]:
    return identity.admin, identity.player_id


def _encode(item: dict[str, Any], sse: bool) -> bytes:
    data = json.dumps(item)  # as the threaded endpoint writes it
    return (f"id: {item['version']}\nevent: {item['type']}\ndata: {data}\n\n" if sse else data + "\n").encode()


def _frame(data: bytes, chunked: bool) -> bytes:
    """``data`` as one HTTP/1.1 chunk (nothing stays nothing: an empty chunk would end the answer)."""
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked and data else data


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
        self.reads = Counter("speltafel_stream_reads", "event reads of PostgreSQL (one per game and batch, for all "
                             "its viewer classes, when the notices did not bring the batch's events)",
                             registry=self.metrics)
        self.noticed = Counter("speltafel_stream_notice_batches", "batches made from the events the notices "
                               "brought (no read)", registry=self.metrics)
        self.sent = Counter("speltafel_stream_events", "events written to viewers", registry=self.metrics)
        self.lag = Histogram("speltafel_stream_lag_seconds", "from an event's recorded_at to its batch being "
                             "handed to the viewers' sockets (the oldest event of each batch)", registry=self.metrics,
                             buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
        self.stages = Histogram("speltafel_stream_stage_seconds", "from the oldest event of a batch's recorded_at "
                                "to the notice that woke its round (noticed) and to its events in hand (read)",
                                ["stage"], registry=self.metrics,
                                buckets=(0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 10))

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def start(self) -> None:
        # RESP2: redis-py parses a pub/sub message for less than RESP3's push frame (17.0 against 22.7 µs of
        # CPU per notice of 1.1 kB; the gateway reads one per commit of every game it has viewers for)
        self.redis = aioredis.Redis.from_url(self.settings.redis_url, socket_connect_timeout=2, protocol=2)
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
    def has_feed(self, game_id: str) -> bool:
        """This process has a feed for the game of exactly this id (so the game exists)."""
        return game_id in self.feeds

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
            feed.callers.setdefault(_caller(viewer.identity), []).append(viewer)
            if viewer.last < feed.version or not feed.version:
                feed.stale = True  # its catch-up read
            else:
                viewer.served = True  # it has what the last round gave; the notices bring the rest
            feed.wake.set()
        self.viewers_gauge.inc()
        self.games_gauge.set(len(self.feeds))

    async def leave(self, game_id: str, viewer: Viewer) -> None:
        self.viewers_gauge.dec()
        async with self._lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                return
            feed.viewers.discard(viewer)
            caller = feed.callers.get(_caller(viewer.identity), [])
            with contextlib.suppress(ValueError):
                caller.remove(viewer)
            if not caller:
                feed.callers.pop(_caller(viewer.identity), None)
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
                    lost.stale = True  # notices may have been lost meanwhile
                    lost.wake.set()
                continue
            touched: dict[str, Feed] = {}
            while message is not None:  # every notice already here, then the rounds they make due
                if message.get("type") == "message":
                    name = message["channel"]
                    name = name.decode() if isinstance(name, bytes) else name
                    feed = self.feeds.get(name[len(prefix):])
                    if feed is not None:
                        if feed.noticed_at is None:
                            feed.noticed_at = time.time()
                        self._notice(feed, message["data"])
                        touched[feed.game_id] = feed
                try:
                    message = await self.pubsub.get_message(timeout=0)  # does not wait
                except asyncio.CancelledError:
                    raise
                except Exception:  # the next get_message above reports it
                    message = None
            for feed in touched.values():
                self._at_once_or_later(feed)

    def _at_once_or_later(self, feed: Feed) -> None:
        """A feed whose batch period has passed makes its batch from the notices right here, in the same
        turn of the loop that read them (a wake-up of the feed's task would wait for the next turn, on a
        busy loop as long as a whole turn of writes); else, or when it needs a read, its task does it."""
        loop = asyncio.get_running_loop()
        if feed.reading or feed.wake.is_set() or loop.time() - feed.last_round < self.settings.batch:
            feed.wake.set()
            return
        try:
            done = self._from_notices(feed)
        except Exception as exc:
            log.warning("stream batch %s: %s: %s", feed.game_id, type(exc).__name__, exc)
            feed.known.clear()
            feed.stale = True
            done = None
        if done is None or done:  # a read to make, or a page was full
            feed.wake.set()
        else:
            feed.last_round = loop.time()

    @staticmethod
    def _notice(feed: Feed, data: bytes | str) -> None:
        """Keep the events a notice brings; a notice without them (too big, an older writer) or one that
        does not parse makes the next round read PostgreSQL."""
        try:
            _, rows = decode_notice(data)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("a notice that does not parse: %s: %s", type(exc).__name__, exc)
            rows = None
        if not rows:
            feed.stale = True
            return
        for row in rows:
            feed.known[row[0]] = row
        if len(feed.known) > KNOWN_MAX:
            feed.known.clear()
            feed.stale = True

    # --- one game's reads ----------------------------------------------------------------------------
    async def _run(self, feed: Feed) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # a read also every keep-alive period: a lost notice delays an event by that at most
            if not feed.wake.is_set():
                try:
                    async with asyncio.timeout(self.settings.keepalive):  # no task per wait (as wait_for makes)
                        await feed.wake.wait()
                except TimeoutError:
                    feed.stale = True
            # at most one batch per game every ``batch`` seconds: a busy game's moves share reads (an
            # idle game's next move is read at once)
            wait = self.settings.batch - (loop.time() - feed.last_round)
            if wait > 0:
                await asyncio.sleep(wait)
            feed.wake.clear()
            feed.last_round = loop.time()
            try:
                while await self._round(feed):
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # PostgreSQL away: the viewers keep their keep-alives; retry later
                log.warning("stream read %s: %s: %s", feed.game_id, type(exc).__name__, exc)
                feed.known.clear()  # whatever failed, the retry reads the store
                feed.stale = True

    def _callers(self, feed: Feed) -> tuple[list[list[Viewer]], list[Identity], int]:
        callers = list(feed.callers.values())
        identities = [ADMIN if members[0].identity.admin else members[0].identity for members in callers]
        return callers, identities, min(v.last for v in feed.viewers)

    def _from_notices(self, feed: Feed) -> bool | None:
        """The batch from the events the notices brought, when they follow on from what every viewer has
        without a gap (True when a page was full; False also when there is nothing new); None when the
        store must be read instead."""
        if not feed.viewers:
            return False
        callers, identities, after = self._callers(feed)
        known = feed.known
        for version in [version for version in known if version <= after]:
            del known[version]
        rows: list[Row] = []
        while len(rows) < PAGE and (row := known.get(after + 1 + len(rows))) is not None:
            rows.append(row)
        if rows and not feed.stale and (len(rows) == len(known) or len(rows) == PAGE):  # no gap
            batch = self.service.live_batch_known(feed.game_id, identities, after, rows, True)
            if batch is None:
                return None
            self.noticed.inc()
            return self._fan_out(feed, batch, callers)
        if not feed.stale and not known:
            return False  # nothing new (the notice's events went out with an earlier read)
        return None

    async def _round(self, feed: Feed) -> bool:
        """What the feed's viewers have not had, once for all of them, and each class its copies: from
        the events the notices brought when they follow on without a gap, else one read of PostgreSQL
        (one trip to the thread pool); True when a page was full."""
        done = self._from_notices(feed)
        if done is not None:
            return done
        callers, identities, after = self._callers(feed)
        feed.stale = False  # a notice without its events during the read makes the next round read again
        feed.reading = True
        try:
            batch = await self.call(self._read, feed.game_id, identities, after, True)
        finally:
            feed.reading = False
        return self._fan_out(feed, batch, callers)

    def _fan_out(self, feed: Feed, batch: dict[str, Any], callers: list[list[Viewer]]) -> bool:
        feed.version = max(feed.version, batch["version"])
        noticed, feed.noticed_at = feed.noticed_at, None
        self._stage(batch, noticed)
        groups: dict[int | None, list[Viewer]] = {}
        for cls, members in zip(batch["classes"], callers, strict=True):
            groups.setdefault(cls, []).extend(members)
        full = False
        clock = batch.get("clock")
        for cls, members in groups.items():
            full |= self._deliver(batch, batch["pages"][cls], clock, members)
        return full

    def _stage(self, batch: dict[str, Any], noticed: float | None) -> None:
        pages = batch["pages"]
        first = next((items[0] for items in pages.values() if items), None)
        if first is None or not first.get("recorded_at"):
            return
        with contextlib.suppress(ValueError, TypeError):
            recorded = datetime.fromisoformat(first["recorded_at"]).timestamp()
            if noticed is not None:
                self.stages.labels("noticed").observe(noticed - recorded)
            self.stages.labels("read").observe(time.time() - recorded)

    def _read(self, game_id: str, identities: list[Identity], after: int, clock: bool) -> dict[str, Any]:
        self.reads.inc()
        return self.service.live_batch(game_id, identities, after, PAGE, clock)

    def _deliver(self, batch: dict[str, Any], items: list[dict[str, Any]], clock_view: dict[str, Any] | None,
                 viewers: Iterable[Viewer]) -> bool:
        """Every viewer of one class at the same version and framing gets the same bytes, encoded and
        framed once, in one write (straight to its socket: this loop is most of the gateway's work)."""
        versions = [item["version"] for item in items]
        newest = versions[-1] if versions else 0
        encoded: dict[bool, list[bytes]] = {}
        # (sse, last) -> (bytes, chunk-framed bytes, events in them, finishing)
        shared: dict[tuple[bool, int], tuple[bytes, bytes, int, bool]] = {}
        status = batch["status"]
        ended = status in ENDED
        clocks = ({True: f"event: clock\ndata: {json.dumps(clock_view)}\n\n".encode(),
                   False: (json.dumps({"type": "clock", "clock": clock_view}) + "\n").encode()}
                  if clock_view and items else {True: b"", False: b""})
        end = _end(status) if ended else b""
        sent = 0
        now = time.monotonic()
        cur_sse, cur_last = None, -1
        data, framed, fresh, finishing = b"", b"", 0, False
        for v in viewers:  # per viewer only what differs: most viewers of a class are at the same version
            last, sse = v.last, v.sse
            if last != cur_last or sse is not cur_sse:
                cur_sse, cur_last = sse, last
                entry = shared.get((sse, last))
                if entry is None:
                    start = bisect.bisect_right(versions, last)
                    fresh = len(items) - start
                    finishing = ended and max(last, newest if fresh else 0) >= batch["version"]
                    data = b""
                    if fresh:
                        chunks = encoded.get(sse)
                        if chunks is None:
                            chunks = encoded[sse] = [_encode(item, sse) for item in items]
                        data = b"".join(chunks[start:]) + clocks[sse]
                    if finishing and sse:
                        data += end
                    entry = shared[(sse, last)] = (data, _frame(data, True), fresh, finishing)
                data, framed, fresh, finishing = entry
            if v.done:
                continue
            if not v.served:
                v.served = True
                if v.overdue:  # it waited for this past its timeout: its stream ends after it
                    v.finished.set()
            if data:
                transport = v.transport
                if transport is not None and v.chunked and not transport.is_closing():  # the usual case
                    transport.write(framed)
                    v.wrote_at = now
                    if transport.get_write_buffer_size() > MAX_BUFFERED:
                        v.cut_off()
                else:
                    v.send(data, framed)
            if fresh:
                v.last = newest
                sent += fresh
            if finishing:
                v.end()
        self.sent.inc(sent)
        if sent and items[0].get("recorded_at"):
            with contextlib.suppress(ValueError, TypeError):
                self.lag.observe(time.time() - datetime.fromisoformat(items[0]["recorded_at"]).timestamp())
        return len(items) >= PAGE
