"""The clock ticker: ``speltafel games tick [--interval 1] [--once]``.

Each run records the timeout of every running game whose earliest clock deadline (``games.games.
clock_deadline``, indexed) has passed, by the table's policy. Several tickers may run: two that record
the same timeout collide on the event's version and the second one lets it be.
"""

from __future__ import annotations

from shared.service_kit import Infrastructure
from shared.ticker import Step, run_ticker


def _step(infra: Infrastructure) -> Step:
    from services.games.bootstrap import build_service

    svc = build_service(infra)

    def step() -> str | None:
        report = svc.tick_clocks()
        return f"recorded {report.expired} timeouts in {report.checked} games" if report.expired else None

    return step


def main(argv: list[str] | None = None) -> int:
    return run_ticker("games-ticker", __doc__, 1.0, _step, argv)


if __name__ == "__main__":
    raise SystemExit(main())
