"""Load clients of ``bench/streams.py``, each its own process on one asyncio loop (uvloop, aiohttp):

* ``movers``: N clients, each playing its own Tally game (two seats, alternating) as fast as answers
  come, for a number of seconds; prints moves/s and latency as JSON;
* ``viewers``: thousands of SSE viewers (one coroutine and one socket each), resuming with
  ``Last-Event-ID``; prints ``ready`` once every viewer's stream is open, then on ``stop <finals>`` (the
  games' final versions, one JSON line on stdin) waits until each has them (or a grace period passes)
  and prints, as JSON, how many viewers got every event exactly once in order, and the delivery latency
  (arrival here minus the event's ``recorded_at``; one clock, one machine).

Arguments: one JSON object on stdin's first line."""

from __future__ import annotations

import array
import asyncio
import json
import re
import sys
import time
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
    latencies: list[float] = []
    errors = 0

    async def play(session: aiohttp.ClientSession, game: dict[str, Any]) -> None:
        nonlocal errors
        async with session.get(f"{base}/v1/games/{game['id']}") as r:
            state = await r.json()
        version, seat = state["version"], state["to_move"][0]
        while time.monotonic() < stop:
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


async def viewers(args: dict[str, Any]) -> dict[str, Any]:
    url = args["streams_url"]
    latencies: array.array[float] = array.array("d")
    opened = 0
    all_open = asyncio.Event()
    done: dict[str, int] = {}
    finals_known = asyncio.Event()
    specs = args["viewers"]  # [{game, token|null, after}]

    def settled() -> None:
        nonlocal opened
        opened += 1
        if opened == len(specs):
            all_open.set()

    async def watch(session: aiohttp.ClientSession, spec: dict[str, Any], v: Viewer) -> None:
        try:
            await read(session, spec, v)
        finally:
            if not v.settled:
                v.settled = True
                settled()

    async def read(session: aiohttp.ClientSession, spec: dict[str, Any], v: Viewer) -> None:
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(spec["after"])}
        if spec["token"]:
            headers["Authorization"] = f"Bearer {spec['token']}"
        async with session.get(f"{url}/v1/games/{spec['game']}/events/stream", headers=headers,
                               params={"timeout": 3600}) as r:
            r.raise_for_status()
            v.settled = True
            settled()
            buffer = b""
            async for chunk in r.content.iter_any():
                now = time.time()
                buffer += chunk
                cut = buffer.rfind(b"\n\n")
                if cut < 0:
                    continue
                complete, buffer = buffer[:cut + 2], buffer[cut + 2:]
                ids = ID.findall(complete)  # the regexes run in C: the client keeps up with the server
                if ids:
                    first, last = int(ids[0]), int(ids[-1])
                    if first != v.last + 1 or last - first + 1 != len(ids):
                        v.ordered = False
                    v.last = last
                    v.events += len(ids)
                    latencies.extend(now - parse(stamp.decode()).timestamp() for stamp in STAMP.findall(complete))
                if finals_known.is_set() and v.last >= done[v.game]:
                    return

    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=60, sock_read=None)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        views = [Viewer(s["game"], s["after"]) for s in specs]
        tasks = []
        for k, (spec, v) in enumerate(zip(specs, views, strict=True)):
            tasks.append(asyncio.create_task(watch(session, spec, v)))
            if k % 100 == 99:
                await asyncio.sleep(0.05)  # open them at a steady pace, not one SYN flood
        await asyncio.wait_for(all_open.wait(), 300)
        print("ready", flush=True)
        line = await reader.readline()
        done.update(json.loads(line.decode().removeprefix("stop ")))
        finals_known.set()
        _, pending = await asyncio.wait(tasks, timeout=float(args.get("grace", 15)))
        for t in pending:
            t.cancel()
        failed = sum(1 for t in tasks if t.done() and not t.cancelled() and t.exception() is not None)
    complete = sum(1 for v in views if v.ordered and v.last == done[v.game])
    return {"viewers": len(views), "complete": complete, "incomplete": len(views) - complete,
            "failed_connections": failed, "events_delivered": sum(v.events for v in views),
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
