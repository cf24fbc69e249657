"""`make run`'s launcher learns of Ctrl-C and SIGTERM from its signal handlers through a ``StopRequest``:
the handler only records the request (no lock it could already hold), and the launcher's waits end
on it."""

from __future__ import annotations

import os
import signal
import threading
import time

from services.launcher import StopRequest


def test_a_signal_during_a_wait_ends_the_wait() -> None:
    stop = StopRequest()
    previous = signal.signal(signal.SIGUSR1, lambda *_: stop.set())
    try:
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        started = time.monotonic()
        assert stop.wait(30) is True
        assert time.monotonic() - started < 10
        assert stop.is_set()
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_a_wait_without_a_request_times_out_unset() -> None:
    stop = StopRequest()
    assert stop.wait(0.1) is False
    assert not stop.is_set()
