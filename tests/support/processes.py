"""Processes a test starts itself: wait until one answers, and stop its whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable

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


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM the process group, SIGKILL it after ``grace`` seconds; only the group this test started."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
