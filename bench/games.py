"""Game service costs: POST-move throughput and latency under 1, 8 and 32 concurrent clients, replay
time for games of 100, 1,000 and 10,000 events, move latency at version 10 versus 5,000, and every
registered engine's self-play rate and rebuild time."""

from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from bench.common import bench_backends, latency_stats, server_kind, server_label, start_server, wait_until_up
from bench.support.tally import Tally
from services.games.domain.play import replay
from services.games.engines.base import GameConfig
from services.games.engines.registry import Registry, default_registry
from services.games.service_layer.selfplay import SelfPlayReport, play_one


def _player(base: str, name: str) -> tuple[str, requests.Session]:
    body = requests.post(base + "/v1/players", json={"display_name": name}, timeout=10).json()
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {body['token']}"
    return body["id"], session


def _game(base: str, admin: requests.Session, seats: list[str], length: int) -> str:
    r = admin.post(
        base + "/v1/games",
        json={"game_type": "tally", "seats": seats, "options": {"length": length}},
        timeout=10,
    )
    return str(r.json()["id"])


def _play(base: str, game_id: str, sessions: list[requests.Session], moves: int) -> list[float]:
    samples = []
    version = requests.get(f"{base}/v1/games/{game_id}", timeout=10).json()["version"]
    for k in range(moves):
        t = time.perf_counter()
        r = sessions[k % 2].post(
            f"{base}/v1/games/{game_id}/moves",
            json={"move": {"type": "add"}, "expected_version": version},
            timeout=30,
        )
        samples.append(time.perf_counter() - t)
        if r.status_code != 201:
            raise RuntimeError(f"move {k} of {game_id}: {r.status_code} {r.text[:300]}")
        version = r.json()["version"]
    return samples


def http_benchmarks(base: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    admin = requests.Session()
    admin.headers["Authorization"] = "Bearer bench"
    for clients in (1, 8, 32):
        pairs = [(_player(base, "a"), _player(base, "b")) for _ in range(clients)]
        games = [_game(base, admin, [a[0], b[0]], 10_000) for a, b in pairs]
        per_client = max(20, 400 // clients)
        started = time.perf_counter()
        jobs = [(games[i], [pairs[i][0][1], pairs[i][1][1]], per_client) for i in range(clients)]
        with ThreadPoolExecutor(clients) as ex:
            results = list(ex.map(lambda job: _play(base, *job), jobs))
        elapsed = time.perf_counter() - started
        samples = [s for r in results for s in r]
        out[f"moves_{clients}_clients"] = {
            "moves": len(samples),
            "moves_per_s": round(len(samples) / elapsed, 1),
            **latency_stats(samples),
        }
    (a, sa), (b, sb) = _player(base, "a"), _player(base, "b")
    long_game = _game(base, admin, [a, b], 10_000)
    early = _play(base, long_game, [sa, sb], 30)
    _play(base, long_game, [sa, sb], 4_900)
    late = _play(base, long_game, [sa, sb], 30)
    out["move_latency_by_version"] = {
        "around_v10": latency_stats(early[:20]),
        "around_v5000": latency_stats(late),
    }
    return out


def replay_benchmarks() -> dict[str, Any]:
    engine = Tally()
    out = {}
    for events in (100, 1_000, 10_000):
        config = GameConfig(2, {"length": int(events / 1.1)})
        log = play_one(engine, config, 1, SelfPlayReport(), check_every_event=False)
        started = time.perf_counter()
        replay(engine, config, log)
        out[f"replay_{len(log)}_events_ms"] = round((time.perf_counter() - started) * 1000, 2)
    return out


def engine_benchmarks(registry: Registry) -> dict[str, Any]:
    """Self-play moves per second (no invariant checks) and the rebuild time of the longest game."""
    out: dict[str, Any] = {}
    for engine in registry.all():
        provider = engine.selfplay_provider()
        for config in engine.variants():
            defaults = engine.normalize_options(config.num_players, {})
            changed = ",".join(f"{k}={v}" for k, v in sorted(config.options.items()) if defaults.get(k) != v)
            label = f"{engine.game_type}/{config.num_players}" + (f"/{changed}" if changed else "")
            report = SelfPlayReport()
            started = time.perf_counter()
            logs = [
                play_one(engine, config, k, report, check_every_event=False, provider=provider)
                for k in range(20)
            ]
            elapsed = time.perf_counter() - started
            longest = max(logs, key=len)
            t = time.perf_counter()
            replay(engine, config, longest)
            out[label] = {
                "selfplay_moves_per_s": round(report.moves / elapsed, 1),
                "rebuild_ms": round((time.perf_counter() - t) * 1000, 2),
                "rebuild_events": len(longest),
                "errors": report.errors,
            }
    return out


def main() -> dict[str, Any]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    out: dict[str, Any] = {"replay": replay_benchmarks(), "engines": engine_benchmarks(default_registry())}
    with bench_backends() as (db_url, redis_url, _):
        # a separate server process (BENCH_SERVER, default the production server: bench/common.py)
        env = dict(  # the rate limits (120 moves a minute per player) would end a game at move 240
            os.environ, DATABASE_URL=db_url, REDIS_URL=redis_url, ADMIN_TOKEN="bench", LOG_LEVEL="WARNING",
            RATE_LIMITS="off",
        )
        kind = server_kind()
        server, base = start_server("bench.support.tally_app:app", env, kind)
        try:
            wait_until_up(base + "/readyz")
            out["http"] = http_benchmarks(base)
            out["http"]["server"] = f"{server_label(kind)}; clients in another process, same 2 cores"
        finally:
            server.terminate()
            server.wait(10)
    return out


