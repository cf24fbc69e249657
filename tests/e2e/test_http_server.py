"""The HTTP server every service runs under (`speltafel serve`, the command `make run`, docker-compose and
k8s use; issue 14 items 6 and 7): slow clients do not starve normal traffic, and the server's own error
answers (malformed request, headers or URL too large, body too large) are problem+json too."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e.conftest import ADMIN
from tests.support.processes import stop_group, wait_until_healthy

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SLOW_CLIENTS = 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served_games(database_url: str, redis_url: str, tmp_path: Path) -> Iterator[str]:
    """`speltafel serve games` as its own process, exactly as `make run` starts it."""
    port = free_port()
    env = dict(
        os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, ADMIN_TOKEN=ADMIN, GAMES_PORT=str(port),
        SPELTAFEL_HOST="127.0.0.1", LOG_LEVEL="WARNING", RATE_LIMITS="off",
    )
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "games"], env=env, cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url + "/healthz", proc, 60, lambda: (tmp_path / "serve.log").read_text()[-3000:])
        yield url
    finally:
        stop_group(proc)
        log.close()


def raw_exchange(url: str, payload: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = url.removeprefix("http://").split(":")
    data = b""
    with socket.create_connection((host, int(port)), timeout=10) as s:
        # send in pieces and stop once the server answers (it refuses an oversized request early and
        # closes; writing on would make the kernel reset the connection and drop the answer)
        for start in range(0, len(payload), 4096):
            if select.select([s], [], [], 0)[0]:
                break
            try:
                s.sendall(payload[start : start + 4096])
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.001)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return status, headers, body


def test_200_slow_body_clients_do_not_block_health_checks_or_registrations(served_games: str) -> None:
    host, port = served_games.removeprefix("http://").split(":")
    slow: list[socket.socket] = []
    try:
        for _ in range(SLOW_CLIENTS):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{\"dis")
            slow.append(s)
        time.sleep(0.5)  # let the server take every one of them in
        for _ in range(5):
            assert requests.get(served_games + "/healthz", timeout=1).status_code == 200
        created = requests.post(served_games + "/v1/players", json={"display_name": "Fleur"}, timeout=5)
        assert created.status_code == 201, created.text
        # the slow clients are still connected and waiting; none of them got an answer yet
        for s in slow[:5]:
            s.setblocking(False)
            with pytest.raises(BlockingIOError):
                s.recv(1)
    finally:
        for s in slow:
            s.close()


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (b"NOT A REQUEST LINE\r\n\r\n", 400),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n", 431),
        (b"GET /v1/games?q=" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 431),  # URL counts as header
        (b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n",
         413),
        (b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400),
    ],
    ids=["bad-request-line", "header-too-large", "url-too-long", "body-too-large", "two-content-lengths"],
)
def test_the_servers_own_errors_are_problem_json(served_games: str, payload: bytes, status: int) -> None:
    got, headers, body = raw_exchange(served_games, payload)
    assert got == status, body[:300]
    assert headers["content-type"].startswith("application/problem+json"), (headers, body[:300])
    problem = json.loads(body)
    assert problem["status"] == status and problem["title"]


def test_a_live_event_stream_flows_through_the_server_while_other_requests_are_served(served_games: str) -> None:
    player = requests.post(served_games + "/v1/players", json={"display_name": "Joop"}, timeout=5).json()
    auth = {"Authorization": f"Bearer {player['token']}"}
    kinds = requests.get(served_games + "/v1/game-types", timeout=5).json()
    kind = next(k for k in kinds if k["player_counts"])
    created = requests.post(served_games + "/v1/games", headers=auth, timeout=10,
                            json={"game_type": kind["id"], "num_players": max(kind["player_counts"])})
    assert created.status_code == 201, created.text
    game = created.json()["id"]
    with requests.get(f"{served_games}/v1/games/{game}/events/stream?timeout=30", headers=auth, stream=True,
                      timeout=5) as stream:
        assert stream.status_code == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = stream.iter_lines(decode_unicode=True)
        seen: list[str] = []
        for line in lines:
            seen.append(line)
            if line.startswith("id: 1"):
                break
            assert len(seen) < 20, seen
        # the stream is still open; the server goes on serving others
        assert requests.get(served_games + "/healthz", timeout=1).status_code == 200
        joined = requests.post(f"{served_games}/v1/games/{game}/join", headers=auth, json={}, timeout=5)
        assert joined.status_code == 200, joined.text
        for line in lines:  # the join arrives on the open stream
            if line.startswith("id: 2"):
                break


def nginx_binary() -> str | None:
    return os.environ.get("NGINX") or shutil.which("nginx")


@pytest.fixture
def proxied_games(served_games: str, tmp_path: Path) -> Iterator[str]:
    """deploy/nginx.conf (the docker-compose proxy) in front of the served games service."""
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (set NGINX=/path/to/nginx)")
    games_port = served_games.rsplit(":", 1)[1]
    port = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = conf.replace("server games:8001", f"server 127.0.0.1:{games_port}")
    for name, service_port in (("matchmaking", 8002), ("questions", 8003), ("ratings", 8004), ("streams", 8005)):
        conf = conf.replace(f"server {name}:{service_port}", f"server 127.0.0.1:{free_port()}")
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = " ".join(f"{kind}_temp_path {tmp_path / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = conf.replace("http {", "http {\n  " + temp + f"\n  access_log off;\n  error_log {tmp_path / 'error.log'};", 1)
    conf = f"daemon off;\nmaster_process off;\npid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\n" + conf
    (tmp_path / "logs").mkdir()
    (tmp_path / "nginx.conf").write_text(conf)
    proc = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    url = f"http://127.0.0.1:{port}/games"
    try:
        wait_until_healthy(url + "/healthz", proc, 20,
                           lambda: proc.stderr.read().decode() if proc.stderr else "")
        yield url
    finally:
        stop_group(proc)


def test_the_compose_proxy_survives_200_slow_body_clients_and_answers_its_own_errors_as_problem_json(
    proxied_games: str,
) -> None:
    base = proxied_games.removesuffix("/games")
    host, port = base.removeprefix("http://").split(":")
    slow: list[socket.socket] = []
    try:
        for _ in range(SLOW_CLIENTS):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(b"POST /games/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{\"dis")
            slow.append(s)
        time.sleep(0.5)
        for _ in range(5):
            assert requests.get(proxied_games + "/healthz", timeout=1).status_code == 200
        created = requests.post(proxied_games + "/v1/players", json={"display_name": "Proxy"}, timeout=5)
        assert created.status_code == 201, created.text
    finally:
        for s in slow:
            s.close()
    big = requests.post(proxied_games + "/v1/players", data=b"x" * (3 << 20), timeout=10,
                        headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.headers["Content-Type"].startswith("application/problem+json")
    assert big.json()["status"] == 413
    # matchmaking is not running behind this proxy: nginx's own 502, with its status in the body too
    down = requests.get(proxied_games.removesuffix("/games") + "/matchmaking/healthz", timeout=10)
    assert (down.status_code, down.headers["Content-Type"]) == (502, "application/problem+json"), down.text
    assert down.json()["status"] == 502 and down.headers["Retry-After"] == "5"


@pytest.mark.parametrize(
    ("payload", "status", "title"),
    [
        (b"NOT A REQUEST LINE\r\n\r\n", 400, "Bad Request"),
        (b"GET /games/v1/games?q=" + b"a" * 40_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "URI Too Long"),
        (b"GET /games/healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n", 431,
         "Request Header Fields Too Large"),
    ],
    ids=["bad-request-line", "url-too-long", "header-too-large"],
)
def test_the_compose_proxys_own_refusals_are_problem_json_with_their_status(
    proxied_games: str, payload: bytes, status: int, title: str,
) -> None:
    """nginx's own 400/414/494 answers: the status line and the body's `status` agree, as problem+json."""
    got, headers, body = raw_exchange(proxied_games.removesuffix("/games"), payload)
    assert (got, headers.get("content-type", "")) == (status, "application/problem+json"), body[:300]
    problem = json.loads(body)
    assert (problem["status"], problem["title"]) == (status, title), problem
