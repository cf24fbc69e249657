"""The HTTP server every service runs under (``speltafel serve``): waitress.

waitress reads every request — headers and body — on its asynchronous main loop and hands it to a
worker thread only once it is complete, so a client that announces a body and sends it slowly holds a
socket, not a thread (a thread pool that reads bodies itself is blocked by a few dozen such clients).
Worker threads serve complete requests; each open Server-Sent Events stream holds one for its life.

The server's own error answers (malformed request line, headers or URL over the header limit, a body
over the body limit, a broken Content-Length) are ``application/problem+json`` like the app's."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass
from types import FrameType
from typing import Any

from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

from shared.errors import problem_for_status, problem_type, status_phrase
from shared.web.problems import PROBLEM_MEDIA_TYPE


@dataclass(frozen=True)
class HttpServerSettings:
    """From ``HTTP_*`` environment variables (README, Configuration)."""

    threads: int = 32  # HTTP_THREADS: requests served at once; an open SSE stream holds one
    connection_limit: int = 1000  # HTTP_CONNECTION_LIMIT: open sockets before accepting pauses
    channel_timeout: int = 30  # HTTP_CHANNEL_TIMEOUT: seconds an idle or stalled connection stays open
    max_request_header_size: int = 64 * 1024  # HTTP_MAX_HEADER_BYTES: request line + headers (431 above)
    max_request_body_size: int = 2 * 1024 * 1024  # HTTP_MAX_BODY_BYTES (413 above; the apps take 1 MiB)

    @classmethod
    def from_env(cls, **overrides: Any) -> HttpServerSettings:
        env, d = os.environ, cls()
        values = {
            "threads": int(env.get("HTTP_THREADS") or d.threads),
            "connection_limit": int(env.get("HTTP_CONNECTION_LIMIT") or d.connection_limit),
            "channel_timeout": int(env.get("HTTP_CHANNEL_TIMEOUT") or d.channel_timeout),
            "max_request_header_size": int(env.get("HTTP_MAX_HEADER_BYTES") or d.max_request_header_size),
            "max_request_body_size": int(env.get("HTTP_MAX_BODY_BYTES") or d.max_request_body_size),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


class ProblemErrorTask(ErrorTask):
    """waitress's own error answers as RFC 9457 problem details instead of text/plain."""

    def execute(self) -> None:
        error = self.request.error
        title = status_phrase(int(error.code))
        body = json.dumps(
            {
                "type": problem_type(problem_for_status(int(error.code))),
                "title": title,
                "status": int(error.code),
                "detail": str(error.body),
            }
        ).encode("utf-8")
        self.status = f"{error.code} {title}"
        self.response_headers.append(("Content-Type", PROBLEM_MEDIA_TYPE))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class ProblemChannel(HTTPChannel):
    error_task_class = ProblemErrorTask


def make_server(app: Any, host: str, port: int, settings: HttpServerSettings | None = None) -> Any:
    settings = settings or HttpServerSettings.from_env()
    server = create_server(
        app,
        host=host,
        port=port,
        threads=settings.threads,
        connection_limit=settings.connection_limit,
        channel_timeout=settings.channel_timeout,
        cleanup_interval=max(1, min(30, settings.channel_timeout // 2)),
        max_request_header_size=settings.max_request_header_size,
        max_request_body_size=settings.max_request_body_size,
        asyncore_use_poll=True,  # select() cannot watch more than 1024 sockets
        clear_untrusted_proxy_headers=False,  # X-Forwarded-* reach the app; PROXY_HOPS decides trust
        ident="speltafel",
    )
    server.channel_class = ProblemChannel
    return server


def serve(app: Any, host: str, port: int, settings: HttpServerSettings | None = None) -> None:
    """Serve until SIGTERM or SIGINT (running requests get the dispatcher's shutdown grace)."""
    server = make_server(app, host, port, settings)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    server.run()
