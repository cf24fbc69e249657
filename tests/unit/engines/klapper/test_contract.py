"""The engine contract: options, variants, teams, move docs, decide/legal_moves agreement, purity."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import GameConfig, IllegalMove, InvalidOptions
from services.games.engines.klapper.cards import NAMES
from services.games.service_layer.selfplay import seeds_for

from .support import E, config, dealt, run


def test_options_schema_defaults_cite_rules() -> None:
    props = E.options_schema()["properties"]
    assert props["seating"]["default"] == "omboeren" and "KL-R1" in props["seating"]["description"]
    assert props["target"]["default"] == 500 and "KL-39" in props["target"]["description"]
    assert (
        props["round2_turned_suit"]["default"] is True
        and "KL-R5" in props["round2_turned_suit"]["description"]
    )
    assert props["roem_tie"]["default"] == "nobody" and "KL-R12" in props["roem_tie"]["description"]
    assert (
        props["compare_with_roem"]["default"] is True
        and "KL-R16" in props["compare_with_roem"]["description"]
    )
    for n in E.player_counts:
        filled = E.normalize_options(n, {})
        assert filled == {k: v["default"] for k, v in props.items()}


@pytest.mark.parametrize(
    ("n", "options", "field"),
    [
        (5, {}, "players"),
        (4, {"colour": "red"}, "colour"),
        (4, {"seating": "random"}, "seating"),
        (4, {"first_dealer": 4}, "first_dealer"),
        (4, {"target": 0}, "target"),
        (4, {"target": True}, "target"),
        (4, {"round2_turned_suit": "yes"}, "round2_turned_suit"),
        (4, {"roem_tie": "split"}, "roem_tie"),
        (4, {"compare_with_roem": 1}, "compare_with_roem"),
    ],
)
def test_invalid_options_name_the_field(n: int, options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as err:
        E.normalize_options(n, options)
    assert err.value.field == field


def test_teams_for_partnership_modes() -> None:
    assert E.teams(config(4)) == [[0, 2], [1, 3]]
    assert E.teams(config(6)) == [[0, 2, 4], [1, 3, 5]]
    assert E.teams(config(3)) is None and E.teams(config(2)) is None
    assert E.teams(GameConfig(4, E.normalize_options(4, {}))) is None  # omboeren decides partners


def test_move_docs_follow_the_action_table() -> None:
    docs = {d.type: d for d in E.moves()}
    assert set(docs) == {"bid", "choose_trump", "pass", "declare_roem", "play_card"}
    assert docs["bid"].params["required"] == ["choice"]
    assert docs["choose_trump"].params["required"] == ["suit"]
    assert docs["declare_roem"].params["required"] == ["melds"]
    assert docs["play_card"].params["required"] == ["card"]
    assert all(d.rules and d.example["type"] == d.type for d in docs.values())


@pytest.mark.parametrize("n", [4, 3, 2, 6])
def test_decide_accepts_exactly_the_listed_moves(n: int) -> None:
    cfg = GameConfig(n, E.normalize_options(n, {}))
    chooser = random.Random(n)
    seeds = seeds_for(77 + n)
    progress, _ = open_game(E, cfg, seeds)
    steps = 0
    while E.outcome(progress.state) is None and steps < 400:
        state = progress.state
        seat = E.to_move(state)[0]
        legal = E.legal_moves(state, seat)
        snapshot = copy.deepcopy(E.full_view(state))
        for move in legal:
            assert E.decide(state, seat, move)
        assert E.full_view(state) == snapshot  # decide never mutates
        listed = {m.get("card") for m in legal if m["type"] == "play_card"}
        for card in NAMES:
            if state.phase == "play" and card not in listed:
                with pytest.raises(IllegalMove) as err:
                    E.decide(state, seat, {"type": "play_card", "card": card})
                assert err.value.rule in {"KL-17", "KL-19", "KL-20", "KL-25"}
        for other in range(n):
            if other != seat:
                assert E.legal_moves(state, other) == []
                with pytest.raises(IllegalMove):
                    E.decide(state, other, legal[0])
        move = chooser.choice(legal)
        before = E.full_view(state)
        apply_move(E, progress, seat, move, seeds)
        assert E.full_view(state) == before  # evolve never mutates its input
        steps += 1


def test_malformed_moves_raise_illegal_move() -> None:
    state = run(dealt(4, {1: ["AS", "KS", "QS", "JS", "10S", "9S"]}), 1, {"type": "bid", "choice": "play"})
    bad: list[Any] = [
        None,
        [],
        {},
        {"type": 3},
        {"type": "play_card", "card": 10},
        {"type": "declare_roem"},
        {"type": "declare_roem", "melds": "run3"},
        {"type": "declare_roem", "melds": [{"type": "run3"}]},
        {"type": "declare_roem", "melds": [{"type": "run7", "cards": ["AS"]}]},
        {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AS", "XX", "QS"]}]},
        {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AS", "KS", "JS"]}]},
        {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AS", "KS"]}]},
        {"type": "declare_roem", "melds": [[1, 2]]},
    ]
    for move in bad:
        with pytest.raises(IllegalMove) as err:
            E.decide(state, 1, move)
        assert err.value.rule.startswith("KL-") and err.value.message


def test_outcome_before_and_after_the_end() -> None:
    cfg = GameConfig(4, E.normalize_options(4, {"target": 150}))
    progress, _ = open_game(E, cfg, seeds_for(3))
    assert E.outcome(progress.state) is None
    chooser = random.Random(3)
    while E.outcome(progress.state) is None:
        seat = E.to_move(progress.state)[0]
        apply_move(E, progress, seat, chooser.choice(E.legal_moves(progress.state, seat)), seeds_for(3))
    result = E.outcome(progress.state)
    assert result is not None and result.teams is not None and result.team_ranks is not None
    assert sorted(result.team_ranks) == [1, 2]
    assert all(len({progress.state.side_of[s] for s in team}) == 1 for team in result.teams)
    assert E.to_move(progress.state) == [] and E.legal_moves(progress.state, 0) == []
    full = E.full_view(progress.state)
    assert full["num_players"] == 4 and full["phase"] == "game_over" and full["winner"] is not None
