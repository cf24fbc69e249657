"""`make run` keeps going when one process dies (issue 14 item 3): the launcher's supervisor restarts a
dead child with growing backoff and says so, leaves the others alone, and stops them all on request.
Real child processes that exit."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from services.supervisor import Supervisor

PY = sys.executable


def wait_for(condition: Callable[[], bool], supervisor: Supervisor, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        supervisor.poll()
        time.sleep(0.05)


def test_a_dead_child_is_restarted_with_growing_backoff_and_the_others_keep_running() -> None:
    said: list[str] = []
    supervisor = Supervisor(
        {"worker-ratings": [PY, "-c", "import sys; sys.exit(3)"],
         "relay": [PY, "-c", "import time; time.sleep(60)"]},
        backoff=(0.2, 0.5, 1.0), stable_after=30, say=said.append)
    supervisor.start()
    try:
        steady = supervisor.pid("relay")
        wait_for(lambda: supervisor.starts("worker-ratings") >= 3, supervisor)
        exits = [line for line in said if "worker-ratings" in line]
        assert exits[:2] == ["speltafel: worker-ratings exited (code 3); restarting in 0.2s",
                             "speltafel: worker-ratings exited (code 3); restarting in 0.5s"]
        assert supervisor.pid("relay") == steady and supervisor.alive("relay")
        assert not any("relay" in line for line in said)
    finally:
        supervisor.stop()
    assert not supervisor.alive("relay") and not supervisor.alive("worker-ratings")


def test_a_child_killed_by_a_signal_is_restarted_and_the_backoff_resets_after_a_stable_run() -> None:
    said: list[str] = []
    supervisor = Supervisor(
        {"worker-games": [PY, "-c", "import os, signal, time; time.sleep(0.4); os.kill(os.getpid(), signal.SIGKILL)"]},
        backoff=(0.1, 5.0), stable_after=0.3, say=said.append)
    supervisor.start()
    try:
        wait_for(lambda: supervisor.starts("worker-games") >= 3, supervisor)
    finally:
        supervisor.stop()
    # every run lasted longer than stable_after, so every restart waits the first backoff step only
    assert said[:2] == ["speltafel: worker-games exited (SIGKILL); restarting in 0.1s"] * 2
