"""Load client of ``bench/soak.py``, its own process on one asyncio loop (uvloop, aiohttp): moves at a
steady rate on a number of short Tally games, each replaced by a new one when it finishes.

The moves are paced by one schedule (move k is due at start + k / rate) shared by the games; a game
sends its next move when its slot is due and its previous answer has come, so the client never sends
faster than the rate and, if the stack falls behind, the shortfall shows as a lower achieved rate and a
schedule that slipped (``behind_s``). Every ``report`` seconds it prints one JSON line of progress; at
the end one JSON line with the totals. Arguments: one JSON object on stdin's first line (``url``,
``admin``, ``seconds``, ``rate``, ``games``, ``length``, ``players``: [[id, token], ...])."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import aiohttp


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    if not ordered:
        return {}
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 2)  # noqa: E731
    return {"p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(ordered[-1] * 1000, 2)}


async def soak(args: dict[str, Any]) -> dict[str, Any]:
    base, seconds, rate = args["url"], float(args["seconds"]), float(args["rate"])
    players: list[list[str]] = args["players"]
    admin = {"Authorization": f"Bearer {args['admin']}"}
    latencies: list[float] = []
    counts = {"moves": 0, "errors": 0, "games_started": 0, "games_finished": 0}
    next_pair = 0
    loop = asyncio.get_running_loop()
    slot = 0

    async def due() -> None:
        nonlocal slot
        at = started + slot / rate
        slot += 1
        if (delay := at - loop.time()) > 0:
            await asyncio.sleep(delay)

    async def new_game(session: aiohttp.ClientSession, length: int) -> dict[str, Any]:
        nonlocal next_pair
        a, b = players[next_pair % len(players)], players[(next_pair + 1) % len(players)]
        next_pair += 2
        while True:
            async with session.post(f"{base}/v1/games", headers=admin, json={
                "game_type": "tally", "seats": [a[0], b[0]], "options": {"length": length}}) as r:
                body = await r.json()
            if r.status == 201:
                counts["games_started"] += 1
                if "version" not in body or not body.get("to_move"):
                    async with session.get(f"{base}/v1/games/{body['id']}") as g:
                        body = await g.json()
                return {"id": body["id"], "tokens": [a[1], b[1]], "version": body["version"],
                        "seat": body["to_move"][0]}
            counts["errors"] += 1
            await asyncio.sleep(0.5)

    async def play(session: aiohttp.ClientSession, first_length: int) -> None:
        game = await new_game(session, first_length)
        while loop.time() < stop:
            await due()
            t = time.perf_counter()
            try:
                async with session.post(f"{base}/v1/games/{game['id']}/moves",
                                        json={"move": {"type": "add"}, "expected_version": game["version"]},
                                        headers={"Authorization": f"Bearer {game['tokens'][game['seat']]}"}) as r:
                    body = await r.json()
                    status = r.status
            except (TimeoutError, aiohttp.ClientError):
                counts["errors"] += 1
                continue
            if status != 201:
                counts["errors"] += 1
                async with session.get(f"{base}/v1/games/{game['id']}") as g:
                    state = await g.json()
                if state.get("status") != "running":
                    game = await new_game(session, args["length"])
                else:
                    game["version"], game["seat"] = state["version"], state["to_move"][0]
                continue
            latencies.append(time.perf_counter() - t)
            counts["moves"] += 1
            if body["status"] != "running":
                counts["games_finished"] += 1
                game = await new_game(session, args["length"])
            else:
                game["version"], game["seat"] = body["version"], 1 - game["seat"]  # Tally: seats alternate

    async def progress() -> None:
        last = 0
        while loop.time() < stop:
            await asyncio.sleep(float(args.get("report", 10)))
            now = loop.time()
            print(json.dumps({"t": round(now - started, 1), "moves": counts["moves"],
                              "moves_per_s": round((counts["moves"] - last) / float(args.get("report", 10)), 1),
                              "games_finished": counts["games_finished"], "errors": counts["errors"],
                              "behind_s": round(max(0.0, now - (started + slot / rate)), 2)}), flush=True)
            last = counts["moves"]

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        started = loop.time()
        stop = started + seconds
        reporter = asyncio.create_task(progress())
        # the first games are 1/n, 2/n ... n/n of the length: from then on the games finish one by one,
        # evenly spread, instead of all together
        n = int(args["games"])
        await asyncio.gather(*(play(session, max(2, int(args["length"]) * (k + 1) // n)) for k in range(n)))
        elapsed = loop.time() - started
        reporter.cancel()
    return {"final": True, "seconds": round(elapsed, 1), "target_moves_per_s": rate,
            "moves_per_s": round(counts["moves"] / elapsed, 1), **counts,
            "games_finished_per_s": round(counts["games_finished"] / elapsed, 2),
            "behind_s_at_end": round(max(0.0, loop.time() - (started + slot / rate)), 2), **_stats(latencies)}


def main() -> None:
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:  # pragma: no cover
        pass
    args = json.loads(sys.stdin.readline())
    print(json.dumps(asyncio.run(soak(args))), flush=True)


if __name__ == "__main__":
    main()
