"""One or more tests per numbered rule (PK-n) and Ruling (Rn) of rules/paardenkoppen.md."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove, InvalidOptions
from services.games.engines.paardenkoppen.cards import DECK_SIZE, card_id, deal_counts, make_card
from services.games.engines.paardenkoppen.state import PKState

from .helpers import (
    ENGINE,
    A,
    B,
    C,
    D,
    E,
    arrange,
    config,
    deal_event,
    drive,
    fold,
    legal,
    pass_turn,
    play,
    started,
    strings,
    with_turn,
)


def _decide_error(state: PKState, move: dict[str, object], seat: int | None = None) -> IllegalMove:
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, state.current_seat if seat is None else seat, move)
    return err.value


# --- table and chips ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 7, 0])
def test_PK_1_three_to_six_players(n: int) -> None:
    with pytest.raises(InvalidOptions) as err:
        ENGINE.normalize_options(n, {})
    assert err.value.rule == "PK-1"
    assert ENGINE.player_counts == (3, 4, 5, 6)


def test_PK_1_R10_left_is_next_clockwise_and_play_goes_left() -> None:
    state = started(4, start=D)
    assert state.dealer == C  # right of D
    assert state.current_seat == D
    after, _ = play(arrange(state, {}, {D: ["cow-6", "pig-1"]}, to_move=D), "cow-6")
    assert after.current_seat == A  # left of D = (3 + 1) mod 4


def test_PK_2_every_player_starts_with_210() -> None:
    # covers PK-2 (see RULES.md)
    state = ENGINE.initial_state(config(5))
    assert state.balances == [210] * 5


def test_PK_3_R1_R2_only_values_matter() -> None:
    """A balance of 23 antes 20 exactly: change is made freely (PK-3, R1); supply adds nothing (R2)."""
    base = started(4)
    state = arrange(
        base, {"pig": (6, 6)}, {A: ["pig-7"]}, balances=[23, 300, 257, 200], fields=[15] * 4, to_move=A
    )
    assert ENGINE.invariants(state) == []
    final = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-7"}))
    assert final.balances[A] == 23 - 20
    assert sum(final.balances) + sum(final.fields) + final.pot == 840


def test_PK_4_the_mat_holds_four_fields_and_a_pot() -> None:
    # covers PK-4 (see RULES.md)
    view = ENGINE.view(started(4), None)
    assert list(view["rows"]) == ["horse", "cow", "pig", "goat"]
    assert all("field" in row for row in view["rows"].values()) and view["pot"] == 0


# --- round start ---------------------------------------------------------------------------------


def test_PK_5_R9_start_player_from_config_or_recorded_draw() -> None:
    # covers PK-5 (see RULES.md)
    cfg = config(5, first_start_player=3)
    events = ENGINE.opening_events(cfg)
    assert events[1] == {"type": "StartPlayerChosen", "seat": 3, "dealer": 2}
    drawn = config(5)
    state = fold(ENGINE.initial_state(drawn), ENGINE.opening_events(drawn))
    request = ENGINE.chance_request(state)
    assert request is not None and (request.purpose, request.kind, request.n) == ("start_player", "pick", 5)
    pick = {"type": "ChanceResolved", **request.as_dict(), "counter": 0, "values": [0]}
    state = ENGINE.evolve(state, pick)
    assert (state.start_player, state.dealer, state.round_no) == (0, 4, 1)
    assert ENGINE.redact_event(pick, 2, state, state)["values"] == [0]  # the draw is public


def test_PK_6_antes_five_per_field_per_player_on_top_of_what_lies_there() -> None:
    # covers PK-6 (see RULES.md)
    state = started(5)
    assert state.fields == [25] * 4 and state.balances == [190] * 5
    carried = arrange(state, {"cow": (6, 6)}, {A: ["cow-7"]}, fields=[25, 7, 0, 40], to_move=A)
    nxt = fold(carried, ENGINE.decide(carried, A, {"type": "play_card", "card": "cow-7"}))
    assert nxt.fields == [50, 32, 25, 65]


def test_PK_7_R17_deal_one_at_a_time_from_the_start_player() -> None:
    values = list(reversed(range(DECK_SIZE)))
    state = started(5, start=C, values=values)
    for k, card in enumerate(values):
        assert card in state.hands[(C + k) % 5]
    for n in (3, 4, 5, 6):
        assert sum(deal_counts(n)) == DECK_SIZE
    request = ENGINE.chance_request(fold(ENGINE.initial_state(config(4, first_start_player=0)), []))
    assert request is not None and request.purpose == "start_player"


def test_PK_8_PK_20_round_start_clears_rows_and_pot_and_collects_cards() -> None:
    # covers PK-8 (see RULES.md)
    base = started(4)
    state = arrange(base, {"cow": (2, 9), "goat": (6, 6)}, {B: ["cow-10"]}, pot=5, to_move=B)
    nxt = fold(state, ENGINE.decide(state, B, {"type": "play_card", "card": "cow-10"}))
    assert nxt.round_no == 2 and nxt.pot == 0 and nxt.rows == [(), (), (), ()]
    assert nxt.deck == DECK_SIZE and all(h == () for h in nxt.hands)
    assert ENGINE.chance_request(nxt) is not None and ENGINE.to_move(nxt) == []
    dealt = ENGINE.evolve(nxt, deal_event(counter=1))
    assert sum(len(h) for h in dealt.hands) == DECK_SIZE and ENGINE.invariants(dealt) == []


# --- turns -----------------------------------------------------------------------------------------


def test_PK_9_start_player_first_then_one_action_per_turn() -> None:
    state = started(4, start=B)
    assert ENGINE.to_move(state) == [B]
    err = _decide_error(state, {"type": "pass"}, seat=C)
    assert (err.rule, err.code) == ("PK-9", "not_your_turn")
    move = legal(state)[0]
    events = ENGINE.decide(state, B, move)
    assert len(events) == 1 and fold(state, events).current_seat == C


def test_PK_10_rows_are_runs_containing_the_6() -> None:
    state = arrange(started(4), {"horse": (3, 9)}, {}, to_move=A)
    assert ENGINE.invariants(state) == []
    broken = state.clone()
    broken.rows[0] = (7, 8)
    broken.lows[0], broken.highs[0] = 7, 8
    problems = ENGINE.invariants(broken)
    assert any(p.startswith("PK-11") for p in problems) and any(p.startswith("PK-10") for p in problems)


def test_PK_11_own_row_only_6_opens_no_skipping() -> None:
    base = started(4)
    state = arrange(base, {"pig": (5, 7)}, {A: ["pig-8", "pig-4", "pig-9", "pig-2", "cow-5"]}, to_move=A)
    assert sorted(m["card"] for m in legal(state)) == ["pig-4", "pig-8"]
    assert _decide_error(state, {"type": "play_card", "card": "pig-9"}).rule == "PK-11"
    err = _decide_error(state, {"type": "play_card", "card": "cow-5"})
    assert (err.rule, err.code) == ("PK-11", "row_needs_six")


def test_PK_12_head_card_needs_the_1_and_the_card_below() -> None:
    base = started(4)
    ok = arrange(base, {"cow": (1, 11)}, {A: ["cow-12", "pig-1"]}, to_move=A)
    assert {"type": "play_card", "card": "cow-12"} in legal(ok)
    no_one = arrange(base, {"cow": (2, 11)}, {A: ["cow-12", "cow-1"]}, to_move=A)
    err = _decide_error(no_one, {"type": "play_card", "card": "cow-12"})
    assert (err.rule, err.code) == ("PK-12", "head_needs_one")
    assert "cow 1" in err.message


def test_PK_13_cards_above_the_head_card_are_normal() -> None:
    base = started(4)
    state = arrange(base, {"goat": (1, 9)}, {A: ["goat-11", "goat-10"]}, fields=[20] * 4, to_move=A)
    err = _decide_error(state, {"type": "play_card", "card": "goat-11"})
    assert (err.rule, err.code) == ("PK-13", "needs_card_below")
    pig = arrange(base, {"pig": (1, 12)}, {A: ["pig-13", "cow-1"]}, fields=[20] * 4, to_move=A)
    after, events = play(pig, "pig-13")
    assert events[0]["head_payout"] == 0 and after.highs[2] == 13
    full = arrange(base, {"horse": (1, 13)}, {}, fields=[0, 20, 20, 20], to_move=A)
    assert ENGINE.invariants(full) == []


def test_PK_14_R16_must_play_but_head_card_is_never_compulsory() -> None:
    base = started(4)
    state = arrange(
        base, {"horse": (1, 12), "cow": (6, 6)}, {A: ["horse-13", "cow-7"]}, fields=[20] * 4, to_move=A
    )
    assert sorted(m["card"] for m in legal(state)) == ["cow-7", "horse-13"]
    err = _decide_error(state, {"type": "pass"})
    assert (err.rule, err.code) == ("PK-14", "must_play")
    after, events = play(state, "cow-7")  # keeping the head card is allowed
    assert events[0]["head_payout"] == 0 and after.fields[0] == 20


def test_PK_15_R3_a_6_of_an_empty_row_forbids_passing() -> None:
    state = arrange(started(4), {}, {A: ["goat-6", "goat-1"]}, to_move=A)
    err = _decide_error(state, {"type": "pass"})
    assert (err.rule, err.code) == ("PK-15", "six_forbids_pass")
    immediate = arrange(
        started(4, six_rule="immediate"), {"cow": (6, 6)}, {A: ["goat-6", "cow-7"]}, to_move=A
    )
    assert legal(immediate) == [{"type": "play_card", "card": "goat-6"}]
    err = _decide_error(immediate, {"type": "play_card", "card": "cow-7"})
    assert (err.rule, err.code) == ("PK-15", "must_play_six")


def test_PK_16_R4_pass_pays_one_or_nothing_at_zero() -> None:
    # covers PK-16 (see RULES.md)
    base = started(4)
    state = arrange(base, {}, {A: ["cow-2"]}, pot=3, to_move=A)
    after, events = pass_turn(state)
    assert events[0]["paid"] == 1 and after.pot == 4 and after.balances[A] == state.balances[A] - 1
    broke = arrange(base, {}, {A: ["cow-2"]}, balances=[0, 300, 260, 200], to_move=A)
    after, events = pass_turn(broke)
    assert events[0]["paid"] == 0 and after.pot == 0 and after.passes[A] == 1


def test_PK_17_head_card_takes_the_field_until_next_antes() -> None:
    # covers PK-17 (see RULES.md)
    base = started(4)
    state = arrange(base, {"horse": (1, 12)}, {A: ["horse-13", "cow-1"]}, fields=[55, 20, 20, 20], to_move=A)
    after, events = play(state, "horse-13")
    assert events[0]["head_payout"] == 55 and after.fields[0] == 0
    assert after.balances[A] == state.balances[A] + 55 and ENGINE.invariants(after) == []


def test_PK_18_R11_head_payout_then_pot_and_nobody_plays_on() -> None:
    base = started(3)
    state = arrange(base, {"goat": (1, 9)}, {C: ["goat-10"]}, fields=[15, 15, 15, 30], pot=4, to_move=C)
    events = ENGINE.decide(state, C, {"type": "play_card", "card": "goat-10"})
    assert events[0]["head_payout"] == 30 and events[1] == {
        "type": "RoundEnded",
        "seat_out": C,
        "pot_payout": 4,
    }
    mid = fold(state, events[:1])
    assert mid.round_over and ENGINE.to_move(mid) == [] and ENGINE.invariants(mid) == []


def test_PK_19_unclaimed_fields_carry_over() -> None:
    # covers PK-19 (see RULES.md)
    base = started(4)
    state = arrange(base, {"pig": (6, 6)}, {A: ["pig-5"]}, fields=[0, 20, 60, 20], to_move=A)
    nxt = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"}))
    assert nxt.fields == [20, 40, 80, 40]


def test_PK_20_rotation_dealer_is_old_start_player() -> None:
    # covers PK-20 (see RULES.md)
    base = started(6, start=E)
    state = arrange(base, {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A)
    events = ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"})
    assert events[2] == {"type": "RoundStarted", "round_no": 2, "dealer": E, "start_player": 5}


# --- game end ----------------------------------------------------------------------------------------


def test_PK_21_R5_R6_fixed_rounds_and_until_cannot_ante() -> None:
    # covers PK-21 (see RULES.md)
    assert ENGINE.options_schema()["properties"]["rounds"]["default"] == 10
    three = arrange(started(4, rounds=3), {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A, round_no=3)
    assert ENGINE.decide(three, A, {"type": "play_card", "card": "pig-5"})[-1]["reason"] == "rounds_done"
    endless = arrange(
        started(4, rounds=3, end_mode="until_cannot_ante"), {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A
    )
    endless = arrange(endless, {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A, round_no=30)
    assert ENGINE.decide(endless, A, {"type": "play_card", "card": "pig-5"})[-1]["type"] == "AntesPaid"
    # exactly 20 can still ante; 19 cannot
    ok = arrange(
        started(4), {"pig": (6, 6)}, {A: ["pig-5"]}, balances=[20, 300, 300, 200], fields=[5] * 4, to_move=A
    )
    assert ENGINE.decide(ok, A, {"type": "play_card", "card": "pig-5"})[-1]["type"] == "AntesPaid"
    low = arrange(
        started(4), {"pig": (6, 6)}, {B: ["pig-5"]}, balances=[19, 300, 300, 201], fields=[5] * 4, to_move=B
    )
    assert ENGINE.decide(low, B, {"type": "play_card", "card": "pig-5"})[-1]["reason"] == "cannot_ante"


def test_PK_22_R13_score_is_balance_fields_belong_to_nobody() -> None:
    # covers PK-22 (see RULES.md)
    state = arrange(
        started(4),
        {"pig": (6, 6)},
        {A: ["pig-5"]},
        fields=[30, 30, 30, 30],
        balances=[200, 180, 170, 170],
        to_move=A,
        round_no=10,
    )
    final = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"}))
    outcome = ENGINE.outcome(final)
    assert outcome is not None
    assert outcome.scores == [200.0, 180.0, 170.0, 170.0] and outcome.ranks == [1, 2, 3, 3]
    assert final.winners == [A] and sum(final.fields) == 120


def test_PK_23_R7_play_on_stopped_by_cannot_ante_shares() -> None:
    # covers PK-23 (see RULES.md)
    state = arrange(
        started(4, tie_rule="play_on"),
        {"pig": (6, 6)},
        {C: ["pig-5"]},
        fields=[0] * 4,
        balances=[300, 300, 230, 10],
        to_move=C,
        round_no=10,
    )
    events = ENGINE.decide(state, C, {"type": "play_card", "card": "pig-5"})
    assert events[-1]["type"] == "GameEnded" and events[-1]["reason"] == "cannot_ante"
    assert events[-1]["winners"] == [A, B]


def test_PK_24_chip_value_is_conserved_and_checked() -> None:
    state = started(6)
    assert sum(state.balances) + sum(state.fields) + state.pot == 210 * 6
    broken = state.clone()
    broken.balances[0] += 1
    assert any(p.startswith("PK-24") for p in ENGINE.invariants(broken))
    leak = state.clone()
    leak.fields[0] -= 3
    leak.pot += 3
    assert any("pot changed" in p or "row fields" in p for p in ENGINE.invariants(leak))


# --- rulings not covered above ------------------------------------------------------------------------


def test_R8_round_start_order_check_antes_deal_turn() -> None:
    events = ENGINE.opening_events(config(4, first_start_player=1))
    assert [e["type"] for e in events] == [
        "GameConfigured",
        "StartPlayerChosen",
        "RoundStarted",
        "AntesPaid",
    ]
    state = fold(ENGINE.initial_state(config(4, first_start_player=1)), events)
    request = ENGINE.chance_request(state)
    assert request is not None and request.kind == "shuffle" and ENGINE.to_move(state) == []


def test_R12_leftover_hands_stay_hidden_after_the_round_and_the_game() -> None:
    state = arrange(started(4), {"pig": (6, 6)}, {A: ["pig-5"]}, to_move=A, round_no=10)
    final = fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"}))
    assert ENGINE.outcome(final) is not None
    for seat in (None, A, B, C, D):
        view = ENGINE.view(final, seat)
        assert "hands" not in view
        own = [] if seat is None else [card_id(c) for c in final.hands[seat]]
        assert (view["hand"] or []) == own
        others = {card_id(c) for s, hand in enumerate(final.hands) if s != seat for c in hand}
        assert others and not others & strings(view)
    # the host shows full_view to everyone once the game has ended: no leftover hand in it either
    full = ENGINE.full_view(final)
    assert full["hands"] is None and full["hand_sizes"] == [len(h) for h in final.hands]
    assert not {card_id(c) for hand in final.hands for c in hand} & strings(full)


def test_R14_placement_only_rows_are_low_to_high() -> None:
    view = ENGINE.view(arrange(started(4), {"horse": (3, 9)}, {}, to_move=A), A)
    horse = view["rows"]["horse"]
    assert (horse["low"], horse["high"]) == (3, 9)
    assert horse["cards"] == [f"horse-{r}" for r in range(3, 10)]


def test_R15_the_1_must_be_in_the_current_rounds_row() -> None:
    base = started(4)
    state = arrange(base, {"goat": (1, 9), "pig": (6, 6)}, {A: ["pig-5"]}, to_move=A)
    nxt = ENGINE.evolve(
        fold(state, ENGINE.decide(state, A, {"type": "play_card", "card": "pig-5"})), deal_event()
    )
    assert nxt.rows[3] == ()
    holder = next(s for s in range(4) if make_card(3, 10) in nxt.hands[s])
    assert {"type": "play_card", "card": "goat-10"} not in legal(with_turn(nxt, holder))


def test_R18_some_player_can_always_play_and_stalls_are_flagged() -> None:
    seen: list[bool] = []

    def check(event: dict[str, object], before: PKState, after: PKState) -> None:
        if ENGINE.to_move(after):
            seats = [s for s in range(after.num_players) if after.hands[s]]
            moves = [ENGINE.legal_moves(with_turn(after, s), s)[0] for s in seats]
            seen.append(any(m["type"] == "play_card" for m in moves))

    for seed in range(5):
        final, _, _ = drive(config(4), seed, on_event=check)
        assert ENGINE.outcome(final) is not None
    assert seen and all(seen)
    stalled = arrange(started(4), {"horse": (2, 12)}, {A: ["horse-13"], B: ["horse-1"]}, to_move=A)
    stalled.hands = [(make_card(0, 13),), (), (), ()]
    assert any(p.startswith("R18") for p in ENGINE.invariants(stalled))
