"""Load clients of ``bench/streams.py``, each its own process on one asyncio loop (uvloop, aiohttp):

* ``movers``: N clients, each playing its own Tally game (two seats, alternating) as fast as answers
  come (or, given ``rate``, at that many moves/s in all, spread evenly over the clients), for a number
  of seconds; prints moves/s and latency as JSON;
* ``viewers``: thousands of SSE viewers (one socket and one bare asyncio protocol each), resuming with
  ``Last-Event-ID``; prints ``ready`` once every viewer's stream is open, then on ``stop <finals>`` (the
  games' final versions, one JSON line on stdin) waits until each has them (or a grace period passes)
  and prints, as JSON, how many viewers got every event exactly once in order, and the delivery latency
  (arrival here minus the event's ``recorded_at``; one clock, one machine).

Arguments: one JSON object on stdin's first line."""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import aiohttp


def _stats(samples: list[float] | array.array[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {}
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 2)  # noqa: E731
    return {"p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(ordered[-1] * 1000, 2)}


async def movers(args: dict[str, Any]) -> dict[str, Any]:
    base, seconds = args["url"], float(args["seconds"])
    interval = len(args["games"]) / float(args["rate"]) if args.get("rate") else 0.0  # each client's pace
    latencies: list[float] = []
    errors = 0

    async def play(session: aiohttp.ClientSession, game: dict[str, Any]) -> None:
        nonlocal errors
        async with session.get(f"{base}/v1/games/{game['id']}") as r:
            state = await r.json()
        version, seat = state["version"], state["to_move"][0]
        due = time.monotonic()
        while time.monotonic() < stop:
            if interval:
                due += interval
                if (ahead := due - time.monotonic()) > 0:
                    await asyncio.sleep(ahead)
            t = time.perf_counter()
            async with session.post(f"{base}/v1/games/{game['id']}/moves",
                                    json={"move": {"type": "add"}, "expected_version": version},
                                    headers={"Authorization": f"Bearer {game['tokens'][seat]}"}) as r:
                body = await r.json()
            if r.status != 201:
                errors += 1
                async with session.get(f"{base}/v1/games/{game['id']}") as g:
                    state = await g.json()
                version, seat = state["version"], state["to_move"][0]
                continue
            latencies.append(time.perf_counter() - t)
            version, seat = body["version"], 1 - seat  # Tally: the seats alternate

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        started = time.monotonic()
        stop = started + seconds
        await asyncio.gather(*(play(session, g) for g in args["games"]))
        elapsed = time.monotonic() - started
    return {"clients": len(args["games"]), "moves": len(latencies), "moves_per_s": round(len(latencies) / elapsed, 1),
            "errors": errors, **_stats(latencies)}


class Viewer:
    __slots__ = ("events", "first", "game", "last", "ordered", "settled")

    def __init__(self, game: str, after: int) -> None:
        self.game, self.first, self.last, self.ordered, self.events = game, after, after, True, 0
        self.settled = False


ID = re.compile(rb"(?m)^id: (\d+)$")
STAMP = re.compile(rb'"recorded_at": "([^"]+)"')
parse = datetime.fromisoformat


class SseProtocol(asyncio.Protocol):
    """One viewer as a bare asyncio protocol (no coroutine, no stream reader per chunk): parses what
    arrives in ``data_received`` with two C regexes, so one process keeps up with thousands of sockets."""

    def __init__(self, request: bytes, v: Viewer, latencies: array.array[float], done: dict[str, int],
                 opened: Callable[[bool], None], finished: Callable[[], None]) -> None:
        self.request, self.v, self.latencies, self.done = request, v, latencies, done
        self.opened, self.finished = opened, finished
        self.buffer = b""
        self.headers = False
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:  # uvloop's transports are not asyncio.Transport
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time()
        buffer = self.buffer + data
        if not self.headers:
            head = buffer.find(b"\r\n\r\n")
            if head < 0:
                self.buffer = buffer
                return
            self.headers = True
            self.opened(buffer.startswith(b"HTTP/1.1 200"))
            buffer = buffer[head + 4:]
        cut = buffer.rfind(b"\n\n")
        if cut < 0:
            self.buffer = buffer
            return
        complete, self.buffer = buffer[:cut + 2], buffer[cut + 2:]
        ids = ID.findall(complete)
        if ids:
            v = self.v
            first, last = int(ids[0]), int(ids[-1])
            if first != v.last + 1 or last - first + 1 != len(ids):
                v.ordered = False
            v.last = last
            v.events += len(ids)
            self.latencies.extend(now - parse(stamp.decode()).timestamp() for stamp in STAMP.findall(complete))
            final = self.done.get(v.game)
            if final is not None and v.last >= final and self.transport is not None:
                self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.headers:
            self.opened(False)
        self.finished()


async def viewers(args: dict[str, Any]) -> dict[str, Any]:
    host, port = args["streams_url"].removeprefix("http://").split(":")
    latencies: array.array[float] = array.array("d")
    specs = args["viewers"]  # [{game, token|null, after}]
    done: dict[str, int] = {}
    counts = {"opened": 0, "failed": 0, "closed": 0}
    all_open, all_closed = asyncio.Event(), asyncio.Event()

    def opened(ok: bool) -> None:
        counts["opened" if ok else "failed"] += 1
        if counts["opened"] + counts["failed"] == len(specs):
            all_open.set()

    def finished() -> None:
        counts["closed"] += 1
        if counts["closed"] == len(specs):
            all_closed.set()

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    views = [Viewer(s["game"], s["after"]) for s in specs]
    protocols = []
    for k, (spec, v) in enumerate(zip(specs, views, strict=True)):
        auth = f"Authorization: Bearer {spec['token']}\r\n" if spec["token"] else ""
        request = (f"GET /v1/games/{spec['game']}/events/stream?timeout=3600 HTTP/1.1\r\nHost: {host}:{port}\r\n"
                   f"Accept: text/event-stream\r\nLast-Event-ID: {spec['after']}\r\n{auth}\r\n").encode()
        _, protocol = await loop.create_connection(
            lambda request=request, v=v: SseProtocol(request, v, latencies, done, opened, finished), host, int(port))
        protocols.append(protocol)
        if k % 100 == 99:
            await asyncio.sleep(0.05)  # open them at a steady pace, not one SYN flood
    await asyncio.wait_for(all_open.wait(), 300)
    print("ready", flush=True)
    line = await reader.readline()
    done.update(json.loads(line.decode().removeprefix("stop ")))
    for protocol in protocols:  # the ones already there
        if protocol.transport is not None and protocol.v.last >= done[protocol.v.game]:
            protocol.transport.close()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_closed.wait(), float(args.get("grace", 15)))
    for protocol in protocols:
        if protocol.transport is not None:
            protocol.transport.close()
    complete = sum(1 for v in views if v.ordered and v.last == done[v.game])
    return {"viewers": len(views), "complete": complete, "incomplete": len(views) - complete,
            "failed_connections": counts["failed"], "events_delivered": sum(v.events for v in views),
            "delivery_latency": _stats(latencies)}


def main() -> None:
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:  # pragma: no cover
        pass
    mode = sys.argv[1]
    args = json.loads(sys.stdin.readline())
    result = asyncio.run(movers(args) if mode == "movers" else viewers(args))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
