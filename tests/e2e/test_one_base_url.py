"""`make run` as a user meets it (issue 15 items 7 and 8): the real launcher (`speltafel run`) with every
service, worker, relay, ticker and the gateway as its own process. One base URL serves the four APIs
under `/games`, `/matchmaking`, `/questions`, `/ratings` (docker-compose's prefixes), one combined OpenAPI
document lists them all, and a Python client generated from that document plays a whole game through
it. The terminal shows a short banner once everything answers, request logs go to files, and Ctrl-C
stops it all without a traceback."""

from __future__ import annotations

import importlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
import requests
from openapi_spec_validator import validate

from services.cli import SERVICES
from tests.conftest import redis_db
from tests.e2e.conftest import ADMIN
from tests.support.infra import redis_test_url
from tests.support.platform import Platform, free_port, platform_for, running_platform
from tests.support.processes import child_pids, kill_group

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
SEED = "5e" * 32  # admin-fixed server seed: the same deal every run


@pytest.fixture(scope="module")
def platform(test_database, backends, tmp_path_factory) -> Iterator[Platform]:  # type: ignore[no-untyped-def]
    with platform_for(test_database, backends, tmp_path_factory.mktemp("make-run"), ADMIN, redis_db()) as found:
        yield found


def test_banner_comes_once_everything_answers_and_names_the_one_base_url(platform: Platform) -> None:
    text = platform.terminal()
    assert f"one base URL   {platform.base}/" in text and f"{platform.base}/openapi.json" in text
    for name in SERVICES:
        assert f"{platform.base}/{name}/" in text
    # printed once the services answer: right after the banner every one of them does
    for name in SERVICES:
        assert requests.get(f"{platform.base}/{name}/healthz", timeout=5).status_code == 200
    assert text.count("\n") < 30, text


def test_combined_openapi_lists_every_path_of_every_service_under_its_prefix(platform: Platform) -> None:
    combined = requests.get(platform.base + "/openapi.json", timeout=30).json()
    validate(combined)  # a valid OpenAPI 3 document, every $ref resolving
    assert combined["servers"] == [{"url": platform.base}]
    for name in SERVICES:
        own = requests.get(platform.direct[name] + "/openapi.json", timeout=30).json()
        assert own["paths"], name
        for path, item in own["paths"].items():
            assert f"/{name}{path}" in combined["paths"], (name, path)
            assert set(combined["paths"][f"/{name}{path}"]) == set(item)
    assert len(combined["paths"]) == sum(
        len(requests.get(platform.direct[n] + "/openapi.json", timeout=30).json()["paths"]) for n in SERVICES)
    # the problem schema is there once, each service's own schemas under its own name
    assert "Problem" in combined["components"]["schemas"]
    assert {"GamesJoinBody", "MatchmakingJoinBody"} <= set(combined["components"]["schemas"])


def test_a_request_through_the_base_url_reaches_each_service(platform: Platform) -> None:
    base = platform.base
    player = requests.post(f"{base}/games/v1/players", json={"display_name": "gateway"}, timeout=10)
    assert player.status_code == 201 and player.json()["token"]
    auth = {"Authorization": f"Bearer {player.json()['token']}"}
    assert len(requests.get(f"{base}/questions/v1/cities", timeout=10).json()) == 82
    pools = requests.get(f"{base}/ratings/v1/pools", timeout=10).json()["items"]
    assert any(p["pool"].startswith("roparun") for p in pools)
    ticket = requests.post(f"{base}/matchmaking/v1/tickets", json={"game_type": "klapper", "player_counts": [4]},
                           headers=auth, timeout=10)
    assert ticket.status_code in {200, 201, 202}, ticket.text
    time.sleep(0.5)  # matchmaking asked the (moved) ratings service; had it not answered, a warning says so
    assert "ratings service unavailable" not in platform.terminal(), platform.terminal()[-3000:]
    for name in SERVICES:  # each prefix is that service: its own document, "try it out" aimed at the prefix
        own = requests.get(f"{base}/{name}/openapi.json", timeout=10).json()
        assert own["info"] == requests.get(platform.direct[name] + "/openapi.json", timeout=10).json()["info"]
        assert own["servers"] == [{"url": f"{base}/{name}"}]
        assert f"/{name}/openapi.json" in requests.get(f"{base}/{name}/docs", timeout=10).text
    assert requests.get(f"{base}/docs/assets/swagger-ui-bundle.js", timeout=10).status_code == 200
    unknown = requests.get(f"{base}/nosuchservice/v1/x", timeout=10)
    assert unknown.status_code == 404 and unknown.headers["Content-Type"] == "application/problem+json"


def children_env(pid: int) -> list[dict[str, str]]:
    found = []
    for child in child_pids(pid):
        with suppress(OSError):
            raw = Path(f"/proc/{child}/environ").read_bytes()
            found.append(dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item))
    return found


def test_moved_ports_reach_every_child_process(platform: Platform) -> None:
    """GAMES_URL ... RATINGS_URL follow GAMES_PORT ... RATINGS_PORT (here all moved to free ports)."""
    envs = children_env(platform.proc.pid)
    assert len(envs) == 14, len(envs)  # 4 services, 5 workers (bots too), relay, 2 tickers, streams, gateway
    for env in envs:
        for name, url in platform.direct.items():
            assert env[f"{name.upper()}_URL"] == url, (name, env.get(f"{name.upper()}_URL"))
    assert "unavailable" not in platform.terminal()


def admin_game(base: str, seats: list[str]) -> str:
    r = requests.post(f"{base}/games/v1/games", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10,
                      json={"game_type": "roparun", "seats": seats, "seed": SEED, "options": {
                          "section_length": 8, "sections": 3, "seven_max_pawns": 2}})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_live_stream_through_the_base_url_delivers_an_event_as_it_happens(platform: Platform) -> None:
    base = platform.base
    players = [requests.post(f"{base}/games/v1/players", json={"display_name": f"s{k}"}, timeout=10).json()
               for k in range(2)]
    game_id = admin_game(base, [p["id"] for p in players])
    game = requests.get(f"{base}/games/v1/games/{game_id}", timeout=10).json()
    mover = players[game["to_move"][0]]
    auth = {"Authorization": f"Bearer {mover['token']}"}
    legal = requests.get(f"{base}/games/v1/games/{game_id}/legal-moves", headers=auth, timeout=10).json()

    def move() -> None:
        time.sleep(1.0)
        requests.post(f"{base}/games/v1/games/{game_id}/moves", headers=auth, timeout=10,
                      json={"move": legal["moves"][0], "expected_version": legal["version"]})

    mover_thread = threading.Thread(target=move)
    started = time.monotonic()
    with requests.get(f"{base}/games/v1/games/{game_id}/events/stream", timeout=60, stream=True,
                      params={"timeout": 40, "after": game["version"]}) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        mover_thread.start()
        seen = None
        for line in stream.iter_lines(decode_unicode=True):
            if line.startswith("event: MoveMade"):
                seen = time.monotonic() - started
                break
    mover_thread.join(15)
    # the event arrived while the stream was still open (long before its 40 s end), not held back
    assert seen is not None and seen < 30, seen


def generated_client(base: str, where: Path) -> Any:
    spec = where / "openapi.json"
    spec.write_text(requests.get(base + "/openapi.json", timeout=30).text)
    done = subprocess.run([str(GENERATOR), "generate", "--path", str(spec), "--meta", "none",
                           "--output-path", str(where / "speltafel_client")],
                          capture_output=True, text=True, timeout=180, cwd=where)
    assert (where / "speltafel_client" / "client.py").exists(), done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        return importlib.import_module("speltafel_client")
    finally:
        sys.path.remove(str(where))


def test_a_client_generated_from_the_combined_document_plays_a_whole_game(platform: Platform, tmp_path: Path) -> None:
    """What README "One base URL" shows: openapi-python-client over /openapi.json, then play."""
    sc = generated_client(platform.base, tmp_path)
    api = importlib.import_module("speltafel_client.api.games_players.post_games_v1_players")
    create = importlib.import_module("speltafel_client.api.games_games.post_games_v1_games")
    get_game = importlib.import_module("speltafel_client.api.games_games.get_games_v1_games_game_id")
    legal_moves = importlib.import_module("speltafel_client.api.games_games.get_games_v1_games_game_id_legal_moves")
    post_move = importlib.import_module("speltafel_client.api.games_games.post_games_v1_games_game_id_moves")
    models = importlib.import_module("speltafel_client.models")

    anonymous = sc.Client(base_url=platform.base)
    seats = [api.sync(client=anonymous, body=models.GamesPlayerCreate(display_name=f"gen-{k}")) for k in range(2)]
    assert all(isinstance(s, models.GamesPlayerCreated) for s in seats), seats
    clients = [sc.AuthenticatedClient(base_url=platform.base, token=s.token) for s in seats]
    admin = sc.AuthenticatedClient(base_url=platform.base, token=ADMIN)
    options = models.GamesGameCreateOptions.from_dict({"section_length": 8, "sections": 3, "seven_max_pawns": 2})
    game = create.sync(client=admin, body=models.GamesGameCreate(
        game_type="roparun", seats=[s.id for s in seats], seed=SEED, options=options))
    assert isinstance(game, models.GamesGame), game
    chooser = random.Random(7)
    for _ in range(3000):
        state = get_game.sync(client=admin, game_id=game.id)
        assert isinstance(state, models.GamesGame), state
        if state.status != "running":
            break
        seat = chooser.choice(state.to_move)
        legal = legal_moves.sync(client=clients[seat], game_id=game.id)
        assert isinstance(legal, models.GamesLegalMoves) and legal.moves, legal
        move = chooser.choice(legal.moves)
        answer = post_move.sync_detailed(client=clients[seat], game_id=game.id, body=models.GamesMoveBody(
            move=models.GamesMoveBodyMove.from_dict(move.to_dict()), expected_version=legal.version))
        assert answer.status_code == 201, answer.content
    final = get_game.sync(client=admin, game_id=game.id)
    assert final.status == "finished", "the game reached its end"
    assert sorted(final.outcome.to_dict()["ranks"])[0] == 1


def test_request_logs_go_to_files_and_the_backends_are_recorded_while_running(platform: Platform) -> None:
    requests.post(f"{platform.base}/games/v1/players", json={"display_name": "logged"}, timeout=10)
    time.sleep(0.5)
    games_log = (platform.data / "logs" / "games.log").read_text()
    assert '"path": "/v1/players"' in games_log and '"message": "request"' in games_log
    assert '"message": "request"' not in platform.terminal()
    recorded = json.loads((platform.data / "backends.json").read_text())
    assert recorded["pid"] == platform.proc.pid
    assert (recorded["database_url"], recorded["redis_url"]) == (platform.database_url, platform.redis_url)


def test_ctrl_c_stops_everything_without_a_traceback(platform: Platform) -> None:
    assert platform.interrupt() == 0
    text = platform.terminal()
    # after a whole game, a league of requests and the jobs they queued: still only the banner and the stop
    assert text.count("\n") < 30, text[-4000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-4000:]
    assert text.rstrip().endswith("speltafel: stopped"), text[-2000:]
    assert not (platform.data / "backends.json").exists()
    for port in [int(url.rsplit(":", 1)[1]) for url in platform.direct.values()]:
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            pass


PHASES = {  # moments of the start-up, each recognised by what the launcher has done so far
    "backends found": lambda data, out: (data / "backends.json").exists(),
    "migrated": lambda data, out: "migrations applied" in out,
    "children starting": lambda data, out: (data / "logs").exists() and any((data / "logs").iterdir()),
}


@pytest.mark.parametrize("phase", list(PHASES))
def test_ctrl_c_while_starting_up_prints_no_traceback(test_database, backends, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      phase: str) -> None:
    """Whatever `make run` is doing (finding backends, migrating, starting children)."""
    ports = {name: free_port() for name in SERVICES}
    env = {k: v for k, v in os.environ.items() if not k.endswith("_URL") and k != "LOG_DIR"}
    env |= {f"{name.upper()}_PORT": str(port) for name, port in ports.items()}
    env |= dict(DATABASE_URL=test_database.url, REDIS_URL=redis_test_url(backends.redis_url, redis_db()),
                ADMIN_TOKEN=ADMIN, SPELTAFEL_PORT=str(free_port()), SPELTAFEL_DATA_DIR=str(tmp_path / "data"),
                PYTHONUNBUFFERED="1", STREAMS_PORT=str(free_port()))
    output = tmp_path / "terminal.txt"
    with output.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "services.cli", "run"], env=env, cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not PHASES[phase](tmp_path / "data", output.read_text(errors="replace")):
            assert proc.poll() is None and time.monotonic() < deadline, output.read_text()
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            kill_group(proc)
    text = output.read_text(errors="replace")
    assert "Traceback" not in text, text
    assert proc.returncode in {0, 130}, text
    assert text.rstrip().endswith("speltafel: stopped"), text
    time.sleep(0.5)
    for port in ports.values():
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            pass


def test_clients_at_two_addresses_through_the_base_url_are_rate_limited_apart(  # type: ignore[no-untyped-def]
    test_database, backends, tmp_path: Path
) -> None:
    """`make run` gives the gateway and the services one secret per run: the services take the client address
    from the gateway's X-Forwarded-For (so two clients behind the base URL do not share a bucket), and from
    no one else's (a forged header straight to a service's own port changes nothing)."""
    from tests.e2e.test_front_door import session_from

    with running_platform(test_database.url, redis_test_url(backends.redis_url, redis_db()), ADMIN, tmp_path,
                          RATE_LIMITS="on", RATE_LIMIT_REGISTER="2/minute") as limited:
        anna, bram, carla = (session_from(f"127.0.0.{n}") for n in (2, 3, 4))

        def register(client: requests.Session, base: str, name: str, **headers: str) -> int:
            return client.post(f"{base}/v1/players", json={"display_name": name}, headers=headers,
                               timeout=30).status_code

        through = limited.base + "/games"
        assert [register(anna, through, f"anna{n}") for n in range(3)] == [201, 201, 429]
        assert register(bram, through, "bram") == 201
        direct = limited.direct["games"]
        assert [register(carla, direct, f"carla{n}", **{"X-Forwarded-For": f"10.1.1.{n}"}) for n in range(3)] \
            == [201, 201, 429]
