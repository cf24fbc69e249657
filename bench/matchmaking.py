"""Matchmaking benchmark (pure domain, no database): forming tables from 10,000 waiting tickets and
seating one round of a 500-player league. Prints one JSON object."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from services.matchmaking.domain.league import League
from services.matchmaking.domain.matching import MatchPolicy, Rating, Ticket, find_tables

TICKETS = 10_000
LEAGUE_PLAYERS = 500


def _tickets(rng: random.Random) -> list[Ticket]:
    games = [("paardenkoppen", (4, 3)), ("roparun", (4,)), ("klapper", (4,)), ("cityhopper", (2, 3, 4))]
    out = []
    for k in range(TICKETS):
        game, counts = games[k % len(games)]
        mode = "team" if game == "klapper" else "solo"
        out.append(
            Ticket(
                f"t{k}",
                f"p{k}",
                game,
                {},
                counts,
                mode,
                rng.uniform(0, 120),
                Rating(rng.gauss(25, 6), rng.uniform(1, 8)),
            )
        )
    return out


def _league_round(rng: random.Random) -> tuple[float, float, int]:
    players = [f"p{k:03d}" for k in range(LEAGUE_PLAYERS)]
    league = League.fold(
        League.create("L", "bench", "paardenkoppen", {}, players, 3, [4, 3], "swiss", "bench")
    )
    for t in league.round_tables(1):  # play round 1 so that round 2 is seated by standings
        league.apply("TableGameCreated", {"request_id": t.request_id, "game_id": f"g-{t.request_id}"})
    for t in league.round_tables(1):
        ranks = rng.sample(range(1, len(t.seats) + 1), len(t.seats))
        league.apply(
            "GameResultRecorded",
            {
                "request_id": t.request_id,
                "game_id": t.game_id,
                "players": t.seats,
                "ranks": ranks,
                "scores": [0.0] * len(ranks),
                "reason": "bench",
            },
        )
    start = time.perf_counter()
    league.seating_for(2)
    swiss = time.perf_counter() - start
    start = time.perf_counter()
    seating = league.seating_for(2)
    return swiss, time.perf_counter() - start, seating.repeats


def main() -> dict[str, Any]:
    rng = random.Random(7)
    tickets = _tickets(rng)
    start = time.perf_counter()
    tables = find_tables(tickets, now=120.0, policy=MatchPolicy())
    matching = time.perf_counter() - start
    seated = sum(len(t.tickets) for t in tables)
    swiss, again, repeats = _league_round(rng)
    result = {
        "service": "matchmaking",
        "waiting_tickets": TICKETS,
        "form_tables_seconds": round(matching, 3),
        "tables_formed": len(tables),
        "tickets_seated": seated,
        "league_players": LEAGUE_PLAYERS,
        "seat_league_round_seconds": round(swiss, 3),
        "seat_league_round_again_seconds": round(again, 3),
        "league_round_repeats": repeats,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
