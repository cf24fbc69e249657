"""JSON logs with a request id, and Prometheus metrics per endpoint."""

from __future__ import annotations

import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from pythonjsonlogger.json import JsonFormatter

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            record.request_id = g.get("request_id", "-")
        except RuntimeError:  # outside a request
            record.request_id = getattr(record, "request_id", "-")
        return True


def configure_logging(service: str, level: str = "INFO") -> None:
    """One JSON line per record, each with the service name and request id: on stderr, or with
    ``LOG_DIR`` set (``make run`` sets ``.data/logs``) into ``LOG_DIR/<service>.log`` while stderr
    shows only warnings and errors."""
    formatter = JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
        rename_fields={"levelname": "level", "asctime": "time"},
        static_fields={"service": service},
    )
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    log_dir = os.environ.get("LOG_DIR")
    if log_dir:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        handlers[0].setLevel(max(logging.WARNING, logging.getLevelNamesMapping().get(level.upper(), logging.INFO)))
        handlers.append(logging.FileHandler(Path(log_dir) / f"{service}.log", encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(formatter)
        handler.addFilter(_RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = handlers
    root.setLevel(level)


Gauges = Callable[[], dict[str, float]]


def install_metrics(app: Flask, service: str, gauges: Gauges | None = None) -> CollectorRegistry:
    """Request counts and latencies per endpoint, plus service gauges (queue depth, outbox lag)."""
    registry = CollectorRegistry()
    requests_total = Counter(
        "http_requests_total", "HTTP requests", ["service", "method", "endpoint", "status"], registry=registry
    )
    latency = Histogram(
        "http_request_duration_seconds",
        "HTTP request latency",
        ["service", "method", "endpoint"],
        registry=registry,
    )
    gauge = Gauge(
        "speltafel_gauge", "Service gauges (queue depths, outbox lag)", ["service", "name"], registry=registry
    )
    log = logging.getLogger(f"speltafel.{service}.http")
    # label children by (method, endpoint[, status]), looked up once each (``labels`` validates and
    # locks on every call)
    counted: dict[tuple[str, str, str], Any] = {}
    timed: dict[tuple[str, str], Any] = {}

    @app.before_request
    def _start() -> None:
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        endpoint = request.url_rule.rule if request.url_rule else "unmatched"
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        key = (request.method, endpoint, str(response.status_code))
        counter = counted.get(key)
        if counter is None:
            counter = counted.setdefault(key, requests_total.labels(service, *key))
        counter.inc()
        histogram = timed.get(key[:2])
        if histogram is None:
            histogram = timed.setdefault(key[:2], latency.labels(service, *key[:2]))
        histogram.observe(elapsed)
        response.headers["X-Request-ID"] = g.get("request_id", "-")
        if endpoint not in {"/metrics", "/healthz"} and log.isEnabledFor(logging.INFO):
            log.info(
                "request",
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "ms": round(elapsed * 1000, 2),
                },
            )
        return response

    def metrics() -> Response:
        if gauges is not None:
            try:
                for name, value in gauges().items():
                    gauge.labels(service, name).set(value)
            except Exception as exc:
                log.warning("gauges unavailable: %s", exc)
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    app.add_url_rule("/metrics", "metrics", metrics, methods=["GET"])
    return registry
