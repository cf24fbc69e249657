"""The periodic matcher: ``python -m services.matchmaking.entrypoints.ticker [--interval 2]``.

Matching also runs on every new ticket; this loop makes waiting tickets match once their rating gap
has widened enough. Several tickers may run: a PostgreSQL advisory lock serialises the runs.
"""

from __future__ import annotations

from shared.service_kit import Infrastructure
from shared.ticker import Step, run_ticker


def _step(infra: Infrastructure) -> Step:
    from services.matchmaking.bootstrap import build_service

    svc = build_service(infra)

    def step() -> str | None:
        formed = svc.tick()
        return f"formed {len(formed)} tables" if formed else None

    return step


def main(argv: list[str] | None = None) -> int:
    return run_ticker("matchmaking-ticker", __doc__, 2.0, _step, argv)


if __name__ == "__main__":
    raise SystemExit(main())
