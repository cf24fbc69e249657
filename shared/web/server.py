"""The HTTP server every service runs under (``speltafel serve``): waitress.

waitress reads every request — headers and body — on its asynchronous main loop and hands it to a
worker thread only once it is complete, so a client that announces a body and sends it slowly holds a
socket, not a thread (a thread pool that reads bodies itself is blocked by a few dozen such clients).
Worker threads serve complete requests; each open Server-Sent Events stream holds one for its life.

The server's own error answers (malformed request line, headers or URL over the header limit, a body
over the body limit, a broken Content-Length) are ``application/problem+json`` like the app's.

``HTTP_CPUS`` keeps the whole process on the CPUs it names. The loop thread hands requests to the
workers and CPython's threads take turns holding the GIL; each hand-over to a thread on another CPU is
a cross-CPU wake-up. On a 2-core VM this project is measured on, the games process under 8 movers spent
1.14 ms of CPU per move on both CPUs and 0.69 ms kept on one, and served 1.7 x the moves/s
(``docs/benchmarks.md``, 2026-12-07 later morning). A process kept on one CPU uses at most that CPU:
scale with processes, one per CPU (``deploy/SCALING.md``)."""

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
from shared.web.closing import close_app
from shared.web.problems import PROBLEM_MEDIA_TYPE


@dataclass(frozen=True)
class HttpServerSettings:
    """From ``HTTP_*`` environment variables (README, Configuration)."""

    threads: int = 32  # HTTP_THREADS: requests served at once; an open SSE stream holds one
    connection_limit: int = 1000  # HTTP_CONNECTION_LIMIT: open sockets before accepting pauses
    channel_timeout: int = 30  # HTTP_CHANNEL_TIMEOUT: seconds an idle or stalled connection stays open
    max_request_header_size: int = 64 * 1024  # HTTP_MAX_HEADER_BYTES: request line + headers (431 above)
    max_request_body_size: int = 2 * 1024 * 1024  # HTTP_MAX_BODY_BYTES (413 above; the apps take 1 MiB)
    cpus: str = ""  # HTTP_CPUS (HTTP_CPUS_<SERVICE> first): CPUs the process runs on, "0", "0,2", "0-3"; empty: any

    @classmethod
    def from_env(cls, service: str | None = None, **overrides: Any) -> HttpServerSettings:
        """``service``: its own ``HTTP_CPUS_<SERVICE>`` (e.g. ``HTTP_CPUS_GAMES``) wins over ``HTTP_CPUS``,
        so ``speltafel run``, which gives every service one environment, can keep one service apart."""
        env, d = os.environ, cls()
        cpus = env.get(f"HTTP_CPUS_{service.upper()}") if service else None
        values: dict[str, Any] = {
            "threads": int(env.get("HTTP_THREADS") or d.threads),
            "connection_limit": int(env.get("HTTP_CONNECTION_LIMIT") or d.connection_limit),
            "channel_timeout": int(env.get("HTTP_CHANNEL_TIMEOUT") or d.channel_timeout),
            "max_request_header_size": int(env.get("HTTP_MAX_HEADER_BYTES") or d.max_request_header_size),
            "max_request_body_size": int(env.get("HTTP_MAX_BODY_BYTES") or d.max_request_body_size),
            "cpus": (cpus if cpus is not None else env.get("HTTP_CPUS", d.cpus)).strip(),
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


def parse_cpus(text: str, allowed: set[int]) -> set[int]:
    """``HTTP_CPUS``'s list ("0", "0,2", "0-3", "0-1,3") as a set of CPUs, each one of ``allowed`` (the
    CPUs this process may run on); anything else is a ValueError that names the setting."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise ValueError(f"HTTP_CPUS={text!r}: expected CPU numbers such as 0, 0,2 or 0-3") from None
        if low < 0 or high < low:
            raise ValueError(f"HTTP_CPUS={text!r}: {part.strip()!r} is not a CPU or a range of CPUs")
        cpus.update(range(low, high + 1))
    if not cpus <= allowed:
        raise ValueError(f"HTTP_CPUS={text!r}: CPU {min(cpus - allowed)} is not one this process may run on "
                         f"(allowed: {','.join(map(str, sorted(allowed)))})")
    return cpus


def keep_on_cpus(text: str) -> None:
    """Keep this process (the calling thread and every thread it starts later) on ``HTTP_CPUS``'s CPUs."""
    if text:
        os.sched_setaffinity(0, parse_cpus(text, os.sched_getaffinity(0)))


def serve(app: Any, host: str, port: int, settings: HttpServerSettings | None = None) -> None:
    """Serve until SIGTERM or SIGINT (running requests get the dispatcher's shutdown grace)."""
    settings = settings or HttpServerSettings.from_env()
    keep_on_cpus(settings.cpus)  # before waitress starts its threads: they inherit the main thread's CPUs
    server = make_server(app, host, port, settings)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()  # returns once a stop signal's running requests have had their grace
    finally:  # then the app's pools and Redis connections end cleanly, not with the process
        close_app(app)
