"""Every worked example of rules/roparun.md §6 (W1 ... W20), on the default board."""

from __future__ import annotations

from services.games.engines.roparun.state import DEALER_DRAW, FINISHED, SHUFFLE

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
    move,
    position,
    rejected,
    run_cycle,
    shuffle,
    split,
    swap,
    where,
)


def _deal_sizes(n: int) -> tuple[list[list[int]], list[int], int]:
    """Deal sizes of one full cycle, the dealers of those deals, and the next dealer."""
    state = shuffle(ENGINE.initial_state(config(n, first_dealer=0)))
    sizes = [[len(h) for h in state.hands]]
    dealers = [state.dealer]
    state, log = run_cycle(state)
    for event in log:
        if event["type"] == "CardsDealt":
            sizes.append([len(h) for h in event["hands"]])
            dealers.append(event["dealer"])
    ended = [e for e in log if e["type"] == "CycleEnded"]
    assert state.stage == SHUFFLE and len(ended) == 1
    return sizes, [d or 0 for d in dealers], ended[0]["new_dealer"]


def test_example_W1_deals_per_player_count() -> None:
    """W1 (RR-6, RR-8, R8): 4p 5,4,4 of 52; 3p 5,4,4 of 39; 2p six deals of 4 then 2 each."""
    sizes, dealers, new_dealer = _deal_sizes(4)
    assert sizes == [[5] * 4, [4] * 4, [4] * 4] and sum(map(sum, sizes)) == 52
    assert dealers == [0, 0, 0] and new_dealer == 1
    sizes, _, new_dealer = _deal_sizes(3)
    assert sizes == [[5] * 3, [4] * 3, [4] * 3] and sum(map(sum, sizes)) == 39
    assert new_dealer == 1
    sizes, dealers, new_dealer = _deal_sizes(2)
    assert sizes == [[4, 4]] * 6 + [[2, 2]] and dealers == [0] * 7 and new_dealer == 1


def test_example_W2_first_dealer_draw() -> None:
    """W2 (RR-4, R12): Red 9, Blue A, Green 3, Yellow A; Blue 7, Yellow 4 -> Yellow deals."""
    state = ENGINE.initial_state(config(4))
    assert state.stage == DEALER_DRAW
    request = ENGINE.chance_request(state)
    assert request is not None and request.purpose == "dealer_draw" and request.n == 52
    drawn = [8, 0, 2, 13, 6, 3]  # 9C, AC, 3C, AD, then 7C, 4C
    state = shuffle(state, drawn + [v for v in range(52) if v not in drawn])
    assert state.dealer == YELLOW and state.stage == SHUFFLE
    view = ENGINE.view(state, None)
    draws = [[(d["seat"], d["rank"] + d["suit"]) for d in r] for r in view["dealer_draws"]]
    assert draws == [[(0, "9C"), (1, "AC"), (2, "3C"), (3, "AD")], [(1, "7C"), (3, "4C")]]
    assert sorted(state.stock) == sorted(state.deck)  # all cards went back
    state = shuffle(state)
    assert state.current == RED  # Red leads every deal of the cycle
    state, log = run_cycle(state)
    assert {e["dealer"] for e in log if e["type"] == "CardsDealt"} == {YELLOW}
    assert state.dealer == RED
    state = shuffle(state)
    assert state.dealer == RED and state.current == BLUE


def test_example_W3_opening_card_5() -> None:
    """W3 (RR-33, RR-18): c2 -> 8 legal; r -> 7 and c1 -> 6 break the order; no 4 possible."""
    state = position(hands={RED: ["5H", "4H"]})
    after, _ = apply(state, RED, move("5H", "c2"))
    assert where(after, RED, "c2") == 8
    rejected(state, RED, move("5H", "r"), "RR-33")
    rejected(state, RED, move("5H", "c1"), "RR-33")
    for pawn in ("c1", "r", "c2"):
        rejected(state, RED, move("4H", pawn), "RR-18")
    assert not any(m["card"] == "4H" for m in ENGINE.legal_moves(state, RED) if m["type"] == "play_card")


def test_example_W4_opening_ace() -> None:
    """W4 (RR-25, B-4): car enters on slot 0 only; c2 1 step -> 4; c2 11 steps -> 14."""
    state = position(hands={RED: ["AH"]})
    after, _ = apply(state, RED, enter("AH", ("car", 0)))
    assert where(after, RED, "car") == 0
    for slot in (1, 2, 3):
        rejected(state, RED, enter("AH", ("car", slot)), "RR-25")
    assert where(apply(state, RED, move("AH", "c2", 1))[0], RED, "c2") == 4
    assert where(apply(state, RED, move("AH", "c2", 11))[0], RED, "c2") == 14


def test_example_W5_king_several_pawns_entry_capture() -> None:
    """W5 (RR-25, RR-26, RR-28, RR-34): K enters car and c2, capturing Blue's cyclist on slot 3."""
    state = position(
        pawns={RED: {"c2": "off", "c1": 20, "r": 25}, BLUE: {"c1": 3}},
        hands={RED: ["KH"]},
    )
    assert defect(state, RED) == [1, 0, 0]
    after, events = apply(state, RED, enter("KH", ("c2", 3), ("car", 0)))
    assert events[0]["captures"] == [{"seat": BLUE, "pawn": "c1", "square": 3}]
    assert where(after, BLUE, "c1") == "off" and defect(after, BLUE)[0] == 1  # Blue in Stop&Go
    assert defect(after, RED) == [0, 1, 5]
    after, events = apply(state, RED, enter("KH", ("c2", 1)))
    assert events[0]["captures"] == [] and defect(after, RED) == [0, 1, 5]
    rejected(state, RED, enter("KH", ("car", 0)), "RR-33")


def test_example_W6_capture_of_front_cyclist() -> None:
    """W6 (RR-12, RR-34, R20): Red's front cyclist captured; 2, 8, 10, Q are all unplayable."""
    state = position(
        pawns={RED: {"c1": 10, "r": 12, "c2": 14}, BLUE: {"c2": 6, "r": 8, "c1": 9}},
        hands={BLUE: ["5C"], RED: ["2H", "8H", "10H", "QH"]},
        current=BLUE,
        dealer=RED,
    )
    state, events = apply(state, BLUE, move("5C", "c1"))
    assert where(state, RED, "c2") == "off" and defect(state, RED) == [1, 0, 0]
    red_end = [e for e in events if e["type"] == "TurnEnded" and e["seat"] == RED]
    assert red_end == [{"type": "TurnEnded", "seat": RED, "reason": "no_legal_play", "discarded_count": 4}]
    # With an ace instead of the queen:
    state = position(
        pawns={RED: {"c1": 10, "r": 12, "c2": "off"}},
        hands={RED: ["2H", "8H", "10H", "AH"]},
    )
    legal = ENGINE.legal_moves(state, RED)
    assert legal and all(m["card"] == "AH" and "enter" in m["action"] for m in legal)
    assert all(any(e["pawn"] == "c2" for e in m["action"]["enter"]) for m in legal)
    state, _ = apply(state, RED, enter("AH", ("c2", 1)))
    assert defect(state, RED) == [0, 1, 2]
    rejected(state, RED, move("2H", "c1"), "RR-20")
    state, _ = apply(state, RED, move("10H", "c1"))
    assert where(state, RED, "c1") == 20 and defect(state, RED) == [0, 0, 0]


def test_example_W7_two_cyclists_together_after_swap() -> None:
    """W7 (RR-30, RR-36): Red's J breaks Blue's order; Blue repairs with its own cards."""
    state = position(
        pawns={RED: {"c1": 20, "r": 22, "c2": 23}, BLUE: {"c1": 24, "r": 26, "c2": 28}},
        hands={RED: ["JH"], BLUE: ["3C", "AC", "2C"]},
    )
    after, _ = apply(state, RED, swap("c2", BLUE, "c2"))
    assert where(after, RED, "c2") == 28 and where(after, BLUE, "c2") == 23
    assert defect(after, RED) == [0, 0, 0] and defect(after, BLUE) == [0, 1, 2]
    blue = after
    blue.current = BLUE
    fixed, _ = apply(blue, BLUE, move("3C", "c1"))
    assert where(fixed, BLUE, "c1") == 27 and defect(fixed, BLUE) == [0, 0, 0]
    closer, _ = apply(blue, BLUE, move("AC", "c1", 1))
    assert where(closer, BLUE, "c1") == 25 and defect(closer, BLUE) == [0, 1, 1]
    rejected(blue, BLUE, move("2C", "c1"), "RR-20")


def test_example_W8_swap_breaking_own_order() -> None:
    """W8 (RR-33, R24): c1@20 <-> Blue cyclist@28 would leave Red with D (0,0,1)."""
    state = position(
        pawns={RED: {"c1": 20, "r": 22, "c2": 23}, BLUE: {"c1": 24, "r": 26, "c2": 28}},
        hands={RED: ["JH"]},
    )
    rejected(state, RED, swap("c1", BLUE, "c2"), "RR-33")


def test_example_W9_swap_from_a_start_square() -> None:
    """W9 (RR-29, RR-30, R18, R23): c2 on slot 3 swaps with Green's cyclist; it is unprotected there."""
    state = position(pawns={GREEN: {"c1": 40}}, hands={RED: ["JH"], BLUE: ["5C"]})
    after, _ = apply(state, RED, swap("c2", GREEN, "c1"))
    assert where(after, RED, "c2") == 40 and where(after, GREEN, "c1") == 3
    # Blue's car (on square 62) lands on 3: the Green cyclist on Red's start square is captured.
    blue = position(
        pawns={RED: {"c2": 40}, GREEN: {"c1": 3}, BLUE: {"car": 62}}, hands={BLUE: ["5C"]}, current=BLUE
    )
    blue, events = apply(blue, BLUE, move("5C", "car"))
    assert events[0]["captures"] == [{"seat": GREEN, "pawn": "c1", "square": 3}]


def test_example_W10_runner_into_the_finish() -> None:
    """W10 (RR-17, RR-20, RR-21, RR-22, RR-33): the runner passes c2 only into the column."""
    state = position(
        pawns={RED: {"c1": 55, "r": 60, "c2": 62, "car": 30}},
        hands={RED: ["5H", "3H", "2H", "8H", "7H"]},
    )
    after, _ = apply(state, RED, move("5H", "r"))
    assert where(after, RED, "r") == "F2" and defect(after, RED) == [0, 0, 0]
    rejected(state, RED, move("3H", "r"), "RR-33")
    rejected(state, RED, move("2H", "r"), "RR-20")
    rejected(state, RED, move("8H", "r"), "RR-17")
    rejected(state, RED, move("2H", "c2"), "RR-22")
    after, _ = apply(state, RED, split(("r", 5), ("c2", 2)))
    assert where(after, RED, "r") == "F2" and where(after, RED, "c2") == "F1"
    rejected(state, RED, split(("c2", 2), ("r", 5)), "RR-22")


def test_example_W11_cyclists_and_car_after_the_runner() -> None:
    """W11 (RR-17, RR-23, RR-24): c2 -> F1; c1 + Q -> F4 is for the runner; r + 2 -> F4 over F3."""
    state = position(pawns={RED: {"r": "F2", "c1": 55, "c2": 62}}, hands={RED: ["2H", "QH", "9H"]})
    assert where(apply(state, RED, move("2H", "c2"))[0], RED, "c2") == "F1"
    rejected(state, RED, move("QH", "c1"), "RR-23")
    assert where(apply(state, RED, move("9H", "c1"))[0], RED, "c1") == "F1"
    over = position(pawns={RED: {"r": "F2", "car": "F3", "c1": 55, "c2": 62}}, hands={RED: ["2H"]})
    assert where(apply(over, RED, move("2H", "r"))[0], RED, "r") == "F4"
    occupied = position(pawns={RED: {"r": "F2", "c2": "F1", "c1": 55}}, hands={RED: ["9H"]})
    rejected(occupied, RED, move("9H", "c1"), "RR-20")


def test_example_W12_win() -> None:
    """W12 (RR-37, RR-38, R30): the car's 5 to F3 finishes Red; the game ends at once."""
    state = position(pawns={RED: {"r": "F4", "c1": "F1", "c2": "F2", "car": 61}}, hands={RED: ["5H", "9H"]})
    after, events = apply(state, RED, move("5H", "car"))
    assert [e["type"] for e in events] == ["CardPlayed", "GameWon"]
    assert after.stage == FINISHED and ENGINE.to_move(after) == []
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.ranks == [1, 2, 2, 2] and outcome.scores[RED] == 1.0
    assert ENGINE.legal_moves(after, RED) == []
    rejected(after, RED, move("9H", "car"), "RR-38")


def test_example_W13_own_pawn_blocks_everything() -> None:
    """W13 (RR-12, RR-13, RR-20, RR-29, R3, R29): one 2, no legal use: the turn ends at once."""
    state = position(pawns={RED: {"c1": 10, "r": 12, "c2": 14, "car": 16}}, hands={RED: ["2H"]})
    rejected(state, RED, move("2H", "c1"), "RR-20")
    rejected(state, RED, move("2H", "r"), "RR-20")
    rejected(state, RED, move("2H", "c2"), "RR-20")
    rejected(state, RED, move("2H", "car"), "RR-29")
    auto = ENGINE._next_auto(state)
    assert auto == {"type": "TurnEnded", "seat": RED, "reason": "no_legal_play", "discarded_count": 1}
    after = ENGINE.evolve(state, auto)
    assert after.discard_down == ["2H"] and after.discard_up == [] and after.current == BLUE
    for seat in (None, BLUE):
        view = ENGINE.view(after, seat)
        assert view["discard_face_down_count"] == 1 and "2H" not in str(view)


def test_example_W14_exact_landing_jumping() -> None:
    """W14 (RR-19, RR-20, RR-28, RR-29): captures where the move ends, never on the way."""
    state = position(
        pawns={RED: {"c1": 5, "r": 8, "c2": 10}, YELLOW: {"c1": 13}, GREEN: {"car": 15}},
        hands={RED: ["3H", "5H", "8H", "10H"]},
    )
    after, events = apply(state, RED, move("3H", "c2"))
    assert events[0]["captures"] == [{"seat": YELLOW, "pawn": "c1", "square": 13}]
    assert where(after, YELLOW, "c1") == "off" and ENGINE.view(after, None)["teams"][YELLOW]["stop_go"]
    after, events = apply(state, RED, move("5H", "c2"))
    assert events[0]["captures"] == [{"seat": GREEN, "pawn": "car", "square": 15}]
    rejected(state, RED, move("8H", "c2"), "RR-29")
    after, events = apply(state, RED, move("10H", "c2"))
    assert where(after, RED, "c2") == 20 and events[0]["captures"] == []
    assert (where(after, YELLOW, "c1"), where(after, GREEN, "car"), where(after, BLUE, "r")) == (13, 15, 18)


def test_example_W15_card_4() -> None:
    """W15 (RR-18, RR-28, RR-29, RR-33): backward 4, never from an own start square."""
    state = position(
        pawns={RED: {"c1": 1, "r": 6, "c2": 11, "car": 20}, YELLOW: {"c1": 16}},
        hands={RED: ["4H", "4C"]},
    )
    rejected(state, RED, move("4H", "c1"), "RR-18")
    assert where(apply(state, RED, move("4H", "c2"))[0], RED, "c2") == 7
    back, _ = apply(state, RED, move("4H", "r"))
    assert where(back, RED, "r") == 2
    rejected(back, RED, move("4C", "r"), "RR-18")  # now on a start square: protected, no further 4
    after, events = apply(state, RED, move("4H", "car"))
    assert where(after, RED, "car") == 16 and events[0]["captures"][0]["seat"] == YELLOW
    tight = position(pawns={RED: {"c1": 3, "r": 6, "c2": 11}}, hands={RED: ["4H"]})
    rejected(tight, RED, move("4H", "r"), "RR-33")


def test_example_W16_card_7_splits() -> None:
    """W16 (RR-21, RR-33, R13, R14): split 7s from the opening position."""
    state = position(hands={RED: ["7H"]})
    assert where(apply(state, RED, split(("c2", 7)))[0], RED, "c2") == 10
    after, _ = apply(state, RED, split(("c2", 4), ("r", 3)))
    assert (where(after, RED, "c2"), where(after, RED, "r")) == (7, 5)
    apply(state, RED, split(("r", 3), ("c2", 4)))
    rejected(state, RED, split(("c2", 2), ("r", 5)), "RR-33")
    after, _ = apply(state, RED, split(("c2", 4), ("r", 2), ("c1", 1)))
    assert (where(after, RED, "c2"), where(after, RED, "r"), where(after, RED, "c1")) == (7, 4, 2)
    two = position(hands={RED: ["7H"]}, seven_max_pawns=2)
    rejected(two, RED, split(("c2", 4), ("r", 2), ("c1", 1)), "RR-21")
    rejected(state, RED, split(("r", 1), ("c2", 6)), "RR-20")
    rejected(state, RED, split(("c2", 3), ("c2", 4)), "RR-21")
    rejected(state, RED, split(("c2", 4), ("car", 3)), "RR-16")


def test_example_W17_stop_and_go_choices() -> None:
    """W17 (RR-31, RR-33, RR-34, R19): D (0,1,5); every play must lower it."""
    state = position(
        pawns={RED: {"c2": 3, "c1": 20, "r": 25, "car": 0}},
        hands={RED: ["6H", "3H", "5H", "9H", "4H"]},
    )
    assert defect(state, RED) == [0, 1, 5]
    assert defect(apply(state, RED, move("6H", "c1"))[0], RED) == [0, 0, 0]
    assert defect(apply(state, RED, move("3H", "c1"))[0], RED) == [0, 1, 2]
    rejected(state, RED, move("5H", "c1"), "RR-20")
    rejected(state, RED, move("9H", "c2"), "RR-33")
    rejected(state, RED, move("9H", "car"), "RR-33")
    back, _ = apply(state, RED, move("4H", "r"))
    assert where(back, RED, "r") == 21 and defect(back, RED) == [0, 1, 1]


def test_example_W18_entry_with_own_pawn_on_a_slot() -> None:
    """W18 (RR-25, R4, R5): the runner cannot enter onto the own car on slot 2."""
    state = position(pawns={RED: {"r": "off", "car": 2, "c1": 10, "c2": 30}}, hands={RED: ["KH"]})
    rejected(state, RED, enter("KH", ("r", 2)), "RR-25")
    for slot in (0, 1, 3):
        after, _ = apply(state, RED, enter("KH", ("r", slot)))
        assert where(after, RED, "r") == slot


def test_example_W19_runner_in_stop_and_go_lapses() -> None:
    """W19 (RR-31, RR-35, R21): runner on F1 -> D (0,0,0); c2 and car move freely; c1 re-enters."""
    state = position(
        pawns={RED: {"r": "F1", "c1": "off", "c2": 40, "car": 30}}, hands={RED: ["5H", "KH", "QH"]}
    )
    assert defect(state, RED) == [0, 0, 0]
    assert where(apply(state, RED, move("5H", "c2"))[0], RED, "c2") == 45
    assert where(apply(state, RED, move("QH", "car"))[0], RED, "car") == 42
    assert where(apply(state, RED, enter("KH", ("c1", 0)))[0], RED, "c1") == 0


def test_example_W20_ending_a_turn() -> None:
    """W20 (RR-11, RR-13, RR-14, R2): play 9 and 3, then end_turn; three cards face down."""
    hand = ["9H", "3H", "5H", "6H", "8H"]
    state = position(hands={RED: hand})
    rejected(state, RED, {"type": "end_turn"}, "RR-11")
    state, _ = apply(state, RED, move("9H", "c2"))
    state, _ = apply(state, RED, move("3H", "c2"))
    assert where(state, RED, "c2") == 15
    state, events = apply(state, RED, {"type": "end_turn"})
    assert events[0] == {"type": "TurnEnded", "seat": RED, "reason": "voluntary", "discarded_count": 3}
    assert sorted(state.discard_down) == ["5H", "6H", "8H"] and state.discard_up == ["9H", "3H"]
    strict = position(hands={RED: hand}, obligation="while_possible")
    strict, _ = apply(strict, RED, move("9H", "c2"))
    strict, _ = apply(strict, RED, move("3H", "c2"))
    assert {"type": "end_turn"} not in ENGINE.legal_moves(strict, RED)
    rejected(strict, RED, {"type": "end_turn"}, "RR-11")
