"""A service's periodic loop (``speltafel <service> tick [--interval N] [--once]``): build the service
once, run one step every interval until SIGTERM/SIGINT, log what a step did, and keep going when a
step fails (the next run retries). The matchmaking matcher and the games clock ticker use it."""

from __future__ import annotations

import argparse
import logging
import signal
import time
from collections.abc import Callable

from shared.config import Settings
from shared.service_kit import Infrastructure
from shared.web.observability import configure_logging

# the service's step, built from its infrastructure: returns what to log, or None when nothing happened
Step = Callable[[], str | None]


def run_ticker(
    prog: str,
    description: str | None,
    default_interval: float,
    build: Callable[[Infrastructure], Step],
    argv: list[str] | None = None,
) -> int:
    log = logging.getLogger(prog)
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--interval", type=float, default=default_interval)
    parser.add_argument("--once", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    configure_logging(prog, settings.log_level)
    step = build(Infrastructure.connect(settings, max_size=2))
    stopping = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stopping.update(now=True))
    while not stopping["now"]:
        try:
            said = step()
            if said:
                log.info("%s", said)
        except Exception:  # keep ticking; the next run retries
            log.exception("%s run failed", prog)
        if args.once:
            break
        time.sleep(args.interval)
    return 0
