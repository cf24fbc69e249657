"""The periodic matcher: ``python -m services.matchmaking.entrypoints.ticker [--interval 2]``.

Matching also runs on every new ticket; this loop makes waiting tickets match once their rating gap
has widened enough. Several tickers may run: a PostgreSQL advisory lock serialises the runs.
"""

from __future__ import annotations

import argparse
import logging
import signal
import time

log = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    from services.matchmaking.bootstrap import build_service
    from shared.config import Settings
    from shared.service_kit import Infrastructure
    from shared.web.observability import configure_logging

    parser = argparse.ArgumentParser(prog="matchmaking-ticker", description=__doc__)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--once", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    configure_logging("matchmaking-ticker", settings.log_level)
    svc = build_service(Infrastructure.connect(settings, max_size=2))
    stopping = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stopping.update(now=True))
    while not stopping["now"]:
        try:
            formed = svc.tick()
            if formed:
                log.info("formed %d tables", len(formed))
        except Exception:  # keep ticking; the next run retries
            log.exception("matching run failed")
        if args.once:
            break
        time.sleep(args.interval)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
