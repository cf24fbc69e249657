"""Every worked example of rules/hoppaa.md section 5, one test each, named after its id."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.hoppaa.moves import continue_scoring
from services.games.engines.hoppaa.rules import white_offer
from services.games.engines.hoppaa.state import BIDDING, GAME_OVER, PLAY

from .helpers import (
    ENGINE,
    A,
    B,
    C,
    D,
    act,
    bid_all,
    config,
    finish_round,
    forward_options,
    new_game,
    scoring_moves,
    scoring_state,
    white,
)


def _bids(state, bids, trump="none"):  # type: ignore[no-untyped-def]
    return bid_all(white(state), bids, trump)


def _legal_bids(state, seat):  # type: ignore[no-untyped-def]
    return sorted({m["n"] for m in ENGINE.legal_moves(state, seat) if m["type"] == "bid"})


def test_example_EX_1_last_bidder_may_not_make_nine_and_highest_bid_leads() -> None:
    """EX-1 [HP-15, HP-18]: B 1 no-trump, C 2, D 3; A may not bid 3; A bids 2; D leads."""
    state = _bids(new_game(4), [1, 2, 3])
    assert state.turn == A and state.trump == "none"
    assert 3 not in _legal_bids(state, A)
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, A, {"type": "bid", "n": 3})
    assert err.value.rule == "HP-15"
    state, _ = act(state, A, {"type": "bid", "n": 2})
    state, _ = act(state, A, {"type": "discard", "card": state.hands[A][0]})
    assert sum(b or 0 for b in state.bids) == 8
    assert state.phase == PLAY and state.turn == D


def test_example_EX_2_sum_ten_allowed_and_leader_is_not_the_opener() -> None:
    """EX-2: B 3 hearts, C 1, D 4; A may not bid 1; A bids 2 (sum 10); D leads, not B."""
    state = _bids(new_game(4), [3, 1, 4], trump="H")
    assert state.trump == "H"
    assert 1 not in _legal_bids(state, A)
    state = bid_all_rest(state, 2)
    assert sum(b or 0 for b in state.bids) == 10
    assert state.turn == D and state.turn != state.opener


def bid_all_rest(state, n):  # type: ignore[no-untyped-def]
    seat = state.turn
    state, _ = act(state, seat, {"type": "bid", "n": n})
    return act(state, seat, {"type": "discard", "card": state.hands[seat][0]})[0]


def test_example_EX_3_three_bids_sum_six() -> None:
    """EX-3: three bids summing to 6 leave the last bidder 1, 2, 4, 5 or 6."""
    state = _bids(new_game(4), [2, 2, 2])
    assert _legal_bids(state, A) == [1, 2, 4, 5, 6]


def test_example_EX_4_equal_highest_bids_first_bidder_leads() -> None:
    """EX-4: B 3, C 1, D 3, A 1: B bid 3 first and leads."""
    state = _bids(new_game(4), [3, 1, 3, 1])
    assert state.phase == PLAY and state.turn == B


def test_example_EX_5_low_trump_wins_and_following_suit_is_compulsory() -> None:
    """EX-5: trump diamonds; B leads 10S, C and D follow low, A trumps with 2D and wins."""
    hands = {
        B: ["10S", "AH"],
        C: ["3S", "4D"],
        D: ["5S", "2H"],
        A: ["2D", "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    }
    state = _bids(new_game(4, hands), [4, 1, 1, 1], trump="D")
    assert state.turn == B
    state, _ = act(state, B, {"type": "play_card", "card": "10S"})
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "play_card", "card": "4D"})
    assert err.value.rule == "HP-21"
    state, _ = act(state, C, {"type": "play_card", "card": "3S"})
    state, _ = act(state, D, {"type": "play_card", "card": "5S"})
    state, events = act(state, A, {"type": "play_card", "card": "2D"})
    assert events[-1] == {"type": "TrickWon", "winner": A, "number": 1, "cards": ["10S", "3S", "5S", "2D"]}
    assert state.turn == A and state.tricks_won[A] == 1


def test_example_EX_6_trump_hearts_beats_the_ten_of_diamonds() -> None:
    """EX-6: trump hearts; A 6D, B 8D, C 10D, D (no diamonds) 3H: D wins."""
    hands = {
        A: ["6D", "AS"],
        B: ["8D", "AC"],
        C: ["10D", "2C"],
        D: ["3H", "AH", "2H", "2S", "3S", "4S", "5S", "3C", "4C", "5C"],
    }
    state = _bids(new_game(4, hands), [1, 1, 1, 4], trump="H")
    assert state.turn == A
    for seat, card in ((A, "6D"), (B, "8D"), (C, "10D")):
        state, _ = act(state, seat, {"type": "play_card", "card": card})
    state, events = act(state, D, {"type": "play_card", "card": "3H"})
    assert events[-1]["winner"] == D and state.turn == D


def test_example_EX_7_counting_tricks_against_bids() -> None:
    """EX-7: A bid 2 won 1: one back; B bid 3 won 3: forward 3 or 5 with either pawn; 2 vs 0 or 4: two back."""
    pawns = [[4, 9], [0, 0], [0, 0], [0, 0]]
    made = scoring_state(pawns, [2, 3, 1, 1], [1, 3, 2, 3], opener=B)
    assert forward_options(made) == {("green", 3), ("green", 5), ("red", 3), ("red", 5)}
    missed = scoring_state(pawns, [2, 3, 1, 1], [1, 3, 2, 3], opener=A)
    assert {m["pawn"] for m in scoring_moves(missed)} == {"green", "red"}
    state, events = act(missed, A, {"type": "choose_penalty_pawn", "pawn": "red"})
    assert (events[0]["from"], events[0]["to"]) == (9, 8)
    for won in (0, 4):
        state = scoring_state(pawns, [2, 3, 1, 1], [won, 3, 1, 5 - won], opener=A)
        _, events = act(state, A, {"type": "choose_penalty_pawn", "pawn": "green"})
        assert events[0]["steps"] == 2 and events[0]["to"] == 2


def test_example_EX_8_one_step_onto_green_one_jumps_to_seven() -> None:
    """EX-8: C bid 1 and won 1 at (0, 0): S = {1, 5}; 1 step lands on 1 and jumps to 7; 5 stops on 5."""
    state = scoring_state([[0, 0]] * 4, [1, 1, 1, 1], [3, 3, 1, 2], opener=C)
    assert forward_options(state) == {("green", 1), ("green", 5), ("red", 1), ("red", 5)}
    _, events = act(state, C, {"type": "choose_pawn_move", "pawn": "green", "steps": 1})
    assert events[0]["to"] == 7
    _, events = act(state, C, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert events[0]["to"] == 5


def test_example_EX_9_passing_red_dots_has_no_effect() -> None:
    """EX-9: a pawn on 29, bid 4 made: 33."""
    state = scoring_state([[0, 0], [29, 0], [0, 0], [0, 0]], [2, 4, 1, 1], [1, 4, 2, 2], opener=B)
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 4})
    assert events[0]["to"] == 33


def test_example_EX_10_penalty_onto_red_dot_goes_to_25() -> None:
    """EX-10: B bid 2 won 3 at (33, 0); red is on start so green takes it: 33 -> 32 -> 25."""
    state = scoring_state([[0, 0], [33, 0], [0, 0], [0, 0]], [1, 2, 2, 1], [1, 3, 1, 4], opener=B)
    events = continue_scoring(state)
    assert events[0]["type"] == "MoveAutoResolved" and events[0]["reason"] == "only_pawn"
    assert (events[0]["pawn"], events[0]["from"], events[0]["to"]) == ("green", 33, 25)


def test_example_EX_11_self_knock_off_is_legal() -> None:
    """EX-11: bid 3 made at (14, 2): red +5 -> 7 -> 14 knocks green to 0; the other options."""
    state = scoring_state([[0, 0], [14, 2], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 5})
    assert (events[0]["to"], events[0]["knocked_off"]) == (14, "green")
    for pawn, steps, end in (("red", 3, 5), ("green", 3, 17), ("green", 5, 19)):
        _after, events = act(state, B, {"type": "choose_pawn_move", "pawn": pawn, "steps": steps})
        assert events[0]["to"] == end and events[0]["knocked_off"] is None


def test_example_EX_12_knock_off_via_a_jump() -> None:
    """EX-12: bid 1 made at (7, 0): red +1 -> 1 -> 7 knocks green to 0 (legal, HP-R15)."""
    state = scoring_state([[0, 0], [7, 0], [0, 0], [0, 0]], [2, 1, 1, 1], [2, 1, 3, 3], opener=B)
    after, events = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 1})
    assert after.pawns[B] == [0, 7] and events[0]["knocked_off"] == "green"
    ends = {}
    for pawn, steps in (("red", 5), ("green", 1), ("green", 5)):
        _, events = act(state, B, {"type": "choose_pawn_move", "pawn": pawn, "steps": steps})
        ends[(pawn, steps)] = events[0]["to"]
    assert ends == {("red", 5): 5, ("green", 1): 8, ("green", 5): 12}


def test_example_EX_13_red_dot_sends_to_occupied_25() -> None:
    """EX-13: at (25, 27), bid 3 made: red +3 -> 30 -> 25 knocks green to 0."""
    state = scoring_state([[0, 0], [25, 27], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 3})
    assert after.pawns[B] == [0, 25]


def test_example_EX_14_exact_35() -> None:
    """EX-14: at (35, 33) bid 4 made: 37 and 38 overshoot, nothing moves; bid 2 made: red finishes, win."""
    state = scoring_state([[0, 0], [35, 33], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B)
    assert scoring_moves(state) == []  # no choice: applied automatically
    events = continue_scoring(state)
    assert events[0]["reason"] == "no_legal_move" and events[0]["pawn"] is None
    state = scoring_state([[0, 0], [35, 33], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B)
    events = continue_scoring(state)
    assert events[0]["to"] == 35 and events[-1]["type"] == "GameEnded" and events[-1]["winner"] == B


def test_example_EX_15_white_pawn_bid_three() -> None:
    """EX-15: white pawn, bid 3 made: S = {6, 10}, either pawn; missed by 1: one step back, not two."""
    state = scoring_state([[0, 0], [4, 12], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], white_seat=B)
    assert forward_options(state) == {("green", 6), ("green", 10), ("red", 6), ("red", 10)}
    state = scoring_state([[0, 0], [4, 12], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 2, 2, 3], white_seat=B)
    _, events = act(state, B, {"type": "choose_penalty_pawn", "pawn": "red"})
    assert events[0]["steps"] == 1 and events[0]["to"] == 11


def test_example_EX_16_white_pawn_bid_one() -> None:
    """EX-16: white pawn, bid 1 made: S = {1, 2, 10}; from 0 one step -> 1 -> 7."""
    state = scoring_state([[0, 0], [0, 0], [0, 0], [0, 0]], [1, 1, 1, 1], [3, 1, 2, 3], white_seat=B)
    assert {s for _, s in forward_options(state)} == {1, 2, 10}
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 1})
    assert events[0]["to"] == 7


def test_example_EX_17_quick_version_with_white_pawn() -> None:
    """EX-17: quick version; the lowest player opens with the white pawn, bids 3 spades, discards 9D,
    wins 3, moves 2 x 3 = 6: 1 + 6 = 7 -> 14. Next round: the then-lowest gets the white pawn, the next
    seat deals."""
    state = new_game(4, {B: ["9D", "10S"]}, pawns_per_player=1, age_rank=[2, 1, 3, 4])
    assert state.white_offer == B and len(state.pawns[B]) == 1
    state, _ = act(state, B, {"type": "choose_white_pawn", "use": True})
    state, _ = act(state, B, {"type": "bid", "n": 3, "trump": "S"})
    state, _ = act(state, B, {"type": "discard", "card": "9D"})
    assert state.discards[B] == "9D" and state.trump == "S" and state.phase == BIDDING
    scoring = scoring_state(
        [[10], [1], [4], [0]], [1, 3, 1, 1], [2, 3, 3, 1], white_seat=B, pawns_per_player=1
    )
    scoring.round = 3
    assert forward_options(scoring) == {("green", 6), ("green", 10)}
    after, events = act(scoring, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 6})
    assert events[0]["to"] == 14
    # A missed (10 -> 9), C missed (4 -> 2), D made 1 (0 -> 1 -> 7 or 0 -> 5: a choice)
    assert after.scoring_seat == D
    after, events = act(after, D, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    nxt = events[-1]
    assert after.pawns == [[9], [14], [2], [5]]
    assert nxt["type"] == "RoundStarted" and nxt["dealer"] == B and nxt["opener"] == C
    assert nxt["white_offer"] == C


def test_example_EX_18_white_pawn_holder_by_lowest_then_other_pawn_then_youngest() -> None:
    """EX-18: A (0, 12), B (0, 5), C (3, 20), D (7, 35): B. If B were (0, 12): the younger of A and B."""
    table = ENGINE.initial_state(config(4, age_rank=[3, 4, 1, 2])).table
    assert white_offer(table, [[0, 12], [0, 5], [3, 20], [7, 35]], 2) == B
    assert white_offer(table, [[0, 12], [12, 0], [3, 20], [7, 35]], 2) == A
    table = ENGINE.initial_state(config(4, age_rank=[4, 3, 1, 2])).table
    assert white_offer(table, [[0, 12], [12, 0], [3, 20], [7, 35]], 2) == B


def test_example_EX_19_back_onto_green_does_not_jump() -> None:
    """EX-19: a pawn on 9, penalty 2: 7, no jump."""
    state = scoring_state([[0, 0], [9, 0], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 1, 3, 3], opener=B)
    events = continue_scoring(state)
    assert events[0]["to"] == 7


def test_example_EX_20_penalty_stops_at_start() -> None:
    """EX-20: a pawn on 2, penalty 3: 0."""
    state = scoring_state([[0, 0], [2, 0], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 1, 3, 3], opener=B)
    assert continue_scoring(state)[0]["to"] == 0


def test_example_EX_21_dealer_and_opener_rotate() -> None:
    """EX-21: round 1 dealer A, opener B; round 2 dealer B, opener C."""
    state = new_game(4)
    assert (state.round, state.dealer, state.opener) == (1, A, B)
    state, _ = finish_round(state)
    assert (state.round, state.dealer, state.opener) == (2, B, C)


def test_example_EX_22_first_finisher_in_scoring_order_wins() -> None:
    """EX-22: B and C could both finish; B scores first and wins; C's result is not applied."""
    state = scoring_state([[0, 0], [35, 29], [35, 33], [0, 0]], [1, 6, 2, 1], [0, 6, 2, 1], opener=B)
    after, events = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 6})
    assert after.phase == GAME_OVER and after.winner == B
    assert [e["type"] for e in events] == ["PawnMoved", "GameEnded"]
    assert after.pawns[C] == [35, 33]
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.ranks == [2, 1, 2, 2]


def test_example_EX_23_everybody_misses() -> None:
    """EX-23: bids 1, 1, 1, 1; tricks 3, 2, 2, 2: all miss (2, 1, 1, 1) and move back."""
    pawns = [[0, 6], [5, 8], [3, 0], [0, 4]]
    state = scoring_state(pawns, [1, 1, 1, 1], [2, 3, 2, 2], opener=B)
    _after, events = act(state, B, {"type": "choose_penalty_pawn", "pawn": "red"})
    moved = [(e["seat"], e["steps"], e["from"], e["to"]) for e in events if e["type"] != "RoundStarted"]
    assert moved == [(B, 2, 8, 6), (C, 1, 3, 2), (D, 1, 4, 3), (A, 1, 6, 5)]


def test_example_EX_24_two_players() -> None:
    """EX-24: two players; the first bids 4: the second may bid 1-4 or 6-9. Round 2 uses the reserve."""
    state = white(new_game(2))
    reserve = list(state.reserve)
    assert len(reserve) == 20 and all(len(h) == 10 for h in state.hands)
    state = bid_all(state, [4])
    assert _legal_bids(state, state.turn) == [1, 2, 3, 4, 6, 7, 8, 9]
    state, _ = finish_round(state)
    assert state.round == 2 and ENGINE.chance_request(state) is None
    assert sorted(state.hands[0] + state.hands[1]) == sorted(reserve)


def test_example_EX_25_three_players() -> None:
    """EX-25: three players: trump spades, hearts, clubs or none; bids 3, 4: the third may not bid 2."""
    state = white(new_game(3))
    assert {m["trump"] for m in ENGINE.legal_moves(state, state.opener)} == {"S", "H", "C", "none"}
    state = bid_all(state, [3, 4])
    assert _legal_bids(state, state.turn) == [1, 3, 4, 5, 6]


def test_example_EX_26_team_partner_pawns() -> None:
    """EX-26: X has both pawns on 35, partner Y (10, 20). X bid 2 made: one of Y's pawns +2 or +5;
    X missed by 1: one of Y's pawns -1."""
    pawns = [[0, 0], [35, 35], [0, 0], [10, 20]]
    state = scoring_state(pawns, [1, 2, 1, 1], [2, 2, 3, 2], opener=B, mode="team")
    assert forward_options(state) == {("green", 2), ("green", 5), ("red", 2), ("red", 5)}
    after, events = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 5})
    assert events[0]["owner"] == D and after.pawns[D] == [10, 25] and after.pawns[B] == [35, 35]
    state = scoring_state(pawns, [1, 2, 1, 1], [2, 1, 3, 3], opener=B, mode="team")
    assert {m["pawn"] for m in scoring_moves(state)} == {"green", "red"}
    after, _ = act(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert after.pawns[D] == [9, 20]
