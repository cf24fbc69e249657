"""Processes a test starts itself: wait until one answers, and stop its whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import requests


def wait_until_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float, why_not: Callable[[], str]) -> None:
    """Poll ``url`` until it answers 200; fail with ``why_not()`` if the process dies or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, why_not()
        try:
            if requests.get(url, timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline, f"{url} did not answer in {timeout:.0f} s"
        time.sleep(0.2)


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from ``/proc``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group and its children's groups: `speltafel run` starts each child in a session
    of its own, so a launcher killed alone would leave its workers running on the test's Redis, taking
    the jobs of the tests after it."""
    for child in child_pids(proc.pid):
        with suppress(ProcessLookupError):
            os.killpg(child, signal.SIGKILL)
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(5)


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM the process group, SIGKILL it (and its children's groups) after ``grace`` seconds; only
    the processes this test started."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        kill_group(proc)
