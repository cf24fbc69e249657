"""The clock ticker: ``speltafel games tick [--interval 1] [--once]``.

Each run records the timeout of every running game whose earliest clock deadline (``games.games.
clock_deadline``, indexed) has passed, by the table's policy. Several tickers may run: two that record
the same timeout collide on the event's version and the second one lets it be.
"""

from __future__ import annotations

import argparse
import logging
import signal
import time

log = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    from services.games.bootstrap import build_service
    from shared.config import Settings
    from shared.service_kit import Infrastructure
    from shared.web.observability import configure_logging

    parser = argparse.ArgumentParser(prog="games-ticker", description=__doc__)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--once", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    configure_logging("games-ticker", settings.log_level)
    svc = build_service(Infrastructure.connect(settings, max_size=2))
    stopping = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stopping.update(now=True))
    while not stopping["now"]:
        try:
            report = svc.tick_clocks()
            if report.expired:
                log.info("recorded %d timeouts in %d games", report.expired, report.checked)
        except Exception:  # keep ticking; the next run retries
            log.exception("clock run failed")
        if args.once:
            break
        time.sleep(args.interval)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
