"""Klapper and HopPaa levels: always a listed move, the same move for the same seed, and the search
and arena pieces they stand on (issue 18)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import fixed_budget
from services.bots.domain.levels import choose
from services.bots.domain.search import ChanceRequest, chance_values
from services.games.engines.base import GameConfig
from tests.unit.bots.positions import positions

LEVELS = ("random", "rules", "strong")


@pytest.mark.parametrize("game_type", ["klapper", "hoppaa"])
def test_every_level_returns_a_listed_move(game_type: str) -> None:
    kinds: set[str] = set()
    checked = 0
    for k, (_, _, seat, view, legal) in enumerate(positions(game_type, range(6), max_moves=300, every=4)):
        body = {"game_type": game_type, "view": view}
        for level in LEVELS:
            if level == "strong" and k % 5:
                continue  # the search is slower: every fifth position
            move = choose(game_type, level, body, legal, seat, random.Random(k), fixed_budget(3))
            assert move in legal, (level, move)
            kinds.add(move["type"])
            checked += 1
    assert checked > 150
    assert "play_card" in kinds and "bid" in kinds


@pytest.mark.parametrize("game_type", ["klapper", "hoppaa"])
@pytest.mark.parametrize("level", ["rules", "strong"])
def test_same_seed_same_move(game_type: str, level: str) -> None:
    differs = 0
    for k, (_, _, seat, view, legal) in enumerate(positions(game_type, range(3), max_moves=120, every=9)):
        if len(legal) < 2:
            continue
        body = {"game_type": game_type, "view": view}
        first = choose(game_type, level, body, legal, seat, random.Random(k), fixed_budget(4))
        again = choose(game_type, level, body, legal, seat, random.Random(k), fixed_budget(4))
        assert first == again
        differs += 1
    assert differs > 5


def test_klapper_rules_declares_the_best_roem_and_follows_the_spec_orders() -> None:
    """KL-29/KL-35: the most valuable declaration is chosen; KL-23: a cheap winner over an opponent."""
    from services.bots.domain.games.klapper import choose_card, roem_move
    from services.games.engines.klapper.cards import parse

    moves = [
        {"type": "play_card", "card": "AS"},
        {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]},
        {
            "type": "declare_roem",
            "melds": [{"type": "run3", "cards": ["KH", "QH", "JH"]}, {"type": "stuk", "cards": ["KH", "QH"]}],
        },
    ]
    assert roem_move(moves) == moves[2]

    def c(x: str) -> int:
        got = parse(x)
        assert got is not None
        return got

    hearts = 1
    # 2 players, opponent (seat 1) led 10S; we hold AS and 9S: win with the ace
    got = choose_card([c("AS"), c("9S")], [c("AS"), c("9S")], [(1, c("10S"))], hearts, 0, [0, 1], 2, [], 0)
    assert got == c("AS")
    # the opponent's ace cannot be beaten in spades: throw the cheapest spade
    got = choose_card([c("10S"), c("9S")], [c("10S"), c("9S")], [(1, c("AS"))], hearts, 0, [0, 1], 2, [], 0)
    assert got == c("9S")


def test_hoppaa_rules_takes_exactly_the_bid() -> None:
    """HP-26 to HP-28: with the bid already made, a player ducks; while short, wins cheaply."""
    from services.bots.domain.games.hoppaa import choose_card

    table = [(1, "6S")]
    assert choose_card(["9S", "7S", "2S"], 0, "H", table, 0) == "2S"  # bid reached: duck (only 2S loses)
    assert choose_card(["9S", "7S", "2S"], 1, "H", table, 0) == "7S"  # one more needed: cheapest winner
    assert choose_card(["9S", "5S", "2S"], 0, "H", table, 0) == "5S"  # shed the highest card that loses


def test_chance_values_have_the_host_s_shape() -> None:
    rng = random.Random(1)
    shuffle = chance_values(ChanceRequest("deal", "shuffle", 24), rng)
    assert sorted(shuffle) == list(range(24))
    dice = chance_values(ChanceRequest("roll", "dice", 3, 6), rng)
    assert len(dice) == 3 and all(1 <= d <= 6 for d in dice)
    pick = chance_values(ChanceRequest("start", "pick", 5), rng)
    assert len(pick) == 1 and 0 <= pick[0] < 5


def test_arena_bots_see_only_their_own_seat_and_games_finish() -> None:
    seen: list[tuple[int, dict[str, Any]]] = []

    def spy(
        game_type: str,
        level: str,
        body: dict[str, Any],
        moves: list[dict[str, Any]],
        seat: int,
        rng: random.Random,
        budget: Any,
    ) -> dict[str, Any]:
        seen.append((seat, body))
        return choose(game_type, level, body, moves, seat, rng, budget)

    result = play_game(
        "klapper",
        GameConfig(2, {"target": 60}),
        5,
        [Bot("rules", 1), Bot("random", 2)],
        lambda _: fixed_budget(2),
        choose=spy,
    )
    assert result.finished and sorted(result.outcome.ranks if result.outcome else []) in ([1, 2], [1, 1])
    assert seen
    for seat, body in seen:
        view = body["view"]
        assert view["seat"] == seat and "hands" not in view and "dead_hand" not in view
    again = play_game(
        "klapper",
        GameConfig(2, {"target": 60}),
        5,
        [Bot("rules", 1), Bot("random", 2)],
        lambda _: fixed_budget(2),
    )
    assert again.outcome == result.outcome and again.moves == result.moves


def test_arena_stops_at_the_move_cap() -> None:
    result = play_game(
        "hoppaa",
        GameConfig(2, {}),
        1,
        [Bot("random", 1), Bot("random", 2)],
        lambda _: fixed_budget(1),
        max_moves=50,
    )
    assert result.moves == 50 and not result.finished


def test_hoppaa_rules_leads_the_card_least_likely_to_win_once_the_bid_is_made() -> None:
    """HP-23: with 10S to 5S played, 4S is the top spade and would win; 5H can still be beaten by five
    unseen hearts, so a player who has his tricks leads 5H (HP-26 to HP-28)."""
    from services.bots.domain.games.hoppaa import choose_card, seen_from

    tricks = [[(0, "10S"), (1, "5S")], [(0, "9S"), (1, "6S")], [(0, "8S"), (1, "7S")]]
    seen = seen_from(2, ["4S", "5H"], "AC", tricks, [2, 2], 0)
    assert choose_card(["4S", "5H"], 0, "C", [], 0, seen, 2) == "5H"
    assert choose_card(["4S", "5H"], 1, "C", [], 0, seen, 2) == "5H"  # still short: the stronger card
    # the last to play, with only winners left, takes the trick with its most dangerous card
    assert choose_card(["9S", "5S"], 0, "H", [(1, "2S")], 0, seen, 2) == "9S"


def _scoring_view(square: int, steps: list[int]) -> dict[str, Any]:
    return {
        "num_players": 2,
        "pawns": [{"green": square}, {"green": 0}],
        "scoring": {"seat": 0, "owner": 0, "result": "made", "steps": steps, "penalty": None},
    }


def test_hoppaa_rules_moves_the_pawn_where_the_finish_is_easier_to_reach() -> None:
    """HP-28, HP-40: from 29 with bid 2 made, 2 steps reach 31 (a bid of 4 finishes from there), 5 steps
    reach 34 (only an exact bid of 1 finishes): ``rules`` moves 2, the longest move would be 5."""
    from services.bots.domain.games.hoppaa import pawn_move

    def moves(steps: list[int]) -> list[dict[str, Any]]:
        return [{"type": "choose_pawn_move", "pawn": "green", "steps": s} for s in steps]

    assert pawn_move(_scoring_view(29, [2, 5]), moves([2, 5]), 0)["steps"] == 2
    # lower down the longer move is the better one: 9 + 5 = 14 jumps to 21 (HP-37)
    assert pawn_move(_scoring_view(9, [3, 5]), moves([3, 5]), 0)["steps"] == 5


def test_hoppaa_rules_takes_the_white_pawn_where_its_steps_help() -> None:
    """HP-29: from 25 the white pawn's 10 steps finish any made bid, so it is taken; from 26 it is
    declined: its steps 2b and 10 reach nothing better (36 overshoots, HP-R11), while 5 plain steps reach
    31, where a bid of 4 finishes."""
    from services.bots.domain.games.hoppaa import white_move

    moves = [{"type": "choose_white_pawn", "use": True}, {"type": "choose_white_pawn", "use": False}]
    hand = ["10S", "7S", "3S", "9H", "4H", "2H", "8D", "5D", "6C", "AC"]

    def view(square: int) -> dict[str, Any]:
        return {
            "num_players": 2,
            "teams": None,
            "pawns": [{"green": square}, {"green": 3}],
            "white_pawn": {"offered_to": 0, "used": None},
            "hand": hand,
            "trump": None,
            "opener": 0,
        }

    assert white_move(view(25), moves, 0)["use"] is True
    assert white_move(view(26), moves, 0)["use"] is False


def test_hoppaa_track_table_is_the_solved_one() -> None:
    """The literal table of expected rounds to go is what value iteration over the track gives
    (HP-28 to HP-41), and it knows the track: with 2 players (bids 1 to 9) 31, where a bid of 4
    finishes, is better than 34, where only a bid of exactly 1 does (HP-40)."""
    from services.bots.domain.hoppaa_value import ROUNDS_LEFT, _solve

    for n, table in ROUNDS_LEFT.items():
        assert max(abs(a - b) for a, b in zip(_solve(n), table, strict=True)) < 1e-3
        assert table[35] == 0.0 and table[0] == max(table)
    assert ROUNDS_LEFT[2][31] < ROUNDS_LEFT[2][34]
