"""Numbered rules HP-1 to HP-48: each test names the rule(s) it checks."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.hoppaa.cards import deck, trick_winner
from services.games.engines.hoppaa.moves import continue_scoring
from services.games.engines.hoppaa.rules import white_offer
from services.games.engines.hoppaa.state import BIDDING, GAME_OVER, PLAY, SCORING, WHITE_PAWN

from .helpers import (
    ENGINE,
    A,
    B,
    C,
    D,
    act,
    bid_all,
    deal_event,
    finish_round,
    forward_options,
    new_game,
    scoring_moves,
    scoring_state,
    white,
)


def _rule(exc: pytest.ExceptionInfo[IllegalMove]) -> str:
    return exc.value.rule


def test_HP_1_HP_2_HP_3_clockwise_dealer_and_opener_rotation() -> None:
    """HP-1, HP-2, HP-3: next is seat + 1 mod n; the dealer moves on; the opener follows the dealer."""
    state = new_game(3, first_dealer=2)
    assert (state.dealer, state.opener) == (2, 0)
    state, _ = finish_round(state)
    assert (state.round, state.dealer, state.opener) == (2, 0, 1)


def test_HP_4_deal_one_at_a_time_from_the_seat_after_the_dealer() -> None:
    """HP-4: ten cards each; card k of the shuffled deck goes to seat (dealer + 1 + k) mod n."""
    cfg_state = new_game(4, first_dealer=2)
    assert all(len(h) == 10 for h in cfg_state.hands)
    # deal_event put each requested card at the right deck index; check the mapping directly
    state = new_game(4, {3: ["10S", "9S"]}, first_dealer=2)
    assert state.hands[3][:2] == ["10S", "9S"]
    assert ENGINE.chance_request(new_game(4)) is None


def test_HP_5_three_players_play_without_diamonds() -> None:
    """HP-5: with 3 players the ten diamonds are removed and all 30 cards are dealt."""
    state = new_game(3)
    cards = [c for h in state.hands for c in h]
    assert len(cards) == 30 and not any(c.endswith("D") for c in cards) and state.reserve == []
    assert len(deck(3)) == 30


def test_HP_6_two_players_reserve_in_even_rounds() -> None:
    """HP-6: 2 players: odd rounds shuffle all 40, deal 10 each, set 20 aside; even rounds deal the reserve."""
    state = new_game(2)
    assert [len(h) for h in state.hands] == [10, 10] and len(state.reserve) == 20
    reserve = sorted(state.reserve)
    state, _ = finish_round(state)
    assert sorted(state.hands[0] + state.hands[1]) == reserve and state.reserve == []
    state, _ = finish_round(state)
    assert state.round == 3 and ENGINE.chance_request(state) is not None
    state = ENGINE.evolve(state, deal_event(state))
    assert len(state.reserve) == 20 and state.out_of_play == []


def test_HP_7_HP_8_HP_10_HP_11_white_pawn_offer_in_round_one() -> None:
    """HP-7, HP-8, HP-10, HP-11: after the deal the youngest is offered the white pawn; a decline means
    nobody plays with it; the choice is public and comes before the first bid."""
    state = new_game(4, age_rank=[3, 4, 1, 2])
    assert state.phase == WHITE_PAWN and state.white_offer == C and ENGINE.to_move(state) == [C]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "bid", "n": 2, "trump": "S"})
    assert _rule(err) == "HP-10"
    state, _events = act(state, C, {"type": "choose_white_pawn", "use": False})
    assert state.white_used is False and state.phase == BIDDING and state.turn == B
    assert ENGINE.view(state, A)["white_pawn"] == {"offered_to": C, "used": False}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_white_pawn", "use": True})
    assert _rule(err) == "HP-10"
    # declined: a made bid of C gets the normal option set
    scoring = scoring_state([[0, 0]] * 4, [1, 1, 3, 1], [2, 2, 3, 2], opener=C)
    scoring.white_offer, scoring.white_used = C, False
    assert {s for _, s in forward_options(scoring)} == {3, 5}


def test_HP_9_white_pawn_from_round_two_goes_to_lowest_pawn() -> None:
    """HP-9: from round 2 the lowest pawn (finished = 35), then the other pawn, then the youngest."""
    state = scoring_state([[0, 9], [0, 35], [4, 35], [0, 20]], [1, 1, 1, 1], [3, 2, 2, 2], opener=B)
    state.round = 1
    events = continue_scoring(state)
    assert all(e["type"] == "MoveAutoResolved" for e in events[:-1])
    after = state
    for e in events:
        after = ENGINE.evolve(after, e)
    assert after.pawns == [[0, 7], [0, 35], [3, 35], [0, 19]]
    started = events[-1]
    assert started["type"] == "RoundStarted" and started["round"] == 2
    assert started["white_offer"] == A  # ties on 0; other pawns 7 < 19 < 35 (finished counts 35)


def test_HP_12_HP_16_bid_then_discard_in_clockwise_order() -> None:
    """HP-12, HP-16: the opener bids first, then clockwise; each discards right after his bid."""
    state = white(new_game(4))
    assert state.turn == B
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "bid", "n": 2})
    assert _rule(err) == "HP-12"
    state, _ = act(state, B, {"type": "bid", "n": 2, "trump": "none"})
    assert state.discard_pending and ENGINE.legal_moves(state, B)[0]["type"] == "discard"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "bid", "n": 2, "trump": "none"})
    assert _rule(err) == "HP-16"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(
            state, B, {"type": "discard", "card": next(c for c in deck(4) if c not in state.hands[B])}
        )
    assert _rule(err) == "HP-16"
    state, _ = act(state, B, {"type": "discard", "card": state.hands[B][0]})
    assert state.turn == C and not state.discard_pending


def test_HP_13_bid_range() -> None:
    """HP-13: 1-6 with 3 or 4 players, 1-9 with 2; zero never."""
    for n, top in ((4, 6), (3, 6), (2, 9)):
        state = white(new_game(n))
        bids = {m["n"] for m in ENGINE.legal_moves(state, state.opener)}
        assert bids == set(range(1, top + 1))
        for bad in (0, top + 1, -1, "3", True, 2.0):
            with pytest.raises(IllegalMove) as err:
                ENGINE.decide(state, state.opener, {"type": "bid", "n": bad, "trump": "none"})
            assert _rule(err) == "HP-13"


def test_HP_14_only_the_opener_chooses_trump() -> None:
    """HP-14: the opener names a suit in play or no-trump with his bid (without holding it); others don't."""
    hands = {B: ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"]}
    state = white(new_game(4, hands))
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "bid", "n": 2})
    assert _rule(err) == "HP-14"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "bid", "n": 2, "trump": "X"})
    assert _rule(err) == "HP-14"
    state, _ = act(state, B, {"type": "bid", "n": 2, "trump": "H"})  # holds no heart
    state, _ = act(state, B, {"type": "discard", "card": "AS"})
    assert state.trump == "H"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "bid", "n": 2, "trump": "S"})
    assert _rule(err) == "HP-14"
    assert all("trump" not in m for m in ENGINE.legal_moves(state, C))


def test_HP_15_last_bidder_may_not_make_the_sum_nine() -> None:
    """HP-15: only the last bidder is limited; the bid that makes exactly 9 is refused."""
    state = bid_all(white(new_game(4)), [4, 3])
    assert {m["n"] for m in ENGINE.legal_moves(state, state.turn)} == set(range(1, 7))  # D may bid 2
    state = bid_all(state.__class__.clone(state), [])
    state, _ = act(state, D, {"type": "bid", "n": 1})
    state, _ = act(state, D, {"type": "discard", "card": state.hands[D][0]})
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, A, {"type": "bid", "n": 1})
    assert _rule(err) == "HP-15" and "9" in err.value.message


def test_HP_17_discards_take_no_part_and_nine_cards_are_played() -> None:
    """HP-17: every player plays 9 cards; discards never appear in a trick."""
    state = bid_all(white(new_game(4)), [1, 2, 2, 2])
    discards = set(state.discards)
    assert all(len(h) == 9 for h in state.hands)
    state, log = finish_round(state)
    played = [c for e in log if e["type"] == "TrickWon" for c in e["cards"]]
    assert len(played) == 36 and not discards & set(played)
    with pytest.raises(IllegalMove) as err:
        s2 = bid_all(white(new_game(4)), [1, 2, 2, 2])
        ENGINE.decide(s2, s2.turn, {"type": "play_card", "card": s2.discards[s2.turn]})
    assert _rule(err) == "HP-17"


def _trick_state():  # type: ignore[no-untyped-def]
    hands = {
        B: ["5H", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"],
        C: ["10H", "AD"],
        D: ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "AC"],
        A: ["9H", "2H"],
    }
    return bid_all(white(new_game(4, hands)), [4, 1, 1, 1], trump="C")


def test_HP_18_HP_19_HP_20_lead_any_card_then_clockwise() -> None:
    """HP-18, HP-19, HP-20: the highest bidder leads any card (a trump too); the others follow clockwise."""
    state = _trick_state()
    assert state.phase == PLAY and state.turn == B
    assert len(ENGINE.legal_moves(state, B)) == 9
    state, _ = act(state, B, {"type": "play_card", "card": "5H"})
    assert ENGINE.to_move(state) == [C]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, D, {"type": "play_card", "card": "2C"})
    assert _rule(err) == "HP-20"


def test_HP_21_HP_22_follow_suit_else_anything_trumping_optional() -> None:
    """HP-21, HP-22: follow the led suit with any card of it; void: trump or discard, trumping optional."""
    state = _trick_state()
    state, _ = act(state, B, {"type": "play_card", "card": "5H"})
    assert {m["card"] for m in ENGINE.legal_moves(state, C)} <= {"10H"} | {
        c for c in state.hands[C] if "H" in c
    }
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, C, {"type": "play_card", "card": "AD"})
    assert _rule(err) == "HP-21" and err.value.code == "must_follow_suit"
    state, _ = act(state, C, {"type": "play_card", "card": "10H"})
    assert len(ENGINE.legal_moves(state, D)) == 9  # D has only clubs (trump): any card
    state, _ = act(state, D, {"type": "play_card", "card": "2C"})
    state, events = act(state, A, {"type": "play_card", "card": "9H"})
    assert events[-1]["winner"] == D  # low trump beats the 10 of hearts


def test_HP_23_highest_trump_else_highest_of_led_suit() -> None:
    """HP-23: highest trump wins; without trump the highest card of the led suit; 10 high, ace low."""
    assert trick_winner([(0, "5H"), (1, "10S"), (2, "AH"), (3, "6H")], "C") == 3
    assert trick_winner([(0, "5H"), (1, "2C"), (2, "3C"), (3, "10H")], "C") == 2
    assert trick_winner([(0, "AH"), (1, "2H")], "none") == 1
    assert trick_winner([(0, "9D"), (1, "10D")], "D") == 1


def test_HP_24_HP_25_winner_leads_and_nine_tricks() -> None:
    """HP-24, HP-25: the trick winner leads the next trick; a round has 9 tricks."""
    state = _trick_state()
    for seat, card in ((B, "5H"), (C, "10H"), (D, "2C"), (A, "9H")):
        state, _ = act(state, seat, {"type": "play_card", "card": card})
    assert state.turn == D and state.trick == []
    state, log = finish_round(state)
    assert sum(1 for e in log if e["type"] == "TrickWon") == 8


def test_HP_26_HP_27_results_in_order_from_the_opener() -> None:
    """HP-26, HP-27: t is compared with b for each player, opener first, one at a time."""
    state = scoring_state([[4, 8]] * 4, [1, 1, 1, 1], [2, 2, 3, 2], opener=C)
    assert ENGINE.to_move(state) == [C]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert _rule(err) == "HP-27"
    state, _ = act(state, C, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert ENGINE.to_move(state) == [D]


def test_HP_28_made_bid_moves_b_or_5() -> None:
    """HP-28: t = b: one pawn forward b or 5 steps; other counts refused."""
    state = scoring_state([[0, 0], [2, 9], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B)
    assert forward_options(state) == {("green", 4), ("green", 5), ("red", 4), ("red", 5)}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 3})
    assert _rule(err) == "HP-28"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert _rule(err) == "HP-28"


def test_HP_29_white_pawn_doubles() -> None:
    """HP-29: with the white pawn and t = b: S = {2b, 10} (b = 1 adds 1)."""
    state = scoring_state([[0, 0], [2, 9], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 2, 3, 2], white_seat=B)
    assert {s for _, s in forward_options(state)} == {4, 10}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 2})
    assert _rule(err) == "HP-29"


def test_HP_30_missed_bid_moves_back_the_difference_never_doubled() -> None:
    """HP-30: t != b: one pawn back |t - b| steps; the white pawn does not double it."""
    state = scoring_state([[0, 0], [12, 20], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], white_seat=B)
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 4})
    assert _rule(err) == "HP-30"
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "decline_move"})
    assert _rule(err) == "HP-30"
    after, events = act(state, B, {"type": "choose_penalty_pawn", "pawn": "red"})
    assert events[0]["steps"] == 3 and after.pawns[B] == [12, 17]


def test_HP_31_all_steps_to_one_pawn() -> None:
    """HP-31: a result moves a single pawn; the other stays."""
    state = scoring_state([[0, 0], [12, 20], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B)
    after, _ = act(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert after.pawns[B] == [9, 20]


def test_HP_32_movable_pawns_are_own_pawns_not_on_35() -> None:
    """HP-32: own pawns not on 35 (solo); partner's only once all own pawns are on 35 (team)."""
    state = scoring_state([[0, 0], [35, 10], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B)
    assert {p for p, _ in forward_options(state)} == {"red"}
    state = scoring_state(
        [[0, 0], [35, 10], [0, 0], [5, 6]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B, mode="team"
    )
    assert {p for p, _ in forward_options(state)} == {"red"}  # own red first, not the partner's
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "blue", "steps": 2})
    assert _rule(err) == "HP-32"


def test_HP_33_forward_move_may_not_pass_35_and_pawn_on_0_may_move() -> None:
    """HP-33: legal only if pos + s <= 35; a pawn on 0 may be picked."""
    state = scoring_state([[0, 0], [0, 31], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 5, 1, 1], opener=B)
    assert forward_options(state) == {("green", 5)}  # red 31 + 5 = 36
    state = scoring_state([[0, 0], [0, 31], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B)
    assert forward_options(state) == {("green", 4), ("green", 5), ("red", 4)}
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 5})
    assert _rule(err) == "HP-33"


def test_HP_34_no_legal_forward_move_nothing_moves() -> None:
    """HP-34: no forward move is legal: no pawn moves (an automatic result)."""
    state = scoring_state([[0, 0], [35, 34], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    events = continue_scoring(state)
    assert events[0]["type"] == "MoveAutoResolved" and events[0]["pawn"] is None and events[0]["steps"] == 0


def test_HP_35_a_legal_forward_move_is_compulsory() -> None:
    """HP-35: with a legal forward move the player must make one (decline_move is refused)."""
    state = scoring_state([[0, 0], [3, 9], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 2, 3, 2], opener=B)
    assert all(m["type"] == "choose_pawn_move" for m in scoring_moves(state))
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "decline_move"})
    assert _rule(err) == "HP-35"


def test_HP_36_penalty_pawn_not_on_start_and_lapse() -> None:
    """HP-36: the penalty pawn is not on 0; to max(0, pos - d); with no such pawn the penalty lapses."""
    state = scoring_state([[0, 0], [0, 7], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B)
    assert continue_scoring(state)[0]["to"] == 4
    state = scoring_state([[0, 0], [2, 7], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B)
    after, _ = act(state, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert after.pawns[B] == [0, 7]
    state = scoring_state([[0, 0], [0, 2], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B)
    state.pawns[B] = [0, 0]
    event = continue_scoring(state)[0]
    assert event["reason"] == "penalty_lapses" and event["pawn"] is None


def test_HP_36_choose_pawn_on_start_is_refused() -> None:
    """HP-36: a pawn on 0 cannot take the penalty (team partner with one pawn on 0)."""
    state = scoring_state(
        [[0, 0], [35, 35], [0, 0], [0, 9]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B, mode="team"
    )
    state.pawns[D] = [0, 9]
    # one candidate only: automatic
    assert continue_scoring(state)[0]["pawn"] == "red"
    both = scoring_state([[0, 0], [4, 9], [0, 0], [0, 0]], [1, 2, 1, 1], [2, 5, 1, 1], opener=B)
    both.pawns[B] = [0, 9]
    both.pawns[B] = [4, 9]
    after, _ = act(both, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert after.pawns[B] == [1, 9]
    zero = both.clone()
    zero.pawns[B] = [0, 9]
    zero.pawns[A] = [0, 0]
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(zero, B, {"type": "choose_penalty_pawn", "pawn": "green"})
    assert _rule(err) == "HP-36"


def test_HP_37_green_numbers_jump_once() -> None:
    """HP-37: ending on 1, 7, 14 or 21 jumps to the next green number, once; 25 does not jump."""
    cases = {(0, 1): 7, (2, 5): 14, (9, 5): 21, (16, 5): 25, (20, 5): 25, (3, 4): 14}
    for (start, steps), end in cases.items():
        bid = steps if steps != 5 else 1
        state = scoring_state(
            [[0, 0], [start, 0], [0, 0], [0, 0]], [1, bid, 1, 1], [2, bid, 3, 5 - bid], opener=B
        )
        state.pawns[B] = [start, 0] if start else [0, 0]
        _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": steps})
        assert events[0]["to"] == end, (start, steps)


def test_HP_38_backward_move_never_jumps() -> None:
    """HP-38: a backward move ending on a green number stays there."""
    state = scoring_state([[0, 0], [16, 0], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 1, 3, 3], opener=B)
    assert continue_scoring(state)[0]["to"] == 14


def test_HP_39_red_dots_send_to_25_passing_has_no_effect() -> None:
    """HP-39: any move ending on 30 or 32 goes to 25; passing over them does nothing."""
    state = scoring_state([[0, 0], [27, 0], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert events[0]["to"] == 25  # 32 -> 25
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 3})
    assert events[0]["to"] == 25  # 30 -> 25
    state = scoring_state([[0, 0], [28, 0], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    _, events = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 3})
    assert events[0]["to"] == 31


def test_HP_40_finished_pawn_never_moves() -> None:
    """HP-40: ending exactly on 35 finishes the pawn; a finished pawn is never offered or accepted."""
    state = scoring_state([[0, 0], [35, 10], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 3, 2, 2], opener=B)
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 3})
    assert _rule(err) == "HP-40"
    state = scoring_state([[0, 0], [31, 10], [0, 0], [0, 0]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 4})
    assert after.pawns[B] == [35, 10]
    missed = scoring_state([[0, 0], [35, 10], [0, 0], [0, 0]], [1, 3, 1, 1], [2, 1, 3, 3], opener=B)
    assert continue_scoring(missed)[0]["pawn"] == "red"


def test_HP_41_knock_off_on_final_square_only() -> None:
    """HP-41: the other pawn on the final square (1-34) goes to 0; squares 0 and 35 may hold two."""
    state = scoring_state([[0, 0], [3, 8], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 5, 1, 1], opener=B)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert after.pawns[B] == [8, 0]
    state = scoring_state([[0, 0], [3, 5], [0, 0], [0, 0]], [1, 5, 1, 1], [2, 5, 1, 1], opener=B)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 5})
    assert after.pawns[B] == [8, 5]  # passing over the red pawn does nothing
    state = scoring_state([[0, 0], [35, 30 - 1], [0, 0], [0, 0]], [1, 6, 1, 1], [2, 6, 1, 0], opener=B)
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "red", "steps": 6})
    assert after.pawns[B] == [35, 35]


def test_HP_42_HP_44_solo_win_ends_the_game_at_once() -> None:
    """HP-42, HP-44: a player with all pawns on 35 wins at once; nothing after is applied or allowed."""
    state = scoring_state([[0, 0], [35, 31], [33, 33], [0, 0]], [1, 4, 2, 1], [2, 4, 2, 1], opener=B)
    state.pawns[C] = [33, 34]
    events = continue_scoring(state)
    assert [e["type"] for e in events] == ["MoveAutoResolved", "GameEnded"]
    after = state
    for e in events:
        after = ENGINE.evolve(after, e)
    assert after.phase == GAME_OVER and ENGINE.to_move(after) == []
    with pytest.raises(IllegalMove) as err:
        ENGINE.decide(after, C, {"type": "choose_pawn_move", "pawn": "green", "steps": 2})
    assert _rule(err) == "HP-44"
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.ranks == [2, 1, 2, 2]


def test_HP_43_team_wins_when_all_four_pawns_are_in() -> None:
    """HP-43: in team mode a player's own finish is not enough; the team wins with all four pawns."""
    state = scoring_state(
        [[0, 0], [35, 31], [0, 0], [20, 20 + 1]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B, mode="team"
    )
    events = continue_scoring(state)
    assert events[-1]["type"] != "GameEnded"
    state = scoring_state(
        [[0, 0], [35, 31], [0, 0], [35, 35]], [1, 4, 1, 1], [2, 4, 1, 2], opener=B, mode="team"
    )
    events = continue_scoring(state)
    assert events[-1]["type"] == "GameEnded" and events[-1]["seats"] == [1, 3]
    after = state
    for e in events:
        after = ENGINE.evolve(after, e)
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.team_ranks == [2, 1] and outcome.ranks == [2, 1, 2, 1]
    assert outcome.teams == [[0, 2], [1, 3]]


def test_HP_45_no_ties_one_winner() -> None:
    """HP-45: results are applied in order, so exactly one player wins even if two could."""
    state = scoring_state([[35, 33], [35, 31], [0, 0], [0, 0]], [2, 4, 1, 1], [2, 4, 1, 2], opener=B)
    events = continue_scoring(state)
    assert events[-1]["winner"] == B and sum(1 for e in events if e["type"] == "GameEnded") == 1


def test_HP_46_new_round_when_nobody_won() -> None:
    """HP-46: after all results without a winner, a new round starts (no round limit)."""
    state = scoring_state([[0, 0]] * 4, [1, 1, 1, 1], [2, 2, 3, 2], opener=B)
    state.round = 57
    events = continue_scoring(state)
    assert events[-1]["type"] == "RoundStarted" and events[-1]["round"] == 58
    after = state
    for e in events:
        after = ENGINE.evolve(after, e)
    assert ENGINE.chance_request(after) is not None


def test_HP_47_team_partners_bid_for_own_contracts_with_four_player_limits() -> None:
    """HP-47: in team mode both partners bid (1-6) and score their own contracts."""
    state = white(new_game(4, mode="team"))
    assert {m["n"] for m in ENGINE.legal_moves(state, B)} == set(range(1, 7))
    state = scoring_state([[0, 0], [3, 0], [0, 0], [0, 0]], [1, 2, 1, 2], [2, 2, 3, 2], opener=B, mode="team")
    after, _ = act(state, B, {"type": "choose_pawn_move", "pawn": "green", "steps": 2})
    assert (after.pawns[B] == [5, 0] and after.scoring_seat == C) or after.phase == SCORING


def test_HP_48_team_white_pawn_uses_own_pawns() -> None:
    """HP-48: the white pawn in team mode looks at each player's own pawns."""
    table = new_game(4, mode="team").table
    # D's own pawns are in; partner B's pawn on 0 does not make D "lowest"
    assert white_offer(table, [[0, 12], [0, 5], [3, 20], [35, 35]], 2) == B
    assert white_offer(table, [[6, 12], [8, 5], [3, 20], [35, 35]], 2) == C
