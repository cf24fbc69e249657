"""``speltafel serve`` stops on SIGTERM (what docker, k8s and ``make run`` send) by closing its app
(``shared.web.closing``): the pools' and Redis connections end cleanly before the process does."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.servers import free_port, port_answers

ROOT = Path(__file__).resolve().parents[2]

APP = """
import sys
from flask import Flask
from shared.web.closing import on_close
from shared.web.server import serve

app = Flask("shutdown")
on_close(app, lambda: open(sys.argv[2], "a").write("pool closed\\n"))
on_close(app, lambda: open(sys.argv[2], "a").write("redis closed\\n"))
serve(app, "127.0.0.1", int(sys.argv[1]))
"""


def test_sigterm_closes_the_app_once_latest_registered_first_and_exits_0(tmp_path: Path) -> None:
    port, record = free_port(), tmp_path / "closed.txt"
    proc = subprocess.Popen([sys.executable, "-c", APP, str(port), str(record)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while not port_answers(port):
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        assert not record.exists()  # nothing closed while it serves
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert record.read_text().splitlines() == ["redis closed", "pool closed"]
