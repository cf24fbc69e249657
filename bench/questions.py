"""Benchmark of the questions service core: distance queries per second (cold and cached) and question
draws per second. Prints one JSON object. Pure and in process (no PostgreSQL, Redis or HTTP), with
small bounded loops for a 2-core machine. ``make bench`` collects ``main()``'s dict."""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from shared.cityhopper import catalog
from shared.cityhopper.provider import draw_for_request
from shared.cityhopper.questions import sample_pack
from shared.cityhopper.roads import CachedRouting, EstimateBackend

PAIRS = 400
DRAWS = 3000


def main() -> dict[str, Any]:
    ids = [p.id for p in catalog.places()]
    pairs = list(itertools.islice(itertools.permutations(ids, 2), 0, None, 17))[:PAIRS]

    routing = CachedRouting(EstimateBackend())
    start = time.perf_counter()
    for a, b in pairs:
        routing.route(a, b)
    cold = time.perf_counter() - start

    start = time.perf_counter()
    for _ in range(5):
        for a, b in pairs:
            routing.route(a, b)
    cached = time.perf_counter() - start

    bank = sample_pack().served()
    categories = itertools.cycle(range(1, 7))
    start = time.perf_counter()
    for n in range(DRAWS):
        a, b = pairs[n % len(pairs)]
        body = {
            "game_id": "bench",
            "request_no": n,
            "city": a,
            "category": next(categories),
            "yellow_city": b,
            "selector": n * 7919,
        }
        draw_for_request(bank, body, routing, question_id="bench")
    draws = time.perf_counter() - start

    return {
        "service": "questions",
        "routing": "estimate",
        "distance_pairs": len(pairs),
        "distance_cold_per_s": round(len(pairs) / cold, 1),
        "distance_cached_per_s": round(5 * len(pairs) / cached, 1),
        "draws": DRAWS,
        "draws_per_s": round(DRAWS / draws, 1),
        "bank_questions": len(bank),
    }


if __name__ == "__main__":
    print(json.dumps(main()))
