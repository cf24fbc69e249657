"""Random play: every variant to the end with invariants and replay checks, plus hidden information.

Uniformly random HopPaa play does not end (a random bid is made about one round in seven and
every miss moves a pawn back), so the games to the end pick among the engine's ``selfplay_moves``:
a sensible subset of the real legal moves (engines/hoppaa/policy.py). Uniform
random play over the full move list is still run for a bounded number of moves per game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import CHANCE_EVENT, GameConfig
from services.games.service_layer.selfplay import SelfPlayReport, play_one, seeds_for, selfplay

from .guided import GuidedHopPaa, UniformHopPaa
from .helpers import ENGINE, config

GUIDED = GuidedHopPaa()
VARIANTS = ENGINE.variants()


def _label(cfg: GameConfig) -> str:
    return f"n{cfg.num_players}-{cfg.options['mode']}-pawns{cfg.options['pawns_per_player']}"


@pytest.mark.parametrize("cfg", VARIANTS, ids=_label)
def test_random_play_50_games_to_the_end(cfg: GameConfig) -> None:
    """Invariants (cards, bids, tricks, pawns, end of game: HP-5, HP-13, HP-15, HP-25, HP-41, HP-44)
    after every event, and replay equality, over 50 seeded games per variant."""
    report = selfplay(GUIDED, cfg, games=50, seed=cfg.num_players + 10 * cfg.options["pawns_per_player"])
    assert report.ok, report.failures
    assert report.games == 50 and report.moves > 0


@pytest.mark.parametrize(
    "options",
    [
        {"white_pawn_timing": "before_own_bid"},
        {"forward_move_optional": True},
        {"mode": "team", "first_dealer": 3},
    ],
)
def test_random_play_with_non_default_rulings(options: dict[str, Any]) -> None:
    """HP-R9 and HP-R12 options in random play to the end."""
    report = selfplay(GUIDED, config(4, **options), games=10, seed=99)
    assert report.ok, report.failures


@pytest.mark.parametrize("cfg", VARIANTS, ids=_label)
def test_uniform_random_moves_keep_invariants(cfg: GameConfig) -> None:
    """Uniformly random moves over the full legal list (bounded length): no error, invariant or replay fault."""
    report = SelfPlayReport()
    for k in range(4):
        play_one(UniformHopPaa(), cfg, 500 + k, report, max_moves=600)
    assert report.errors == 0 and report.invariant_failures == 0 and report.replay_mismatches == 0, (
        report.failures
    )


def _strings(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(_strings(v) for v in obj)) if obj else set()
    return set()


@pytest.mark.parametrize("cfg", [VARIANTS[0], VARIANTS[2], VARIANTS[3]], ids=_label)
def test_hidden_information_in_views_and_events(cfg: GameConfig) -> None:
    """Section 4 / HP-R21: no seat sees another hand, another discard or the reserve; spectators see
    no hand; dealt cards stay out of redacted events (also after the end)."""
    seeds = seeds_for(3)
    chooser = random.Random(3)
    n = cfg.num_players
    progress, events = open_game(GUIDED, cfg, seeds)
    checked = 0
    while True:
        state = progress.state
        public = {c for t in state.trick_log for _, c in t.cards} | {c for _, c in state.trick}
        for seat in [*range(n), None]:
            view = ENGINE.view(state, seat)
            seen = _strings(view)
            assert view["num_players"] == n
            if seat is None:
                assert view["hand"] is None and view["my_discard"] is None
            for other in range(n):
                if other == seat:
                    continue
                assert not (set(state.hands[other]) & seen)
                if state.discards and state.discards[other] is not None:
                    assert state.discards[other] not in seen - public
            assert not (set(state.reserve) & seen)
            for event in events:
                red = ENGINE.redact_event(event, seat, state, state)
                if event["type"] == CHANCE_EVENT:
                    assert red["values"] == "hidden"
                if event["type"] == "CardDiscarded" and event["seat"] != seat:
                    assert red["card"] == "hidden"
                if event["type"] in ("CardPlayed", "TrickWon"):
                    continue  # played cards are public (and may be re-dealt in a later round)
                for other in range(n):
                    if other != seat:
                        assert not (set(state.hands[other]) & _strings(red))
        checked += 1
        if ENGINE.outcome(state) is not None or checked > 400:
            break
        seat = ENGINE.to_move(state)[0]
        move = chooser.choice(GUIDED.legal_moves(state, seat))
        events = apply_move(GUIDED, progress, seat, move, seeds)
    assert checked > 50
