"""The engine contract: options, move vocabulary, malformed moves, views and event redaction."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.engines.base import IllegalMove, InvalidOptions
from services.games.engines.paardenkoppen import PaardenkoppenEngine

from .helpers import ENGINE, A, B, arrange, config, deal_event, fold, legal, started


def test_identity_and_variants_cover_every_count_and_variant() -> None:
    assert PaardenkoppenEngine.game_type == "paardenkoppen"
    assert PaardenkoppenEngine.spec == "rules/paardenkoppen.md"
    variants = ENGINE.variants()
    assert {v.num_players for v in variants} == {3, 4, 5, 6}
    for key, value in (("six_rule", "immediate"), ("tie_rule", "play_on"), ("end_mode", "until_cannot_ante")):
        assert {v.num_players for v in variants if v.options[key] == value} == {3, 4, 5, 6}


def test_options_schema_defaults_and_rule_ids() -> None:
    props = ENGINE.options_schema()["properties"]
    defaults = {k: v["default"] for k, v in props.items()}
    assert defaults == {
        "end_mode": "fixed_rounds",
        "rounds": 10,
        "tie_rule": "share",
        "six_rule": "no_pass",
        "first_start_player": None,
    }
    assert all("PK-" in v["description"] for v in props.values())
    assert ENGINE.normalize_options(4, {}) == defaults


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"rounds": 0}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"end_mode": "forever"}, "end_mode"),
        ({"tie_rule": "coin"}, "tie_rule"),
        ({"six_rule": "never"}, "six_rule"),
        ({"first_start_player": 4}, "first_start_player"),
        ({"first_start_player": "0"}, "first_start_player"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_invalid_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidOptions) as err:
        ENGINE.normalize_options(4, options)
    assert err.value.field == field


def test_moves_are_named_after_the_spec_actions() -> None:
    docs = {m.type: m for m in ENGINE.moves()}
    assert set(docs) == {"play_card", "pass"}
    assert docs["play_card"].params["required"] == ["card"]
    assert "PK-15" in docs["pass"].rules and "PK-12" in docs["play_card"].rules


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ({"type": "draw"}, "unknown_move"),
        ({}, "unknown_move"),
        ({"type": "play_card"}, "bad_move"),
        ({"type": "play_card", "card": "horse-14"}, "unknown_card"),
        ({"type": "play_card", "card": 6}, "unknown_card"),
        ({"type": "play_card", "card": "cow-6", "extra": 1}, "bad_move"),
        ({"type": "pass", "card": "cow-6"}, "bad_move"),
        ({"type": "play_card", "card": "goat-6"}, "card_not_in_hand"),
    ],
)
def test_malformed_moves_raise_illegal_move(move: dict[str, Any], code: str) -> None:
    state = arrange(started(4), {}, {A: ["cow-6", "pig-2"]}, to_move=A)
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, A, move)
    assert err.value.code == code and err.value.rule.startswith("PK-") and err.value.message


def test_not_a_mapping_move() -> None:
    state = started(4)
    with pytest.raises(IllegalMove):
        ENGINE.decide(state, A, ["pass"])  # type: ignore[arg-type]


def test_decide_accepts_exactly_the_legal_moves_and_does_not_mutate() -> None:
    state = arrange(started(4), {"cow": (3, 9)}, {A: ["cow-2", "cow-10", "cow-1", "pig-6"]}, to_move=A)
    snapshot = ENGINE.full_view(state)
    moves = legal(state)
    assert sorted(m["card"] for m in moves) == ["cow-10", "cow-2", "pig-6"]
    for move in moves:
        assert ENGINE.decide(state, A, dict(move))
    assert ENGINE.full_view(state) == snapshot
    assert ENGINE.legal_moves(state, B) == []


def test_finished_game_rejects_moves() -> None:
    state = arrange(started(4), {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A, round_no=10)
    final = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"}))
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(final, B, {"type": "pass"})
    assert err.value.code == "game_over"
    assert ENGINE.to_move(final) == [] and ENGINE.chance_request(final) is None


def test_views_show_own_hand_only_and_spectators_none() -> None:
    state = started(4)
    full = ENGINE.full_view(state)
    assert full["num_players"] == 4 and len(full["hands"]) == 4
    for seat in range(4):
        view = ENGINE.view(state, seat)
        assert view["num_players"] == 4 and "hands" not in view
        assert view["hand"] == full["hands"][seat] and view["hand_sizes"] == [13] * 4
    spectator = ENGINE.view(state, None)
    assert spectator["hand"] is None and "hands" not in spectator
    assert ENGINE.view(state, A)["playable"] and ENGINE.view(state, B)["playable"] == []


def test_deal_event_redaction_hides_the_deck_order() -> None:
    cfg = config(4, first_start_player=0)
    before = fold(ENGINE.initial_state(cfg), ENGINE.opening_events(cfg))
    event = deal_event()
    after = ENGINE.evolve(before, event)
    for seat in (None, 0, 1, 2, 3):
        red = ENGINE.redact_event(event, seat, before, after)
        assert red["values"] == "hidden" and red["hand_sizes"] == [13] * 4
        assert red.get("hand") == (None if seat is None else ENGINE.view(after, seat)["hand"])
    public = {"type": "Passed", "seat": 1, "paid": 1}
    assert ENGINE.redact_event(public, 2, after, after) == public


def test_bad_events_are_rejected_by_evolve() -> None:
    state = started(4)
    with pytest.raises(ValueError):
        ENGINE.evolve(state, {"type": "mystery"})
    with pytest.raises(ValueError):
        ENGINE.evolve(state, {"type": "CardPlayed", "seat": 0, "card": "cow-99", "head_payout": 0})


def test_rules_table_is_complete() -> None:
    """RULES.md lists every rule id (PK-1..PK-24, R1..R18) with tests that exist in this folder."""
    import ast
    import re
    from pathlib import Path

    folder = Path(__file__).parent
    table = (folder / "RULES.md").read_text()
    rows = dict(re.findall(r"^\| (PK-\d+|R\d+) \| (.+) \|$", table, flags=re.MULTILINE))
    assert set(rows) == {f"PK-{k}" for k in range(1, 25)} | {f"R{k}" for k in range(1, 19)}
    names: set[str] = set()
    for path in folder.glob("test_*.py"):
        tree = ast.parse(path.read_text())
        names |= {f"{path.name}::{f.name}" for f in tree.body if isinstance(f, ast.FunctionDef)}
    for rule, cell in rows.items():
        for ref in cell.split(", "):
            assert ref in names, f"{rule}: {ref} is no test"
    examples = {n.split("::")[1].split("_")[2] for n in names if "::test_example_E" in n}
    assert examples == {f"E{k}" for k in range(1, 17)}
