"""Rule-by-rule tests for rules/roparun.md: every RR, B and R id is named in a test here or in
test_examples.py (see RULES.md)."""

from __future__ import annotations

import pytest

from services.games.engines.base import GameConfig, InvalidOptions
from services.games.engines.roparun.board import OFF
from services.games.engines.roparun.rules import order_defect
from services.games.engines.roparun.state import DEALER_DRAW, SHUFFLE

from .helpers import (
    BLUE,
    ENGINE,
    GREEN,
    RED,
    YELLOW,
    apply,
    config,
    defect,
    enter,
    force_turn_end,
    move,
    play,
    position,
    rejected,
    run_cycle,
    shuffle,
    split,
    swap,
    where,
)

# --- players, seats, direction ----------------------------------------------------------------


def test_RR1_one_team_per_player_two_to_four_players() -> None:
    """RR-1, R10: 2-4 players, each owns exactly one team of four pawns."""
    for bad in (1, 5):
        with pytest.raises(InvalidOptions) as info:
            ENGINE.normalize_options(bad, {})
        assert info.value.rule == "RR-1"
    for n in (2, 3, 4):
        state = ENGINE.initial_state(config(n))
        assert len(state.pawns) == n and all(len(team) == 4 for team in state.pawns)
        assert len(ENGINE.view(state, None)["teams"]) == n


def test_RR2_turns_pass_to_the_left() -> None:
    """RR-2, R11: after seat X's turn, seat (X+1) mod n plays."""
    state = shuffle(ENGINE.initial_state(config(4, first_dealer=2)))
    assert state.current == 3
    seen = [state.current]
    for _ in range(3):
        state, _events = force_turn_end(state)
        seen.append(state.current)
    assert seen == [3, 0, 1, 2]


def test_RR3_forward_is_clockwise() -> None:
    """RR-3, B-1: forward raises the square number and wraps from N-1 to 0."""
    state = position(pawns={BLUE: {"car": 59}}, hands={BLUE: ["5C"], RED: ["5H"]}, current=BLUE)
    assert where(apply(state, BLUE, move("5C", "car"))[0], BLUE, "car") == 0
    red = position(hands={RED: ["5H"]})
    assert where(apply(red, RED, move("5H", "c2"))[0], RED, "c2") == 8


# --- dealing ----------------------------------------------------------------------------------


def test_RR4_dealer_draw_reshuffles_when_the_deck_runs_out() -> None:
    """RR-4, R12: tied lowest players redraw; if the deck runs out they redraw after a reshuffle."""
    state = ENGINE.initial_state(config(2))
    # Every pair of draws ties (AC/AD, AH/AS, 2C/2D, ...): 26 tied rounds exhaust the deck.
    ties = [s * 13 + r for r in range(13) for s in range(4)]
    state = shuffle(state, ties)
    assert state.stage == DEALER_DRAW and state.draw_contenders == [0, 1]
    assert len(ENGINE.view(state, None)["dealer_draws"]) == 26
    request = ENGINE.chance_request(state)
    assert request is not None and request.purpose == "dealer_draw"
    state = shuffle(state, [1, 0, *list(range(2, 52))])  # 2C to seat 0, AC to seat 1
    assert state.dealer == 1 and state.stage == SHUFFLE


def test_RR4_first_dealer_option_replaces_the_draw() -> None:
    """RR-4: config first_dealer skips the draw."""
    state = ENGINE.initial_state(config(3, first_dealer=1))
    assert state.stage == SHUFFLE and state.dealer == 1
    request = ENGINE.chance_request(state)
    assert request is not None and request.purpose == "deal" and request.n == 39


def test_RR5_later_deals_come_from_the_remaining_stock() -> None:
    """RR-5, R31: one shuffle per cycle; the next deal takes the next cards of the stock."""
    state = shuffle(ENGINE.initial_state(config(4, first_dealer=0)))
    stock = list(state.stock)
    for _ in range(4):
        state, events = force_turn_end(state)
    dealt = [e for e in events if e["type"] == "CardsDealt"]
    assert len(dealt) == 1
    assert sorted(c for h in dealt[0]["hands"] for c in h) == sorted(stock[:16])


def test_RR6_RR7_deal_sizes_one_card_at_a_time_from_the_left_of_the_dealer() -> None:
    """RR-6, RR-7, R8, R9: 5 each, one at a time from the dealer's left; 3 players use 39 cards."""
    state = shuffle(ENGINE.initial_state(config(4, first_dealer=0)))  # canonical order AC, 2C, ...
    assert state.hands[1] == ["AC", "5C", "9C", "KC", "4D"]
    assert state.hands[0] == ["4C", "8C", "QC", "3D", "7D"]
    three = ENGINE.initial_state(config(3, first_dealer=0))
    assert len(three.deck) == 39 and {c[-1] for c in three.deck} == {"C", "D", "H"}


def test_RR8_dealer_passes_left_when_the_stock_is_empty_and_per_deal() -> None:
    """RR-8, R7: per_deck keeps the dealer for the cycle; per_deal passes it after every deal."""
    state = shuffle(ENGINE.initial_state(config(4, first_dealer=0)))
    state, log = run_cycle(state)
    assert [e["dealer"] for e in log if e["type"] == "CardsDealt"] == [0, 0]
    assert state.dealer == 1 and sorted(state.stock) == sorted(state.deck)
    per_deal = shuffle(ENGINE.initial_state(config(4, first_dealer=0, dealer_rotation="per_deal")))
    per_deal, log = run_cycle(per_deal)
    assert [e["dealer"] for e in log if e["type"] == "CardsDealt"] == [1, 2]
    assert [len(h) for e in log if e["type"] == "CardsDealt" for h in e["hands"]] == [4] * 8
    ended = [e for e in log if e["type"] == "CycleEnded"]
    assert ended[0]["new_dealer"] == 3 and per_deal.dealer == 3  # dealer of the 3rd deal passed on
    per_deal = shuffle(per_deal)
    assert per_deal.current == 0 and [len(h) for h in per_deal.hands] == [5] * 4


# --- deals and turns --------------------------------------------------------------------------


def test_RR9_each_player_one_turn_per_deal() -> None:
    """RR-9, R1, R31: left of the dealer first, one turn each clockwise, then the deal ends."""
    state = shuffle(ENGINE.initial_state(config(4, first_dealer=1)))
    seats = []
    events: list[dict[str, object]] = []
    for _ in range(4):
        seats.append(state.current)
        state, events = force_turn_end(state)
    assert seats == [2, 3, 0, 1]
    assert [e["type"] for e in events[:3]] == ["TurnEnded", "DealEnded", "CardsDealt"]
    assert state.current == 2 and state.deal_no == 2


def test_RR10_cards_played_one_at_a_time_from_the_hand() -> None:
    """RR-10: a card must be in the hand; each play is executed before the next."""
    state = position(hands={RED: ["5H", "3H"]})
    rejected(state, RED, move("5C", "c2"), "RR-10")
    rejected(state, RED, move("ZZ", "c2"), "RR-10")
    rejected(state, RED, {"type": "dance"}, "RR-10")
    state, _ = apply(state, RED, move("5H", "c2"))
    assert state.plays_this_turn == 1 and state.hands[RED] == ["3H"] and where(state, RED, "c2") == 8


def test_RR11_at_least_one_play_then_stop_or_while_possible() -> None:
    """RR-11, R2: end_turn only after a play; with while_possible never while a play is legal."""
    state = position(hands={RED: ["5H", "3H"]})
    rejected(state, RED, {"type": "end_turn"}, "RR-11")
    after, _ = apply(state, RED, move("5H", "c2"))
    assert {"type": "end_turn"} in ENGINE.legal_moves(after, RED)
    rejected(after, RED, {"type": "end_turn", "now": True}, "RR-11")
    strict = position(hands={RED: ["5H", "3H"]}, obligation="while_possible")
    strict, _ = apply(strict, RED, move("5H", "c2"))
    rejected(strict, RED, {"type": "end_turn"}, "RR-11")


def test_RR12_turn_ends_when_the_hand_is_empty() -> None:
    """RR-12: the last card ends the turn automatically (also: no legal play, see W13)."""
    state = position(hands={RED: ["5H"], BLUE: ["5C"]})
    state, events = apply(state, RED, move("5H", "c2"))
    assert events[1] == {"type": "TurnEnded", "seat": RED, "reason": "hand_empty", "discarded_count": 0}
    assert state.current == BLUE


def test_RR13_RR14_discards_and_one_pawn_moved_twice() -> None:
    """RR-13, RR-14, R29: played cards face up, leftovers face down; a pawn moves in several plays."""
    state = position(hands={RED: ["5H", "3H", "KH"]})
    state, _ = apply(state, RED, move("5H", "c2"))
    state, _ = apply(state, RED, move("3H", "c2"))
    assert where(state, RED, "c2") == 11
    state, _ = apply(state, RED, {"type": "end_turn"})
    view = ENGINE.view(state, BLUE)
    assert view["discard_face_up"] == ["5H", "3H"] and view["discard_face_down_count"] == 1
    assert "KH" not in str(ENGINE.view(state, RED)) and "KH" in ENGINE.full_view(state)["discard_face_down"]


# --- card effects and moving -----------------------------------------------------------------


def test_RR15_a_card_is_used_in_full() -> None:
    """RR-15, R15: exact steps only; a card with no legal use cannot be played or thrown away."""
    state = position(pawns={RED: {"c1": 55, "r": 58, "c2": 60}}, hands={RED: ["5H", "AH", "QH"]})
    rejected(state, RED, play("5H", move="c2", steps=3), "RR-15")
    rejected(state, RED, move("AH", "c2", 5), "RR-15")
    rejected(state, RED, play("5H"), "RR-15")
    rejected(state, RED, play("5H", discard=True), "RR-15")
    rejected(state, RED, play("KH", move="c2"), "RR-10")  # not in hand
    rejected(state, RED, move("QH", "c2"), "RR-17")  # 60 + 12 = 72 > N+3, no partial use
    assert not any(
        m.get("card") == "QH" and m["action"]["move"] == "c2" for m in ENGINE.legal_moves(state, RED)
    )


def test_RR16_cards_act_on_own_pawns_and_off_route_pawns_only_enter() -> None:
    """RR-16: pawn names are own pawns; an off-route pawn can only be entered, with K or A."""
    state = position(hands={RED: ["5H", "7H", "KH"]})
    rejected(state, RED, move("5H", "car"), "RR-16")
    rejected(state, RED, move("5H", "blue_r"), "RR-16")
    rejected(state, RED, play("5H", enter=[{"pawn": "car", "slot": 0}]), "RR-16")
    rejected(state, RED, play("KH", move="c2"), "RR-15")


def test_RR17_B6_B7_finish_column_by_exact_count_no_second_lap() -> None:
    """RR-17, B-6, B-7, R26: progress N-1 + 1 step = F1; beyond F4 is illegal; no second lap."""
    # The runner on the last square (progress 63) is ahead of both cyclists: D (0,1,13).
    state = position(pawns={RED: {"c1": 40, "r": 63, "c2": 50}}, hands={RED: ["AH", "3H"]})
    assert ENGINE.view(state, None)["teams"][RED]["pawns"]["r"]["progress"] == 63
    after, _ = apply(state, RED, move("AH", "r", 1))
    assert where(after, RED, "r") == "F1" and defect(after, RED) == [0, 0, 0]
    assert where(apply(state, RED, move("3H", "r"))[0], RED, "r") == "F3"
    rejected(state, RED, move("AH", "r", 11), "RR-17")  # 63 + 11 = 74 > 67: no second lap


def test_RR18_RR24_no_backward_from_start_or_in_the_finish_column() -> None:
    """RR-18, RR-24, R28: a 4 never leaves the lap and never moves a pawn in the column."""
    state = position(pawns={RED: {"r": "F1", "c1": 2, "c2": 30, "car": 20}}, hands={RED: ["4H"]})
    rejected(state, RED, move("4H", "r"), "RR-24")
    rejected(state, RED, move("4H", "c1"), "RR-18")
    assert where(apply(state, RED, move("4H", "c2"))[0], RED, "c2") == 26


def test_RR19_R16_passing_never_captures_also_with_a_7() -> None:
    """RR-19, R16: a 7 part passing over an opponent leaves it alone."""
    state = position(pawns={BLUE: {"car": 6}}, hands={RED: ["7H"]})
    after, events = apply(state, RED, split(("c2", 7)))
    assert where(after, BLUE, "car") == 6 and events[0]["captures"] == []


def test_RR20_RR27_own_pawns_block_capture_is_never_compulsory() -> None:
    """RR-20, RR-27: landing on an own pawn is illegal; a capture is one choice among others."""
    state = position(pawns={BLUE: {"car": 8}}, hands={RED: ["5H", "2H"]})
    rejected(state, RED, move("2H", "c1"), "RR-20")
    legal = ENGINE.legal_moves(state, RED)
    assert move("5H", "c2") in legal and move("2H", "c2") in legal  # capture or not: the player chooses


def test_RR21_split_total_parts_and_steps() -> None:
    """RR-21, R13, R14: total exactly 7, each part >= 1 step, distinct pawns, max seven_max_pawns."""
    state = position(hands={RED: ["7H"]})
    rejected(state, RED, split(("c2", 4), ("r", 2)), "RR-21")
    rejected(state, RED, split(("c2", 7), ("r", 0)), "RR-21")
    rejected(state, RED, play("7H", split=[]), "RR-21")
    one = position(hands={RED: ["7H"]}, seven_max_pawns=1)
    rejected(one, RED, split(("c2", 4), ("r", 3)), "RR-21")
    assert split(("c2", 4), ("r", 3)) in ENGINE.legal_moves(state, RED)
    # A part may use a square emptied by an earlier part (and parts may capture).
    chain = position(pawns={RED: {"c1": 20, "r": 22, "c2": 24}}, hands={RED: ["7H"]})
    after, _ = apply(chain, RED, split(("c2", 5), ("r", 2)))
    assert (where(after, RED, "c2"), where(after, RED, "r")) == (29, 24)
    rejected(chain, RED, split(("r", 2), ("c2", 5)), "RR-20")


def test_RR22_RR23_runner_first_and_top_place() -> None:
    """RR-22, RR-23, R27: nobody enters before the runner; F4 is for the runner only."""
    state = position(pawns={RED: {"r": 60, "c1": 55, "c2": 62}}, hands={RED: ["2H"]})
    rejected(state, RED, move("2H", "c2"), "RR-22")
    home = position(pawns={RED: {"r": "F1", "c1": 55, "c2": "F3"}}, hands={RED: ["AH"]})
    rejected(home, RED, move("AH", "c2", 1), "RR-23")
    assert where(apply(home, RED, move("AH", "r", 1))[0], RED, "r") == "F2"


def test_RR24_R23_finish_pawns_cannot_be_swapped() -> None:
    """RR-24, R23: pawns in a finish column are out of reach of a jack."""
    state = position(
        pawns={RED: {"c1": 10, "r": 20, "c2": 30}, BLUE: {"r": "F2", "c1": 40}}, hands={RED: ["JH"]}
    )
    rejected(state, RED, swap("r", BLUE, "r"), "RR-24")
    assert not any(m["action"]["swap"]["target_pawn"] == "r" for m in ENGINE.legal_moves(state, RED))


def test_RR25_entry_rules() -> None:
    """RR-25, R5, R6: off-route pawns only, distinct free own slots, any subset."""
    state = position(pawns={RED: {"c1": "off", "r": 20, "c2": 30}}, hands={RED: ["KH"]})
    rejected(state, RED, enter("KH", ("r", 0)), "RR-25")
    rejected(state, RED, enter("KH", ("c1", 1), ("car", 1)), "RR-25")
    rejected(state, RED, enter("KH", ("car", 1), ("c1", 1)), "RR-25")
    rejected(state, RED, enter("KH", ("c1", 4)), "RR-25")
    rejected(state, RED, play("KH", enter=[]), "RR-25")
    after, _ = apply(state, RED, enter("KH", ("c1", 1), ("car", 0)))
    assert (where(after, RED, "c1"), where(after, RED, "car")) == (1, 0)


def test_RR25_an_entry_is_a_set_of_pawns_in_any_order() -> None:
    """RR-25: "choose one or more own off-route pawns": the pawns of an entry may be listed in any
    order, and every order decides the same events as the canonical one (c1, c2, r, car)."""
    state = position(pawns={RED: {"c1": "off", "c2": "off", "r": "off"}}, hands={RED: ["KH"]})
    canonical = ENGINE.decide(state, RED, enter("KH", ("c1", 1), ("c2", 2), ("r", 3), ("car", 0)))
    for order in (
        enter("KH", ("car", 0), ("c1", 1)),
        enter("KH", ("car", 0), ("r", 3), ("c2", 2), ("c1", 1)),
        enter("KH", ("r", 3), ("c1", 1), ("car", 0), ("c2", 2)),
    ):
        listed = ENGINE.decide(state, RED, order)
        entries = sorted(order["action"]["enter"], key=lambda e: ["c1", "c2", "r", "car"].index(e["pawn"]))
        assert listed == ENGINE.decide(state, RED, enter("KH", *[(e["pawn"], e["slot"]) for e in entries]))
    assert ENGINE.decide(state, RED, enter("KH", ("car", 0), ("r", 3), ("c2", 2), ("c1", 1))) == canonical


def test_RR26_RR28_B4_entry_captures_and_captured_pawns_go_to_their_box() -> None:
    """RR-26, RR-28, B-4: an opponent on a chosen slot is captured into its own off-route box."""
    state = position(pawns={RED: {"c2": 30}, GREEN: {"car": 3}}, hands={RED: ["KH"]})
    after, events = apply(state, RED, enter("KH", ("car", 3)))
    assert after.pawns[GREEN][3] == OFF and events[0]["captures"][0]["seat"] == GREEN
    assert ENGINE.view(after, None)["teams"][GREEN]["pawns"]["car"] == {"where": "off"}


def test_RR29_R17_R18_protection_only_on_own_start_squares() -> None:
    """RR-29, R17, R18: protected on own slots (also after re-entering or moving back there)."""
    state = position(pawns={BLUE: {"car": 3}}, hands={RED: ["AH"]})  # Blue car on Red's slot 3
    state.pawns[RED] = [0, 2, 1, OFF]  # c1 on 0, r on 1, c2 on 2
    _after, events = apply(state, RED, move("AH", "c2", 1))
    assert events[0]["captures"] == [{"seat": BLUE, "pawn": "car", "square": 3}]
    # Red's runner moved back onto slot 2 by a 4 is protected there again.
    back = position(pawns={RED: {"r": 6, "c2": 11}}, hands={RED: ["4H"], BLUE: ["5C"]})
    back, _ = apply(back, RED, move("4H", "r"))
    back.current = BLUE
    back.pawns[BLUE][3] = (61 - 16) % 64  # Blue car on square 61
    rejected(back, BLUE, move("5C", "car"), "RR-29")
    # A re-entered pawn is protected on its slot too.
    again = position(pawns={RED: {"c1": "off", "r": 20, "c2": 30}}, hands={RED: ["KH"], BLUE: ["5C"]})
    again, _ = apply(again, RED, enter("KH", ("c1", 0)))
    again.current = BLUE
    again.pawns[BLUE][3] = (59 - 16) % 64  # Blue car on square 59
    rejected(again, BLUE, move("5C", "car"), "RR-29")


def test_RR30_R25_swap_same_type_on_the_route() -> None:
    """RR-30, R25: cyclist<->cyclist (either), runner<->runner, car<->car; both on the route."""
    state = position(
        pawns={RED: {"c1": 10, "r": 20, "c2": 30, "car": 5}, BLUE: {"car": 40}, GREEN: {"car": "off"}},
        hands={RED: ["JH"]},
    )
    rejected(state, RED, swap("car", BLUE, "c1"), "RR-30")
    rejected(state, RED, swap("car", RED, "car"), "RR-30")
    rejected(state, RED, swap("car", 7, "car"), "RR-30")
    rejected(state, RED, swap("car", GREEN, "car"), "RR-30")
    after, _ = apply(state, RED, swap("car", BLUE, "car"))
    assert (where(after, RED, "car"), where(after, BLUE, "car")) == (40, 5)
    after, _ = apply(state, RED, swap("c1", BLUE, "c2"))  # Red c1 (10) <-> Blue c2 (19), any cyclist
    assert (where(after, RED, "c1"), where(after, BLUE, "c2")) == (19, 10)
    off = position(pawns={RED: {"car": "off"}}, hands={RED: ["JH"]})
    rejected(off, RED, swap("car", BLUE, "car"), "RR-30")


def test_RR31_order_defect_measure() -> None:
    """RR-31, R20: D = (k, h, g), lexicographic, car ignored, zero once the runner is home."""
    n = 64
    assert order_defect(n, [1, 3, 2, OFF]) == (0, 0, 0)
    assert order_defect(n, [OFF, OFF, 5, 9]) == (2, 0, 0)
    assert order_defect(n, [10, 14, 12, 40]) == (0, 0, 0)
    assert order_defect(n, [10, 14, 4, 0]) == (0, 0, 6)
    assert order_defect(n, [10, 14, 20, 0]) == (0, 1, 6)
    assert order_defect(n, [OFF, 14, 64, OFF]) == (0, 0, 0)
    assert (1, 0, 0) > (0, 1, 50) > (0, 0, 60)


def test_RR32_free_places_allowed_and_the_car_anywhere() -> None:
    """RR-32: gaps between runner and cyclists are fine; the car may be anywhere."""
    car = position(pawns={RED: {"c1": 1, "r": 20, "c2": 50, "car": 10}}, hands={RED: ["QH"]})
    assert defect(car, RED) == [0, 0, 0]
    assert where(apply(car, RED, move("QH", "car"))[0], RED, "car") == 22
    ahead = position(pawns={RED: {"c1": 1, "r": 20, "c2": 50, "car": 50 - 12}}, hands={RED: ["QH", "5H"]})
    assert where(apply(ahead, RED, move("5H", "car"))[0], RED, "car") == 43


def test_RR33_RR34_R22_stop_and_go_car_only_illegal_runner_home_allowed() -> None:
    """RR-33, RR-34, R19, R21, R22: in Stop&Go the car alone never helps; the runner may go home."""
    state = position(
        pawns={RED: {"c1": "off", "r": 62, "c2": 60, "car": 20}}, hands={RED: ["5H", "3H", "KH"]}
    )
    assert defect(state, RED) == [1, 0, 0]
    rejected(state, RED, move("5H", "car"), "RR-33")
    rejected(state, RED, move("3H", "c2"), "RR-33")
    home, _ = apply(state, RED, move("3H", "r"))
    assert where(home, RED, "r") == "F2" and defect(home, RED) == [0, 0, 0]
    assert ENGINE.legal_moves(state, RED)  # no other penalty: the team simply keeps playing


def test_RR35_RR36_order_no_longer_applies_once_the_runner_is_home() -> None:
    """RR-35, RR-36: with the runner home any pawn moves; a swap may break an opponent's order."""
    state = position(pawns={RED: {"r": "F1", "c1": 10, "c2": 12}}, hands={RED: ["5H"]})
    assert where(apply(state, RED, move("5H", "c1"))[0], RED, "c1") == 15


def test_RR37_RR38_game_ends_at_the_finishing_play() -> None:
    """RR-37, RR-38, R30: all four home (runner on F4) ends the game at once; no tie."""
    state = position(
        pawns={RED: {"r": "F3", "c1": "F1", "c2": "F2", "car": 61}}, hands={RED: ["AH", "5H", "9H"]}
    )
    state, events = apply(state, RED, move("AH", "r", 1))
    assert state.stage != "finished" and ENGINE.outcome(state) is None  # the car is still out
    assert [e["type"] for e in events] == ["CardPlayed"]
    state, events = apply(state, RED, move("5H", "car"))
    assert [e["type"] for e in events] == ["CardPlayed", "GameWon"] and events[1]["seat"] == RED
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.ranks == [1, 2, 2, 2] and outcome.ranks.count(1) == 1
    assert ENGINE.view(state, None)["winner"] == RED and ENGINE.view(state, None)["phase"] == "finished"
    assert ENGINE.to_move(state) == [] and ENGINE.invariants(state) == []


# --- board geometry ---------------------------------------------------------------------------


def test_B1_B2_R32_board_size_and_sections_are_configurable() -> None:
    """B-1, B-2, R32: N = M x S (default 64), sections per seat, 2 players opposite."""
    assert ENGINE.initial_state(config(4)).board.n == 64
    assert ENGINE.normalize_options(2, {})["seat_section"] == [0, 2]
    board = ENGINE.initial_state(config(3, section_length=10, sections=5, seat_section=[0, 2, 4])).board
    assert board.n == 50 and [board.base(s) for s in range(3)] == [0, 20, 40]
    for bad in (
        {"section_length": 7},
        {"sections": 2},
        {"seat_section": [1, 0, 2]},
        {"seat_section": [0, 1]},
    ):
        with pytest.raises(InvalidOptions):
            ENGINE.normalize_options(3, bad)
    view = ENGINE.view(ENGINE.initial_state(config(2)), None)["board"]
    assert view["squares"] == 64 and len(view["route"]) == 64
    assert [t["base"] for t in view["teams"]] == [0, 32] and [t["colour"] for t in view["teams"]] == [
        "Red",
        "Green",
    ]


def test_B3_B4_setup_places() -> None:
    """B-3, B-4: c1 slot 1, r slot 2, c2 slot 3, car in the off-route box; slots listed in the view."""
    state = ENGINE.initial_state(config(4))
    teams = ENGINE.view(state, None)["teams"]
    board = ENGINE.view(state, None)["board"]
    assert board["teams"][BLUE]["start_squares"] == [16, 17, 18, 19]
    assert teams[BLUE]["pawns"]["c1"] == {"where": "route", "square": 17, "progress": 1}
    assert teams[BLUE]["pawns"]["r"]["square"] == 18 and teams[BLUE]["pawns"]["c2"]["square"] == 19
    assert teams[BLUE]["pawns"]["car"] == {"where": "off"}
    assert all(t["order_defect"] == [0, 0, 0] for t in teams)


def test_B5_B6_progress_and_the_finish_column() -> None:
    """B-5, B-6: Blue's square 15 has progress 63; its column stands beside square 15."""
    state = position(pawns={BLUE: {"c1": 10, "r": 15, "c2": 12}}, hands={BLUE: ["AC"]}, current=BLUE)
    assert ENGINE.view(state, None)["teams"][BLUE]["pawns"]["r"]["progress"] == 63
    assert ENGINE.view(state, None)["board"]["teams"][BLUE]["finish_column"]["beside_square"] == 15
    assert where(apply(state, BLUE, move("AC", "r", 1))[0], BLUE, "r") == "F1"


def test_B8_swap_changes_progress() -> None:
    """B-8: progress is computed from the new square after a swap."""
    state = position(pawns={GREEN: {"c1": 40}}, hands={RED: ["JH"]})
    after, _ = apply(state, RED, swap("c2", GREEN, "c1"))
    teams = ENGINE.view(after, None)["teams"]
    assert teams[RED]["pawns"]["c2"]["progress"] == 40 and teams[GREEN]["pawns"]["c1"]["progress"] == 35


def test_options_schema_defaults_cite_rules() -> None:
    """Configurable Rulings R2, R7, R13 (and RR-4, B-1, B-2) with the spec defaults."""
    props = ENGINE.options_schema()["properties"]
    assert props["obligation"]["default"] == "at_least_one" and "R2" in props["obligation"]["description"]
    assert (
        props["dealer_rotation"]["default"] == "per_deck" and "R7" in props["dealer_rotation"]["description"]
    )
    assert props["seven_max_pawns"]["default"] == 4 and "R13" in props["seven_max_pawns"]["description"]
    assert props["first_dealer"]["default"] is None and props["section_length"]["default"] == 16
    assert ENGINE.normalize_options(4, {}) == {k: v["default"] for k, v in props.items()} | {
        "seat_section": [0, 1, 2, 3]
    }
    with pytest.raises(InvalidOptions) as info:
        ENGINE.normalize_options(4, {"obligation": "sometimes"})
    assert info.value.field == "obligation"
    with pytest.raises(InvalidOptions):
        ENGINE.normalize_options(4, {"colour": "pink"})
    assert {m.type for m in ENGINE.moves()} == {"play_card", "end_turn"}
    opening = position(hands={RED: ["7H", "5H"]})
    example = next(m.example for m in ENGINE.moves() if m.type == "play_card")
    after, _ = apply(opening, RED, dict(example))
    assert ENGINE.moves()[1].example in ENGINE.legal_moves(after, RED)
    assert GameConfig(4, ENGINE.normalize_options(4, {})) in ENGINE.variants()
    _ = YELLOW
