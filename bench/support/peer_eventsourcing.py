"""The peer of the rebuild benchmark, run by ``bench/reference.py`` in the bench-only venv
(``.bench-venv``, the ``eventsourcing`` library with its PostgreSQL module; not a project dependency):
an aggregate of N events stored in PostgreSQL, then the median time of ``repository.get`` (its
reconstruct, no snapshots, no cache). Prints one JSON line. Argument: the database URL, N."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from urllib.parse import urlsplit

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Counter(Aggregate):
    def __init__(self) -> None:
        self.totals = [0, 0]
        self.moves = 0

    @event("Added")
    def add(self, seat: int, player_id: str, move: dict) -> None:
        self.totals[seat] += 1
        self.moves += 1


class Tables(Application):
    pass


def main() -> None:
    url, n = urlsplit(sys.argv[1]), int(sys.argv[2])
    os.environ.update(
        PERSISTENCE_MODULE="eventsourcing.postgres",
        POSTGRES_DBNAME=url.path.lstrip("/"),
        POSTGRES_HOST=url.hostname or "127.0.0.1",
        POSTGRES_PORT=str(url.port or 5432),
        POSTGRES_USER=url.username or "postgres",
        POSTGRES_PASSWORD=url.password or "",
    )
    app = Tables()
    counter = Counter()
    player = "0f0e1c2a-1111-4c4c-9d9d-123456789abc"
    for k in range(n - 1):
        counter.add(k % 2, player, {"type": "add"})
        if k % 500 == 499:
            app.save(counter)
    app.save(counter)
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        rebuilt = app.repository.get(counter.id)
        samples.append(time.perf_counter() - started)
    assert rebuilt.version == n
    print(json.dumps({"events": n, "reconstruct_ms": round(statistics.median(samples) * 1000, 1)}))


if __name__ == "__main__":
    main()
