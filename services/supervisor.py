"""Keeps the child processes of ``make run`` alive: a child that exits is started again after a backoff
that grows with each quick death and resets once the child has run stably; only ``stop()`` ends them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BACKOFF = (1.0, 2.0, 5.0, 10.0, 30.0)


def _describe(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return signal.Signals(-returncode).name
        return f"signal {-returncode}"
    return f"code {returncode}"


def _seconds(value: float) -> str:
    return f"{value:g}s"


@dataclass
class _Child:
    name: str
    argv: list[str]
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    starts: int = 0


class Supervisor:
    """Starts every named command in its own session and restarts whichever exits."""

    def __init__(
        self,
        commands: Mapping[str, Sequence[str]],
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        backoff: Sequence[float] = DEFAULT_BACKOFF,
        stable_after: float = 60.0,
        say: Callable[[str], None] = lambda line: print(line, flush=True),
    ) -> None:
        if not backoff:
            raise ValueError("backoff needs at least one delay")
        self._children = {name: _Child(name, list(argv)) for name, argv in commands.items()}
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._backoff = tuple(backoff)
        self._stable_after = stable_after
        self._say = say

    def start(self) -> None:
        for child in self._children.values():
            self._spawn(child)

    def _spawn(self, child: _Child) -> None:
        child.proc = subprocess.Popen(child.argv, env=self._env, cwd=self._cwd, start_new_session=True)
        child.started_at = time.monotonic()
        child.restart_at = None
        child.starts += 1

    def poll(self) -> None:
        """Notice dead children and start those whose backoff has passed; call this regularly."""
        now = time.monotonic()
        for child in self._children.values():
            if child.proc is not None:
                code = child.proc.poll()
                if code is None:
                    continue
                child.proc = None
                if now - child.started_at >= self._stable_after:
                    child.quick_deaths = 0
                delay = self._backoff[min(child.quick_deaths, len(self._backoff) - 1)]
                child.quick_deaths += 1
                child.restart_at = now + delay
                self._say(f"speltafel: {child.name} exited ({_describe(code)}); restarting in {_seconds(delay)}")
            elif child.restart_at is not None and now >= child.restart_at:
                self._spawn(child)

    def pid(self, name: str) -> int | None:
        proc = self._children[name].proc
        return proc.pid if proc is not None else None

    def alive(self, name: str) -> bool:
        proc = self._children[name].proc
        return proc is not None and proc.poll() is None

    def starts(self, name: str) -> int:
        return self._children[name].starts

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM every child's process group, SIGKILL what is left after ``timeout``."""
        procs = [c.proc for c in self._children.values() if c.proc is not None]
        for child in self._children.values():
            child.restart_at = None
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
