"""Paardenkoppen and ROPARUN bot levels (issue 18.3): legal, reproducible, and in the right order.

Every level answers with one of the listed moves at many self-played positions and gives the same
move for the same generator; seeded arena games (``services.bots.domain.arena``, each bot seeing
only its seat's view) show ``rules`` beating ``random`` by a wide margin.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.games.domain.play import apply_move, open_game
from services.games.engines.base import GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import seeds_for

ENGINES = default_registry()
SMALL = fixed_budget(6)  # a few playouts: enough to exercise the search, quick in CI


def _positions(
    game_type: str, seed: int, every: int, limit: int
) -> list[tuple[dict[str, Any], list[Any], int]]:
    """(API body, legal moves, seat) at positions of a random self-played game with a choice."""
    engine = ENGINES.get(game_type)
    config = engine.variants()[seed % len(engine.variants())]
    seeds = seeds_for(seed)
    progress, _ = open_game(engine, config, seeds, None, None)
    chooser = random.Random(seed)
    out: list[tuple[dict[str, Any], list[Any], int]] = []
    moves = 0
    while engine.outcome(progress.state) is None and len(out) < limit and moves < 4000:
        seat = engine.to_move(progress.state)[0]
        legal = engine.legal_moves(progress.state, seat)
        if len(legal) > 1 and moves % every == 0:
            body = {"game_type": game_type, "seat": seat, "view": engine.view(progress.state, seat)}
            out.append((body, legal, seat))
        apply_move(engine, progress, seat, chooser.choice(legal), seeds, None, None)
        moves += 1
    return out


@pytest.mark.parametrize("game_type", ["paardenkoppen", "roparun"])
@pytest.mark.parametrize("level", ["random", "rules", "strong"])
def test_every_level_returns_a_listed_move_and_the_same_one_for_the_same_rng(
    game_type: str, level: str
) -> None:
    limit = 6 if level == "strong" else 60
    checked = 0
    for seed in range(3):
        for body, legal, seat in _positions(game_type, seed, every=3, limit=limit // 3):
            first = choose(game_type, level, body, legal, seat, random.Random(seed), SMALL)
            again = choose(game_type, level, body, legal, seat, random.Random(seed), SMALL)
            assert first in legal
            assert again == first
            checked += 1
    assert checked >= limit // 3


def test_paardenkoppen_rules_takes_a_playable_head_card() -> None:
    """PK-17: with the goat row 1-9 and the goat 10 in hand, ``rules`` plays it and takes the field."""
    from services.bots.domain.games.paardenkoppen import score_card
    from services.games.engines.paardenkoppen.cards import make_card

    lows, highs, fields = [6, 0, 0, 1], [6, 0, 0, 9], [20, 20, 20, 40]
    hand = [make_card(3, 10), make_card(0, 7), make_card(0, 5)]
    scores = {c: score_card(c, hand, lows, highs, fields) for c in hand}
    assert max(scores, key=lambda c: scores[c]) == make_card(3, 10)


def test_paardenkoppen_rules_does_not_hand_a_head_card_to_another_seat() -> None:
    """PK-12: horse 2-12 on the table; playing the horse 1 (head card not in own hand) lets the
    seat holding horse 13 take the field, so ``rules`` prefers another card."""
    from services.bots.domain.games.paardenkoppen import score_card
    from services.games.engines.paardenkoppen.cards import make_card

    lows, highs, fields = [2, 6, 0, 0], [12, 6, 0, 0], [60, 20, 20, 20]
    hand = [make_card(0, 1), make_card(1, 7)]
    scores = {c: score_card(c, hand, lows, highs, fields) for c in hand}
    assert scores[make_card(1, 7)] > scores[make_card(0, 1)]


def test_roparun_rules_captures_instead_of_walking_past() -> None:
    """RR-20/RR-28: a play that lands on an opponent pawn outscores one that lands on an empty square."""
    from services.bots.domain.games.roparun import evaluate
    from services.games.engines.roparun.board import Board

    board = Board(16, 4, (0, 2))
    # Red c1@5, r@8, c2@10, car off; Green (base 32) cyclist on square 13 = Green progress 45
    red = [5, 10, 8, -1]
    green = [45, 50, 48, -1]
    capture = [list(red), list(green)]
    capture[0][1] = 13  # c2 + 3 lands on the Green cyclist
    capture[1][0] = -1
    walk = [list(red), list(green)]
    walk[0][1] = 12  # c2 + 2, an empty square
    assert evaluate(board, capture, 0) > evaluate(board, walk, 0)


def _win_rate(game_type: str, n: int, hero: str, others: str, games: int, options: dict[str, Any]) -> float:
    engine = ENGINES.get(game_type)
    config = GameConfig(n, engine.normalize_options(n, options))
    won = 0.0
    for g in range(games):
        seat = g % n
        bots = [Bot(hero if s == seat else others, seed=7919 * g + s) for s in range(n)]
        result = play_game(game_type, config, 500 + g, bots, lambda level: SMALL)
        assert result.finished
        winners = result.winners()
        if seat in winners:
            won += 1.0 / len(winners)
    return won / games


def test_paardenkoppen_rules_beats_random_clearly() -> None:
    # one rules bot against two random bots: a fair share is 1/3
    rate = _win_rate("paardenkoppen", 3, "rules", "random", 45, {"rounds": 2})
    assert rate > 0.5, rate


def test_roparun_rules_beats_random_clearly() -> None:
    rate = _win_rate("roparun", 2, "rules", "random", 10, {})  # head to head: a fair share is 1/2
    assert rate >= 0.8, rate
