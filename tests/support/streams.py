"""The stream gateway (services/games/entrypoints/streams.py) on a free port in a background thread, with
its own event loop, for tests and benchmarks in one process with the games app."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web

from services.games.entrypoints.streams import StreamRunner


class StreamServer:
    def __init__(self, app: web.Application) -> None:
        self.loop = asyncio.new_event_loop()
        self.runner = StreamRunner(app)
        started = threading.Event()
        self.port = 0

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.runner.setup())
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            self.loop.run_until_complete(site.start())
            server: Any = site._server  # the bound port of port 0
            self.port = server.sockets[0].getsockname()[1]
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        if not started.wait(30):
            raise RuntimeError("the stream gateway did not start")
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
