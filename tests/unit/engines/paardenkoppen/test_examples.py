"""The worked examples E1-E16 of rules/paardenkoppen.md §5, one test each."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.paardenkoppen.cards import ANIMALS, make_card
from services.games.engines.paardenkoppen.rules import is_playable
from services.games.engines.paardenkoppen.state import PKState

from .helpers import (
    ENGINE,
    A,
    B,
    C,
    D,
    E,
    F,
    arrange,
    config,
    deal_event,
    drive,
    fold,
    legal,
    pass_turn,
    play,
    started,
    with_turn,
)


def _plays(state: PKState) -> list[str]:
    return [m["card"] for m in legal(state) if m["type"] == "play_card"]


def test_example_E1_dealing_counts_from_the_start_player() -> None:
    three = started(3, start=B)
    assert three.dealer == A
    assert [len(three.hands[s]) for s in (B, C, A)] == [18, 17, 17]
    four = started(4, start=A)
    assert [len(h) for h in four.hands] == [13, 13, 13, 13]
    five = started(5, start=A)
    assert [len(h) for h in five.hands] == [11, 11, 10, 10, 10]
    six = started(6, start=A)
    assert [len(six.hands[s]) for s in (A, B, C, D, E, F)] == [9, 9, 9, 9, 8, 8]


def test_example_E2_ante_round_one() -> None:
    state = started(4)
    assert state.balances == [190] * 4
    assert state.fields == [20, 20, 20, 20]
    assert state.pot == 0
    # R1: a player with no 5-chips just pays value 20 - denominations are not modelled.
    view = ENGINE.view(state, A)
    assert view["balances"] == [190] * 4 and all(r["field"] == 20 for r in view["rows"].values())


def test_example_E3_only_the_6_opens_a_row() -> None:
    base = started(4, start=B)
    no_six = ["horse-2", "cow-4", "pig-9", "goat-13"]
    c_hand = ["horse-6", "cow-3", "goat-12"]
    state = arrange(base, {}, {B: no_six, C: c_hand}, to_move=B)
    assert legal(state) == [{"type": "pass"}]
    state, events = pass_turn(state)
    assert events == [{"type": "Passed", "seat": B, "paid": 1}]
    assert state.pot == 1 and state.current_seat == C
    assert ENGINE.invariants(state) == []
    assert legal(state) == [{"type": "play_card", "card": "horse-6"}]
    for bad in ("cow-3", "goat-12"):
        with pytest.raises(IllegalMove) as err:
            ENGINE.decide(state, C, {"type": "play_card", "card": bad})
        assert err.value.rule == "PK-11"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "pass"})
    assert err.value.rule == "PK-15"


def test_example_E4_building_without_skipping() -> None:
    base = started(4)
    hand = ["horse-5", "horse-7", "horse-8", "horse-4"]
    state = arrange(base, {"horse": (6, 6)}, {A: hand}, to_move=A)
    assert sorted(_plays(state)) == ["horse-5", "horse-7"]
    for bad in ("horse-8", "horse-4"):
        with pytest.raises(IllegalMove) as err:
            ENGINE.decide(state, A, {"type": "play_card", "card": bad})
        assert err.value.rule == "PK-11" and err.value.code == "not_adjacent"
    state = arrange(base, {"horse": (3, 9)}, {A: ["horse-1", "horse-2", "horse-10", "horse-11"]}, to_move=A)
    assert sorted(_plays(state)) == ["horse-10", "horse-2"]


def test_example_E5_head_card_conditions() -> None:
    base = started(4)
    cases = [
        ("goat", (6, 9), "goat-10", "head_needs_one"),
        ("horse", (2, 12), "horse-13", "head_needs_one"),
        ("cow", (1, 10), "cow-12", "head_needs_card_below"),
    ]
    for animal, bounds, card, code in cases:
        state = arrange(base, {animal: bounds}, {A: [card, "pig-1"]}, to_move=A)
        with pytest.raises(IllegalMove) as err:
            ENGINE.decide(state, A, {"type": "play_card", "card": card})
        assert (err.value.rule, err.value.code) == ("PK-12", code), card
    goat = arrange(base, {"goat": (1, 9)}, {A: ["goat-10", "pig-1"]}, fields=[20, 20, 20, 20], to_move=A)
    after, events = play(goat, "goat-10")
    assert events[0]["head_payout"] == 20
    assert after.balances[A] == goat.balances[A] + 20 and after.fields[3] == 0
    horse = arrange(base, {"horse": (1, 12)}, {A: ["horse-13", "pig-1"]}, to_move=A)
    assert _plays(horse) == ["horse-13"]


def test_example_E6_must_play_else_pass() -> None:
    base = started(4)
    rows = {"goat": (1, 8), "cow": (3, 7), "horse": (4, 12)}
    state = arrange(base, rows, {C: ["goat-10", "cow-2", "horse-13"]}, to_move=C)
    for card, code in (("goat-10", "head_needs_card_below"), ("horse-13", "head_needs_one")):
        with pytest.raises(IllegalMove) as err:
            ENGINE.decide(state, C, {"type": "play_card", "card": card})
        assert (err.value.rule, err.value.code) == ("PK-12", code)
    assert legal(state) == [{"type": "play_card", "card": "cow-2"}]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "pass"})
    assert err.value.rule == "PK-14"
    blocked = arrange(base, {**rows, "cow": (4, 7)}, {C: ["goat-10", "cow-2", "horse-13"]}, to_move=C)
    assert legal(blocked) == [{"type": "pass"}]
    after, events = pass_turn(blocked)
    assert events == [{"type": "Passed", "seat": C, "paid": 1}] and after.pot == blocked.pot + 1


def test_example_E7_round_end_and_pot() -> None:
    base = started(4)
    state = arrange(base, {"cow": (6, 7)}, {D: ["cow-8"]}, pot=7, to_move=D)
    before = state.balances[D]
    events = ENGINE.decide(state, D, {"type": "play_card", "card": "cow-8"})
    assert [e["type"] for e in events] == ["CardPlayed", "RoundEnded", "RoundStarted", "AntesPaid"]
    assert events[1] == {"type": "RoundEnded", "seat_out": D, "pot_payout": 7}
    ended = fold(state, events[:2])
    assert ended.balances[D] == before + 7 and ended.pot == 0
    assert ENGINE.to_move(ended) == []  # nobody else plays
    assert ENGINE.invariants(ended) == []


def test_example_E8_carry_over() -> None:
    base = started(4)
    assert base.fields[ANIMALS.index("goat")] == 20
    state = arrange(base, {"goat": (6, 9)}, {A: ["goat-5"]}, fields=[20, 20, 20, 20], to_move=A)
    round2 = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "goat-5"}))
    assert round2.round_no == 2 and round2.fields[3] == 40
    round2 = ENGINE.evolve(round2, deal_event(counter=1))
    play_at = arrange(round2, {"goat": (1, 9)}, {B: ["goat-10", "cow-1"]}, to_move=B)
    after, events = play(play_at, "goat-10")
    assert events[0]["head_payout"] == 40 and after.balances[B] == play_at.balances[B] + 40


def test_example_E9_rotation() -> None:
    cfg = config(4, first_start_player=C)
    _, log, _ = drive(cfg, 9, stop=lambda s: s.round_no > 3)
    rounds = [e for e in log if e["type"] == "RoundStarted"]
    seen = [(e["round_no"], e["dealer"], e["start_player"]) for e in rounds[:3]]
    assert seen == [(1, B, C), (2, C, D), (3, D, A)]


def test_example_E10_ten_rounds() -> None:
    base = started(4)
    assert base.options["rounds"] == 10
    state = arrange(base, {"pig": (6, 6)}, {A: ["pig-7"]}, to_move=A, round_no=10)
    events = ENGINE.decide(state, A, {"type": "play_card", "card": "pig-7"})
    assert events[-1]["type"] == "GameEnded" and events[-1]["reason"] == "rounds_done"
    final = fold(state, events)
    outcome = ENGINE.outcome(final)
    assert outcome is not None and outcome.scores == [float(b) for b in final.balances]
    nine = arrange(base, {"pig": (6, 6)}, {A: ["pig-7"]}, to_move=A, round_no=9)
    assert ENGINE.decide(nine, A, {"type": "play_card", "card": "pig-7"})[-1]["type"] == "AntesPaid"


def test_example_E11_the_6_rule() -> None:
    base = started(4)
    rows = {"horse": (5, 8)}
    state = arrange(base, rows, {A: ["cow-6", "horse-9"]}, to_move=A)
    assert sorted(_plays(state)) == ["cow-6", "horse-9"]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, A, {"type": "pass"})
    assert err.value.rule == "PK-15"
    after, _ = play(state, "horse-9")  # A may keep cow 6 (the seed's tip)
    assert after.hands[A] == (make_card(1, 6),)
    strict = arrange(started(4, six_rule="immediate"), rows, {A: ["cow-6", "horse-9"]}, to_move=A)
    assert _plays(strict) == ["cow-6"]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(strict, A, {"type": "play_card", "card": "horse-9"})
    assert (err.value.rule, err.value.code) == ("PK-15", "must_play_six")


def test_example_E12_after_the_head_card() -> None:
    base = started(4)
    state = arrange(base, {"goat": (1, 10)}, {A: ["goat-11", "goat-12", "goat-13", "pig-1"]}, to_move=A)
    for card in ("goat-11", "goat-12", "goat-13"):
        state, events = play(with_turn(state, A), card)
        assert events[0]["head_payout"] == 0
    assert (state.lows[3], state.highs[3]) == (1, 13)
    cow = arrange(base, {"cow": (1, 12)}, {A: ["cow-13", "pig-1"]}, fields=[20, 20, 20, 20], to_move=A)
    after, events = play(cow, "cow-13")
    assert events[0]["head_payout"] == 0 and after.fields[1] == 20
    pig = arrange(base, {"pig": (1, 11)}, {A: ["pig-12", "cow-1"]}, to_move=A)
    assert _plays(pig) == ["pig-12"]
    horse_full = arrange(base, {"horse": (1, 13)}, {}, to_move=A)
    assert not any(is_playable(c, horse_full.lows, horse_full.highs) for c in range(13))


def test_example_E13_head_card_as_the_last_card() -> None:
    base = started(3)
    assert base.fields == [15, 15, 15, 15]
    state = arrange(base, {"pig": (1, 10)}, {B: ["pig-11"]}, fields=[15, 15, 45, 15], pot=6, to_move=B)
    before = state.balances[B]
    events = ENGINE.decide(state, B, {"type": "play_card", "card": "pig-11"})
    assert events[0] == {"type": "CardPlayed", "seat": B, "card": "pig-11", "head_payout": 45}
    assert events[1] == {"type": "RoundEnded", "seat_out": B, "pot_payout": 6}
    ended = fold(state, events[:2])
    assert ended.balances[B] == before + 51


def test_example_E14_pass_with_no_chips() -> None:
    base = started(4)
    state = arrange(base, {}, {C: ["horse-1", "cow-2"]}, balances=[290, 260, 0, 290 - 40], pot=0, to_move=C)
    after, events = pass_turn(state)
    assert events == [{"type": "Passed", "seat": C, "paid": 0}]
    assert after.pot == 0 and after.balances[C] == 0 and after.current_seat == D


@pytest.mark.parametrize("end_mode", ["fixed_rounds", "until_cannot_ante"])
def test_example_E15_cannot_ante(end_mode: str) -> None:
    base = started(4, end_mode=end_mode)
    state = arrange(
        base, {"cow": (6, 6)}, {A: ["cow-7"]}, balances=[300, 200, 15, 245], to_move=A, round_no=6
    )
    events = ENGINE.decide(state, A, {"type": "play_card", "card": "cow-7"})
    assert [e["type"] for e in events] == ["CardPlayed", "RoundEnded", "GameEnded"]
    assert events[-1]["reason"] == "cannot_ante"
    final = fold(state, events)
    assert final.round_no == 6 and final.balances[C] == 15  # round 7 not played, no antes
    assert ENGINE.outcome(final) is not None


def test_example_E16_tie_share_and_play_on() -> None:
    balances = [260, 200, 120, 260]
    share = arrange(
        started(4), {"cow": (6, 6)}, {B: ["cow-7"]}, fields=[0] * 4, balances=balances, to_move=B, round_no=10
    )
    assert ENGINE.invariants(share) == []
    final = fold(share, ENGINE.decide(share, B, {"type": "play_card", "card": "cow-7"}))
    assert final.winners == [A, D]
    outcome = ENGINE.outcome(final)
    assert outcome is not None and outcome.ranks == [1, 3, 4, 1] and outcome.reason == "rounds_done"

    base = started(4, tie_rule="play_on")
    on = arrange(
        base, {"cow": (6, 6)}, {B: ["cow-7"]}, fields=[0] * 4, balances=balances, to_move=B, round_no=10
    )
    events = ENGINE.decide(on, B, {"type": "play_card", "card": "cow-7"})
    assert [e["type"] for e in events][-2:] == ["RoundStarted", "AntesPaid"]
    assert events[-2]["round_no"] == 11
    r11 = fold(on, events)
    r11 = ENGINE.evolve(r11, deal_event(counter=1))
    # round 11: A goes out and takes the pot; A alone is highest -> A wins
    bal11 = [240, 180, 99, 240]
    last = arrange(
        r11, {"cow": (6, 6)}, {A: ["cow-7"]}, fields=[20, 20, 20, 20], balances=bal11, pot=1, to_move=A
    )
    assert ENGINE.invariants(last) == []
    final = fold(last, ENGINE.decide(last, A, {"type": "play_card", "card": "cow-7"}))
    assert final.winners == [A] and final.end_reason == "tie_resolved"
    # if the tie for highest remains after round 11, round 12 follows
    bal11 = [240, 180, 100, 240]
    still = arrange(
        r11, {"cow": (6, 6)}, {B: ["cow-7"]}, fields=[20, 20, 20, 20], balances=bal11, pot=0, to_move=B
    )
    assert ENGINE.invariants(still) == []
    events = ENGINE.decide(still, B, {"type": "play_card", "card": "cow-7"})
    assert events[-2]["type"] == "RoundStarted" and events[-2]["round_no"] == 12
