"""CORS: which origins may call the API from a browser (``CORS_ORIGINS``), which request headers they may
send and which answer headers their scripts may read. One configuration for every Flask app (the four
services and the gateway of ``make run``) and the stream gateway (aiohttp, ``services.games.entrypoints.streams``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from flask import Flask
from flask_cors import CORS

# request headers a browser client may send, response headers it may read (CORS)
CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "If-Match",
                      "Last-Event-ID", "X-Request-ID"]
CORS_EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "X-Request-ID", "Idempotency-Key", "Idempotent-Replayed",
                       "Link", "Content-Disposition", "WWW-Authenticate", "Allow"]
CORS_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def origin_pattern(origin: str) -> re.Pattern[str]:
    """``CORS_ORIGINS`` entry to an anchored pattern: ``:*`` at the end is any port, another ``*`` one
    DNS label (``https://*.example.org``); everything else is literal."""
    text = re.escape(origin.rstrip("/"))
    text = re.sub(r":\\\*$", "(:[0-9]{1,5})?", text)
    text = text.replace(r"\*", "[a-z0-9-]+")
    return re.compile(f"^{text}$", re.IGNORECASE)


def install_cors(app: Flask, origins: Sequence[str]) -> None:
    """CORS headers on every answer of ``app`` (errors included) for the ``CORS_ORIGINS`` entries given; an
    answer that already carries ``Access-Control-Allow-Origin`` (one the gateway forwards) is left as it is."""
    if origins:
        CORS(
            app,
            origins=[origin_pattern(o) for o in origins],
            allow_headers=CORS_ALLOW_HEADERS,
            expose_headers=CORS_EXPOSE_HEADERS,
            methods=CORS_METHODS,
            max_age=600,
            vary_header=True,
        )


__all__ = ["CORS_ALLOW_HEADERS", "CORS_EXPOSE_HEADERS", "CORS_METHODS", "install_cors", "origin_pattern"]
