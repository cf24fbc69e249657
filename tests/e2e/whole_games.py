"""Whole games over HTTP with one token per seat (issues 4-7, 9), shared by ``test_engines_over_http_<game>.py``
(one file per game, so pytest-xdist spreads them): random legal moves as a frontend would POST them (HopPaa's
seats play the `rules` bot from their own view), and at every step no seat's view, new events or legal moves show
a card that sits hidden in another seat's hand; the finished game is audited."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import requests

from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.games.domain.table import Table
from services.games.engines.registry import default_registry
from tests.e2e.conftest import ADMIN, Client, register
from tests.support.hidden_cards import held_during, hidden_cards, leaked_in_events, leaks

# the spec's short games, so a whole game per player count stays quick over HTTP (make test's budget)
SHORT_OPTIONS = {
    "hoppaa": {"pawns_per_player": 1},  # HP-R22: the quick version, one pawn each
    "paardenkoppen": {"rounds": 3},  # PK-21: the players agree the number of rounds
}


def cases(game_type: str) -> list[Any]:
    """One case per player count of ``game_type`` (its first variant with that count, made short)."""
    engine = default_registry("").get(game_type)
    out = []
    seen: set[int] = set()
    for config in engine.variants():
        if config.num_players not in seen:
            seen.add(config.num_players)
            options = dict(config.options) | SHORT_OPTIONS.get(game_type, {})
            out.append(pytest.param(config.num_players, options, id=f"{game_type}-{config.num_players}"))
    return out


# HopPaa's random games are long (2 players, one pawn each: 260 to 3,800 moves over 8 seeds); its seats play
# the `rules` bot (190 to 564), which also plays every phase: bids, the white pawn, discards and tricks
BOT_PLAYED = {"hoppaa"}


def play_whole_game_checking_hands(games_url: str, game_type: str, num_players: int,
                                   options: dict[str, Any]) -> None:
    admin = Client(games_url, ADMIN)
    seats = [register(games_url, f"{game_type}-{k}") for k in range(num_players)]
    spectator = register(games_url, "spectator")
    r = admin.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats], "options": options})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    chooser = random.Random(f"{game_type}-{num_players}")
    after = 0
    engine = default_registry("").get(game_type)
    mirror, mirrored = Table(game_id), 0
    opening = admin.get(f"/v1/games/{game_id}").json()
    illegal = seats[opening["to_move"][0]].post(
        f"/v1/games/{game_id}/moves", {"move": {"type": "no_such_move"}, "expected_version": opening["version"]}
    )
    problem = illegal.json()
    assert illegal.status_code == 422 and illegal.headers["Content-Type"] == "application/problem+json"
    assert problem["rule"].split("-")[0] in {"PK", "HP", "KL", "RR", "CH"} and problem["detail"], problem
    assert admin.get(f"/v1/games/{game_id}").json()["version"] == opening["version"]  # nothing written  # the admin's full log folded locally, to pick sensible moves
    for _ in range(20_000):
        full = admin.get(f"/v1/games/{game_id}").json()
        if full["status"] != "running":
            break
        # the admin's new events folded one by one: every hand each seat held during the step
        full_views = [engine.full_view(mirror.progress.state)] if mirror.progress is not None else []
        for event in admin.get(f"/v1/games/{game_id}/events", params={"after": mirrored}).json()["events"]:
            mirror.apply(engine, event["type"], event["payload"])
            mirrored = event["version"]
            if mirror.progress is not None:
                full_views.append(engine.full_view(mirror.progress.state))
        public = json.dumps(spectator.get(f"/v1/games/{game_id}").json()["view"])
        # events since the last step, as a spectator sees them: what everyone may know
        public_events = json.dumps(spectator.get(f"/v1/games/{game_id}/events", params={"after": after}).json())
        for seat, client in enumerate(seats):
            secret = hidden_cards(full["view"], public, seat)
            view = json.dumps(client.get(f"/v1/games/{game_id}").json()["view"])
            legal = json.dumps(client.get(f"/v1/games/{game_id}/legal-moves").json())
            assert not leaks(secret, view), f"seat {seat} sees {leaks(secret, view)} of another hand in its view"
            assert not leaks(secret, legal), f"seat {seat} sees another hand in its legal moves"
            # the new events: a card now hidden in another hand that a spectator's copy does not show and
            # that this seat did not hold during the step (RR-8's reshuffle may move a dealt card on)
            events = json.dumps(client.get(f"/v1/games/{game_id}/events", params={"after": after}).json())
            leaked = leaked_in_events(secret, public_events, held_during(full_views, seat), events)
            assert not leaked, f"seat {seat} sees {leaked} in its events"
        after = full["version"]
        seat = chooser.choice(full["to_move"])
        legal_moves = seats[seat].get(f"/v1/games/{game_id}/legal-moves").json()
        assert mirror.progress is not None
        assert legal_moves["moves"] == engine.legal_moves(mirror.progress.state, seat)
        if game_type in BOT_PLAYED:  # the `rules` bot, from the seat's own view and listed moves
            own = seats[seat].get(f"/v1/games/{game_id}").json()
            move = choose(game_type, "rules", own, legal_moves["moves"], seat, chooser, fixed_budget())
        else:  # random among the engine's self-play moves (all legal; HopPaa's uniform random play never ends)
            move = chooser.choice(engine.selfplay_moves(mirror.progress.state, seat))
        answer = seats[seat].post(f"/v1/games/{game_id}/moves",
                                  {"move": move, "expected_version": legal_moves["version"]})
        assert answer.status_code == 201, answer.text
    final = admin.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished", "the game reached its end"
    assert sorted(final["outcome"]["ranks"])[0] == 1
    audit = requests.get(f"{games_url}/v1/games/{game_id}/audit", timeout=60).json()
    assert audit["ok"], audit
