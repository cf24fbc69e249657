"""Run ``python -m services.cli`` as a person does: stderr on a terminal (where progress bars show)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_watched(args: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``python -m services.cli ARGS`` with stderr on a 100-column terminal."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    done = subprocess.run([sys.executable, "-m", "services.cli", *args], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=follower, timeout=timeout, env=os.environ | (env or {}))
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return done.returncode, done.stdout.decode(), b"".join(chunks).decode(errors="replace")
