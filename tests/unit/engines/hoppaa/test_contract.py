"""Engine contract: options, variants, teams, move docs, malformed moves, views."""

from __future__ import annotations

import random

import pytest

from services.games.engines.base import Engine, GameConfig, IllegalMove, InvalidOptions
from services.games.engines.hoppaa import HopPaaEngine

from .helpers import ENGINE, config, finish_round, new_game, white


def test_engine_identity() -> None:
    assert isinstance(ENGINE, Engine) and HopPaaEngine.game_type == "hoppaa"
    assert ENGINE.player_counts == (2, 3, 4)


def test_options_schema_defaults_cite_rules() -> None:
    """HP-R9, HP-R12, HP-R22, HP-R6, HP-R7: every configurable ruling with the spec default."""
    props = ENGINE.options_schema()["properties"]
    assert props["white_pawn_timing"]["default"] == "before_first_bid"
    assert props["forward_move_optional"]["default"] is False
    assert props["pawns_per_player"]["default"] == 2 and props["mode"]["default"] == "solo"
    assert props["first_dealer"]["default"] == 0
    for prop in props.values():
        assert "HP-" in prop["description"]
    assert ENGINE.normalize_options(3, {}) == {
        "mode": "solo",
        "pawns_per_player": 2,
        "age_rank": [1, 2, 3],
        "first_dealer": 0,
        "white_pawn_timing": "before_first_bid",
        "forward_move_optional": False,
    }


@pytest.mark.parametrize(
    ("n", "options", "field"),
    [
        (5, {}, "num_players"),
        (3, {"mode": "team"}, "mode"),
        (4, {"mode": "duo"}, "mode"),
        (4, {"pawns_per_player": 3}, "pawns_per_player"),
        (4, {"age_rank": [1, 1, 2, 3]}, "age_rank"),
        (4, {"age_rank": [1, 2, 3]}, "age_rank"),
        (4, {"first_dealer": 4}, "first_dealer"),
        (4, {"white_pawn_timing": "later"}, "white_pawn_timing"),
        (4, {"forward_move_optional": "yes"}, "forward_move_optional"),
        (4, {"colour": "red"}, "colour"),
    ],
)
def test_invalid_options_name_the_field(n: int, options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidOptions) as err:
        ENGINE.normalize_options(n, options)
    assert err.value.field == field


def test_variants_cover_solo_team_and_quick() -> None:
    """Solo 2/3/4, team 2 v 2 and the quick version of each (HP-42, HP-43, HP-R22)."""
    seen = {(c.num_players, c.options["mode"], c.options["pawns_per_player"]) for c in ENGINE.variants()}
    assert seen == {(n, "solo", p) for n in (2, 3, 4) for p in (1, 2)} | {(4, "team", 1), (4, "team", 2)}


def test_teams() -> None:
    assert ENGINE.teams(config(4, mode="team")) == [[0, 2], [1, 3]]
    assert ENGINE.teams(config(4)) is None


def test_move_docs_name_the_spec_actions() -> None:
    docs = {m.type: m for m in ENGINE.moves()}
    assert set(docs) == {
        "choose_white_pawn",
        "bid",
        "discard",
        "play_card",
        "choose_pawn_move",
        "decline_move",
        "choose_penalty_pawn",
    }
    for doc in docs.values():
        assert doc.example["type"] == doc.type and doc.rules and doc.params["type"] == "object"


@pytest.mark.parametrize(
    "move",
    [
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "bid"},
        {"type": "bid", "n": None, "trump": "S"},
        {"type": "bid", "n": 2, "trump": ["S"]},
        {"type": "bid", "n": 2, "trump": "S", "extra": 1},
        {"type": "discard"},
        {"type": "play_card", "card": "11S"},
        {"type": "play_card", "card": 7},
        {"type": "choose_white_pawn", "use": "yes"},
        {"type": "choose_pawn_move", "pawn": None, "steps": "5"},
        {"type": "choose_penalty_pawn"},
        {"type": "decline_move"},
    ],
)
def test_malformed_moves_raise_illegal_move(move: dict[str, object]) -> None:
    for state in (new_game(4), white(new_game(4))):
        with pytest.raises(IllegalMove) as err:
            ENGINE.decide(state, state.white_offer if state.phase == "white_pawn" else state.turn or 0, move)
        assert err.value.rule.startswith("HP-") and err.value.message


def test_not_your_turn_and_while_dealing() -> None:
    state = new_game(4)
    with pytest.raises(IllegalMove):
        ENGINE.decide(state, 3, {"type": "choose_white_pawn", "use": True})
    cfg = config(4)
    undealt = ENGINE.initial_state(cfg)
    for event in ENGINE.opening_events(cfg):
        undealt = ENGINE.evolve(undealt, event)
    assert ENGINE.chance_request(undealt) is not None and ENGINE.to_move(undealt) == []
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(undealt, 1, {"type": "bid", "n": 2, "trump": "S"})
    assert err.value.rule == "HP-4"


@pytest.mark.parametrize(
    "cfg",
    ENGINE.variants(),
    ids=lambda c: f"{c.num_players}-{c.options['mode']}-{c.options['pawns_per_player']}",
)
def test_decide_accepts_exactly_the_listed_moves(cfg: GameConfig) -> None:
    """Every listed move is accepted; probes outside the list are refused; evolve never mutates."""
    rng = random.Random(7)
    state = new_game(cfg.num_players, **cfg.options)
    for _ in range(3):
        while ENGINE.chance_request(state) is None and ENGINE.outcome(state) is None:
            seat = ENGINE.to_move(state)[0]
            legal = ENGINE.legal_moves(state, seat)
            snapshot = ENGINE.full_view(state)
            for move in legal:
                ENGINE.decide(state, seat, move)
            assert ENGINE.full_view(state) == snapshot
            for probe in _probes(state, seat):
                if probe not in legal:
                    with pytest.raises(IllegalMove):
                        ENGINE.decide(state, seat, probe)
            for other in range(cfg.num_players):
                if other != seat:
                    assert ENGINE.legal_moves(state, other) == []
            move = rng.choice(legal)
            for event in ENGINE.decide(state, seat, move):
                state = ENGINE.evolve(state, event)
            assert ENGINE.full_view(state)["num_players"] == cfg.num_players
            assert ENGINE.invariants(state) == []
        if ENGINE.outcome(state) is not None:
            break
        state, _ = finish_round(state)


def _probes(state, seat):  # type: ignore[no-untyped-def]
    from services.games.engines.hoppaa.cards import deck

    out = [{"type": "choose_white_pawn", "use": u} for u in (True, False)]
    out += [{"type": "bid", "n": n} for n in range(0, 11)]
    out += [{"type": "bid", "n": n, "trump": t} for n in (1, 5) for t in ("S", "D", "none")]
    out += [{"type": "discard", "card": c} for c in deck(4)[::3]]
    out += [{"type": "play_card", "card": c} for c in deck(4)[::2]]
    out += [
        {"type": "choose_pawn_move", "pawn": p, "steps": s} for p in ("green", "red") for s in (1, 2, 5, 10)
    ]
    out += [{"type": "decline_move"}, {"type": "choose_penalty_pawn", "pawn": "green"}]
    return out
