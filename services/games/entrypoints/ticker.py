"""The games ticker: ``speltafel games tick [--interval 1] [--once]``.

Each run records the timeout of every running game whose earliest clock deadline (``games.games.
clock_deadline``, indexed) has passed, by the table's policy. Several tickers may run: two that record
the same timeout collide on the event's version and the second one lets it be.

Every ``FORGET_EVERY`` seconds (and on the first run) it also deletes the answers of Idempotency-Keys
older than ``SPELTAFEL_IDEMPOTENCY_TTL`` (24 h), so ``games.idempotency`` holds a day of keys, not all
of them ever sent.
"""

from __future__ import annotations

import time

from shared.service_kit import Infrastructure
from shared.ticker import Step, run_ticker

FORGET_EVERY = 300.0


def _step(infra: Infrastructure) -> Step:
    from services.games.bootstrap import build_service

    svc = build_service(infra)
    next_forget = time.monotonic()

    def step() -> str | None:
        nonlocal next_forget
        report = svc.tick_clocks()
        done = [f"recorded {report.expired} timeouts in {report.checked} games"] if report.expired else []
        if time.monotonic() >= next_forget:
            next_forget = time.monotonic() + FORGET_EVERY
            if forgotten := svc.forget_idempotent_answers():
                done.append(f"forgot {forgotten} Idempotency-Key answers older than {svc.idempotency_ttl:g} s")
        return "; ".join(done) or None

    return step


def main(argv: list[str] | None = None) -> int:
    return run_ticker("games-ticker", __doc__, 1.0, _step, argv)


if __name__ == "__main__":
    raise SystemExit(main())
