"""Serves a WSGI factory (``module:function``) under the production HTTP server, ``speltafel serve``'s
waitress with its default settings (``shared.web.server``), so a benchmark's bare apps run under the
same server as the services do: ``python -m bench.support.serve bench.support.reference_app:app 8123``."""

from __future__ import annotations

import importlib
import logging
import sys

from shared.web.server import HttpServerSettings, keep_on_cpus, serve


def main(target: str, port: int) -> None:
    # "Task queue depth is N" on every request that waits for a thread: the load the benchmark makes
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    keep_on_cpus(HttpServerSettings.from_env().cpus)  # as `speltafel serve`: before the app starts its pool's threads
    module, _, factory = target.partition(":")
    app = getattr(importlib.import_module(module), factory)()
    serve(app, "127.0.0.1", port)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
