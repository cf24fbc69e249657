"""What an app holds open and lets go of when it is closed: at the server's shutdown (``shared.web.server.
serve``) or a test's teardown, rather than whenever the garbage collector reaches it. A pool collected on
one of its own worker threads cannot stop that thread (psycopg_pool's "cannot join current thread")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EXTENSION = "speltafel_on_close"


def on_close(app: Any, close: Callable[[], None]) -> None:
    """Run ``close`` when ``app`` (a Flask app) is closed."""
    app.extensions.setdefault(EXTENSION, []).append(close)


def close_app(app: Any) -> None:
    """Run what ``app`` registered with ``on_close``, the latest first; once (a second call does nothing).
    An app that registered nothing (or is not a Flask app: the gateway) has nothing to close."""
    closers: list[Callable[[], None]] = getattr(app, "extensions", {}).pop(EXTENSION, [])
    for close in reversed(closers):
        close()
