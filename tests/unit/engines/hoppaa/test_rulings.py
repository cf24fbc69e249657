"""Rulings HP-R1 to HP-R25 (spec section 6): each test names the ruling it checks."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.hoppaa.cards import trick_winner
from services.games.engines.hoppaa.moves import continue_scoring
from services.games.engines.hoppaa.rules import white_offer
from services.games.engines.hoppaa.state import BIDDING, PLAY, WHITE_PAWN

from .helpers import (
    ENGINE,
    A,
    B,
    C,
    D,
    act,
    bid_all,
    finish_round,
    forward_options,
    new_game,
    scoring_moves,
    scoring_state,
    white,
)


def test_HP_R1_two_players_ten_cards_nine_tricks_bids_to_nine() -> None:
    """HP-R1: 2 players get 10 cards each, play 9 tricks, bid 1-9; the reserve is dealt next round."""
    state = white(new_game(2))
    assert [len(h) for h in state.hands] == [10, 10] and len(state.reserve) == 20
    assert {m["n"] for m in ENGINE.legal_moves(state, state.opener)} == set(range(1, 10))
    state, log = finish_round(state)
    assert sum(1 for e in log if e["type"] == "TrickWon") == 9 and state.round == 2


def test_HP_R2_forbidden_sum_is_exactly_nine_at_every_count() -> None:
    """HP-R2: only the sum 9 is refused for the last bidder; sums above and below are fine."""
    for n, bids in ((2, [3]), (3, [1, 1]), (4, [1, 1, 1])):
        state = bid_all(white(new_game(n)), bids)
        allowed = {m["n"] for m in ENGINE.legal_moves(state, state.turn)}
        banned = 9 - sum(bids)
        assert banned not in allowed and allowed == set(range(1, 10 if n == 2 else 7)) - {banned}


def test_HP_R3_three_players_bid_one_to_six_no_diamond_trump() -> None:
    """HP-R3: 3 players bid 1-6 and cannot choose diamonds as trump."""
    state = white(new_game(3))
    moves = ENGINE.legal_moves(state, state.opener)
    assert {m["n"] for m in moves} == set(range(1, 7)) and "D" not in {m["trump"] for m in moves}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, state.opener, {"type": "bid", "n": 2, "trump": "D"})
    assert err.value.rule == "HP-14"


def test_HP_R4_equal_ranks_of_other_suits_do_not_tie() -> None:
    """HP-R4: 'highest card' means the highest trump, else the highest of the led suit."""
    assert trick_winner([(0, "9H"), (1, "10S"), (2, "10C"), (3, "2H")], "none") == 0
    assert trick_winner([(0, "9H"), (1, "10S"), (2, "AS"), (3, "2H")], "S") == 1


def test_HP_R5_bid_first_then_discard() -> None:
    """HP-R5: each player bids and then discards; discarding before the bid is refused."""
    state = white(new_game(4))
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "discard", "card": state.hands[B][0]})
    assert err.value.rule == "HP-16"


def test_HP_R6_first_dealer_is_configured() -> None:
    """HP-R6: first_dealer picks the round-1 dealer; the deal starts at the next seat."""
    state = new_game(4, {D: ["10H"]}, first_dealer=C)
    assert (state.dealer, state.opener) == (C, D) and state.hands[D][0] == "10H"


def test_HP_R7_youngest_is_lowest_age_rank() -> None:
    """HP-R7: 'youngest' is the seat with the lowest age_rank."""
    assert new_game(4, age_rank=[5, 9, 7, 2]).white_offer == D
    assert new_game(3).white_offer == A  # default: seat 0 youngest


def test_HP_R8_single_lowest_pawn_not_the_total() -> None:
    """HP-R8: the white pawn goes by the single lowest pawn, not the sum of a player's pawns."""
    table = new_game(4).table
    assert white_offer(table, [[2, 30], [5, 6], [9, 9 + 1], [12, 13]], 2) == A


def test_HP_R9_white_pawn_before_own_bid_option() -> None:
    """HP-R9: with white_pawn_timing = before_own_bid the offered player chooses at his own turn."""
    state = new_game(4, age_rank=[3, 4, 1, 2], white_pawn_timing="before_own_bid")
    assert state.phase == BIDDING and state.turn == B and state.white_offer == C
    state = bid_all(state, [2])
    assert ENGINE.legal_moves(state, C) == [
        {"type": "choose_white_pawn", "use": True},
        {"type": "choose_white_pawn", "use": False},
    ]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "bid", "n": 2})
    assert err.value.rule == "HP-10"
    state, _ = act(state, C, {"type": "choose_white_pawn", "use": True})
    assert state.white_used is True and state.turn == C and state.phase == BIDDING
    default = new_game(4)
    assert default.phase == WHITE_PAWN


def test_HP_R10_white_pawn_bid_one_gives_one_two_or_ten() -> None:
    """HP-R10: white pawn, bid 1 made: 1, 2 or 10 steps."""
    state = scoring_state([[0, 0], [3, 0], [0, 0], [0, 0]], [1, 1, 1, 1], [3, 1, 2, 3], white_seat=B)
    assert forward_options(state) == {
        ("green", 1),
        ("green", 2),
        ("green", 10),
        ("red", 1),
        ("red", 2),
        ("red", 10),
    }


def test_HP_R11_exact_35_also_for_doubled_options() -> None:
    """HP-R11: 2b and 10 may not pass 35 either."""
    state = scoring_state([[0, 0], [27, 35], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 4, 1, 2], white_seat=B)
    assert forward_options(state) == {("green", 8)}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 10})
    assert err.value.rule == "HP-33"


def test_HP_R12_forward_move_optional_allows_decline() -> None:
    """HP-R12: by default a legal forward move is compulsory; forward_move_optional adds decline_move."""
    pawns = [[0, 0], [3, 35], [0, 0], [0, 0]]
    state = scoring_state(pawns, [1, 2, 1, 1], [2, 2, 3, 2], opener=B)
    assert {"type": "decline_move"} not in scoring_moves(state)
    state = scoring_state(pawns, [1, 2, 1, 1], [2, 2, 3, 2], opener=B, forward_move_optional=True)
    assert {"type": "decline_move"} in scoring_moves(state)
    after, events = act(state, B, {"type": "decline_move"})
    assert events[0]["type"] == "MoveDeclined" and after.pawns[B] == [3, 35]


def test_HP_R13_one_pawn_takes_the_whole_penalty_or_it_lapses() -> None:
    """HP-R13: one pawn takes all steps, never below 0; a pawn on 0 cannot; with none it lapses."""
    state = scoring_state([[0, 0], [0, 1], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 0, 3, 4], opener=B)
    event = continue_scoring(state)[0]
    assert (event["pawn"], event["to"], event["steps"]) == ("red", 0, 5)
    state = scoring_state([[0, 0], [0, 0], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 0, 3, 4], opener=B)
    assert continue_scoring(state)[0]["reason"] == "penalty_lapses"


def test_HP_R14_finished_pawns_never_move() -> None:
    """HP-R14: a pawn on 35 takes neither steps forward nor penalties."""
    state = scoring_state([[0, 0], [35, 20], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 4, 1, 2], opener=B)
    assert continue_scoring(state)[0]["pawn"] == "red"


def test_HP_R15_knocking_yourself_off_is_legal() -> None:
    """HP-R15: a move onto one's own other pawn is offered and sends that pawn to 0."""
    state = scoring_state([[0, 0], [1, 0], [0, 0], [0, 0]], [1, 1, 1, 1], [2, 1, 3, 3], opener=B)
    state.pawns[B] = [7, 0]
    assert ("red", 1) in forward_options(state)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 1})
    assert after.pawns[B] == [0, 7]


def test_HP_R16_knock_off_checks_final_square_backwards_too() -> None:
    """HP-R16: only the final square counts, and a backward move can knock off too."""
    state = scoring_state([[0, 0], [12, 10], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 1, 3, 3], opener=B)
    after, _ = act(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert after.pawns[B] == [10, 0]
    state = scoring_state([[0, 0], [26, 33], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 2, 3, 3], opener=B)
    after, _ = act(state, B, {"type": "choose_penalty_pawn", "pawn": "red"})
    assert after.pawns[B] == [26, 25]  # 33 -> 32 -> 25 passes nobody; 26 untouched


def test_HP_R17_jump_is_compulsory_and_single() -> None:
    """HP-R17: landing on 7 goes to 14 and stops there (no chain to 21 and 25)."""
    state = scoring_state([[0, 0], [2, 0], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 5, 1, 1], opener=B)
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert events[0]["to"] == 14


def test_HP_R18_red_dots_act_on_backward_moves() -> None:
    """HP-R18: a penalty ending on 30 or 32 puts the pawn on 25."""
    state = scoring_state([[0, 0], [31, 0], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 2, 3, 3], opener=B)
    assert continue_scoring(state)[0]["to"] == 25


def test_HP_R19_team_partner_pawns_after_own_finish() -> None:
    """HP-R19: plus and penalty moves go to the partner's pawns only when all own pawns are on 35."""
    state = scoring_state(
        [[0, 0], [35, 35], [0, 0], [4, 9]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B, mode="team"
    )
    after, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert events[0]["owner"] == D and (events[0]["to"], events[0]["knocked_off"]) == (9, "red")
    assert after.pawns[B] == [35, 35]
    solo = scoring_state([[0, 0], [35, 35], [0, 0], [4, 9]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B)
    assert solo.phase == "scoring"  # in solo such a player has already won; nobody moves for him


def test_HP_R20_revoke_is_impossible() -> None:
    """HP-R20: a card that breaks HP-21 is rejected, so no revoke penalty exists."""
    hands = {B: ["5H"], C: ["10H", "AD"]}
    state = bid_all(white(new_game(4, hands)), [4, 1, 1, 1])
    assert state.phase == PLAY and state.turn == B
    state, _ = act(state, B, {"type": "play_card", "card": "5H"})
    assert all(m["card"].endswith("H") for m in ENGINE.legal_moves(state, C))
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "play_card", "card": "AD"})
    assert err.value.rule == "HP-21"


def test_HP_R21_discards_and_reserve_never_shown() -> None:
    """HP-R21: a discard is seen only by its owner, the 2-player reserve by nobody, also after the end."""
    state = white(new_game(2))
    state = bid_all(state, [3])
    card = state.discards[state.opener]
    assert ENGINE.view(state, state.opener)["my_discard"] == card
    other = 1 - state.opener
    for seat in (other, None):
        text = str(ENGINE.view(state, seat))
        assert card not in str(ENGINE.view(state, seat)["my_discard"])
        assert all(c not in text for c in state.reserve)
    event = {"type": "CardDiscarded", "seat": state.opener, "card": card}
    assert ENGINE.redact_event(event, other, state, state)["card"] == "hidden"


def test_HP_R22_quick_version_keeps_the_normal_deal() -> None:
    """HP-R22: the quick version deals 10 cards and plays 9 tricks; only the green pawn exists."""
    state = white(new_game(4, pawns_per_player=1))
    assert all(len(h) == 10 for h in state.hands) and all(len(p) == 1 for p in state.pawns)
    state, log = finish_round(state)
    assert sum(1 for e in log if e["type"] == "TrickWon") == 9
    with pytest.raises(IllegalMove) as err:
        s = scoring_state([[0], [3], [0], [0]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B, pawns_per_player=1)
        ENGINE.decide(s, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 2})
    assert err.value.rule == "HP-32"


def test_HP_R23_all_four_suits_can_be_trump() -> None:
    """HP-R23: with 4 players spades, hearts, diamonds, clubs or none."""
    state = white(new_game(4))
    assert {m["trump"] for m in ENGINE.legal_moves(state, B)} == {"S", "H", "D", "C", "none"}


def test_HP_R24_only_opener_chooses_trump_and_highest_bid_leads() -> None:
    """HP-R24: the seed's trump illustration does not override HP-14 (opener) and HP-18 (lead)."""
    state = white(new_game(4))
    state, _ = act(state, B, {"type": "bid", "n": 1, "trump": "D"})
    state, _ = act(state, B, {"type": "discard", "card": state.hands[B][0]})
    with pytest.raises(IllegalMove):
        ENGINE.decide(state, C, {"type": "bid", "n": 2, "trump": "S"})
    for seat, n in ((C, 2), (D, 1), (A, 2)):
        state, _ = act(state, seat, {"type": "bid", "n": n})
        state, _ = act(state, seat, {"type": "discard", "card": state.hands[seat][0]})
    assert state.trump == "D" and state.turn == C


def test_HP_R25_no_team_talk_rule_and_no_extra_actions() -> None:
    """HP-R25: the talking ban is not modelled: team mode has exactly the solo actions."""
    names = [m.type for m in ENGINE.moves()]
    assert names == [
        "choose_white_pawn",
        "bid",
        "discard",
        "play_card",
        "choose_pawn_move",
        "decline_move",
        "choose_penalty_pawn",
    ]
    team = white(new_game(4, mode="team"))
    assert {m["type"] for m in ENGINE.legal_moves(team, B)} == {"bid"}
