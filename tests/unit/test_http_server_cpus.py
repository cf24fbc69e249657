"""``HTTP_CPUS`` keeps a serving process on the CPUs it names (shared/web/server.py): every thread of it,
waitress's workers included, and a list that names a CPU the process may not use stops the command with
a message that names the setting, before it serves anything."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from shared.web.server import HttpServerSettings, parse_cpus
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = os.sched_getaffinity(0)

APP = """
import sys
from shared.web.server import serve

def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]

serve(app, "127.0.0.1", int(sys.argv[1]))
"""


def test_the_list_takes_numbers_and_ranges_of_allowed_cpus() -> None:
    assert parse_cpus("0", {0, 1}) == {0}
    assert parse_cpus(" 1 ", {0, 1}) == {1}
    assert parse_cpus("0,2", {0, 1, 2, 3}) == {0, 2}
    assert parse_cpus("0-1,3", {0, 1, 2, 3}) == {0, 1, 3}


@pytest.mark.parametrize("text, why", [
    ("x", "expected CPU numbers"),
    ("0,", "expected CPU numbers"),
    ("1-0", "is not a CPU or a range"),
    ("2", "CPU 2 is not one this process may run on (allowed: 0,1)"),
    ("0-3", "CPU 2 is not one this process may run on"),
])
def test_a_list_naming_no_usable_cpu_is_refused_by_name(text: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_cpus(text, {0, 1})
    assert str(refused.value).startswith(f"HTTP_CPUS={text!r}: ") and why in str(refused.value)


def test_a_services_own_setting_wins_over_the_shared_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_CPUS", "0")
    monkeypatch.setenv("HTTP_CPUS_GAMES", "1")
    monkeypatch.setenv("HTTP_CPUS_RATINGS", "")  # set but empty: this one runs anywhere
    assert HttpServerSettings.from_env("games").cpus == "1"
    assert HttpServerSettings.from_env("ratings").cpus == ""
    assert HttpServerSettings.from_env("questions").cpus == "0"
    assert HttpServerSettings.from_env().cpus == "0"
    monkeypatch.delenv("HTTP_CPUS")
    assert HttpServerSettings.from_env("questions").cpus == ""


def _serve_and_read_threads(env: dict[str, str]) -> list[set[int]]:
    """Start the production server on a bare app, wait for an answer, return each thread's CPUs."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", APP, str(port)], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert requests.get(f"http://127.0.0.1:{port}/", timeout=2).text == "ok"
                break
            except requests.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        return [os.sched_getaffinity(int(tid)) for tid in os.listdir(f"/proc/{proc.pid}/task")]
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.skipif(len(ALLOWED) < 2, reason="with one CPU allowed, a kept process looks like a free one")
def test_every_thread_of_the_server_stays_on_the_named_cpu() -> None:
    cpu = max(ALLOWED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HTTP_CPUS")}
    kept = _serve_and_read_threads(env | {"HTTP_CPUS": str(cpu), "HTTP_THREADS": "4"})
    assert len(kept) >= 5  # the main loop and waitress's four workers, started after the process was kept
    assert all(cpus == {cpu} for cpus in kept)
    free = _serve_and_read_threads(env | {"HTTP_THREADS": "4"})
    assert all(cpus == ALLOWED for cpus in free)


@pytest.mark.parametrize("command", [["serve", "games"], ["gateway"]])
def test_the_command_stops_on_a_cpu_it_may_not_use(command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HTTP_CPUS")}
    env |= {"HTTP_CPUS": "0", f"HTTP_CPUS_{command[-1].upper()}": str(max(ALLOWED) + 1),
            # never reached: the command stops before it builds its app
            "DATABASE_URL": "postgresql://127.0.0.1:9/none", "REDIS_URL": "redis://127.0.0.1:9/0"}
    done = subprocess.run([sys.executable, "-m", "services.cli", *command, "--port", str(free_port())],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"speltafel {command[0]}: HTTP_CPUS={str(max(ALLOWED) + 1)!r}: CPU {max(ALLOWED) + 1} is not one " \
           "this process may run on" in done.stderr
