"""One or more tests per numbered rule KL-1 .. KL-48 of rules/klapper.md."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.klapper.cards import NAMES, points
from services.games.engines.klapper.decide import _deal_scored
from services.games.engines.klapper.melds import MELD_VALUES, best_total, meld_problem
from services.games.engines.klapper.rules import additions, game_winner, legal_cards, roem_award
from services.games.engines.klapper.state import KlapperState

from .support import (
    E,
    bid,
    complete,
    config,
    dealt,
    deck_for_two,
    ids,
    moves,
    play,
    play_out_deal,
    run,
    shuffle_event,
)

S, H, D, C = 0, 1, 2, 3
RUN3 = {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AS", "KS", "QS"]}]}


def rejected(state: KlapperState, seat: int, move: Any) -> IllegalMove:
    with pytest.raises(IllegalMove) as err:
        E.decide(state, seat, move)
    assert err.value.message and err.value.code
    return err.value


# --- seats and first dealer --------------------------------------------------------------
def test_KL1_clockwise_and_voorhand_after_dealer() -> None:
    state = dealt(4, {}, dealer=2)
    assert state.voorhand == 3 and E.to_move(state) == [3]
    state = run(state, 3, bid("pass"))
    assert E.to_move(state) == [0]
    assert rejected(state, 1, bid("pass")).rule == "KL-1"


def test_KL1_clockwise_follows_omboeren_table() -> None:
    state = E.initial_state(config(4, seating="omboeren"))
    state = E.evolve(
        state, shuffle_event("omboeren", complete(["10H", "JS", "AC", "JD", "KS", "JH", "9C", "JC"]))
    )
    state = E.evolve(state, shuffle_event("deal", complete([])))
    assert state.table == [1, 3, 0, 2] and state.voorhand == 3
    state = run(state, 3, bid("pass"))
    assert E.to_move(state) == [0]


def test_KL2_omboeren_skips_jack_holders_until_all_four_have_one() -> None:
    # covers KL-2 (see RULES.md)
    order = complete(["JS", "JH", "9S", "JD", "AS", "KS", "JC"])
    state = E.evolve(E.initial_state(config(4, seating="omboeren")), shuffle_event("omboeren", order))
    dealt_to = [s for s, _ in state.omboeren_cards]
    # seats 0 and 1 get jacks, then 2, 3, (skip 0, 1), 2, 3 ... 2 gets JC at last
    assert dealt_to == [0, 1, 2, 3, 2, 2, 2]
    assert state.phase == "dealing" and state.pending == "deal"


def test_KL3_first_jack_deals() -> None:
    # covers KL-3 (see RULES.md)
    order = complete(["AS", "KS", "JD", "JS", "JH", "JC"])
    state = E.evolve(E.initial_state(config(4, seating="omboeren")), shuffle_event("omboeren", order))
    assert state.dealer == 2 and state.table[0] == 2


def test_KL4_red_jacks_and_black_jacks_are_partners_opposite() -> None:
    # covers KL-4 (see RULES.md)
    order = complete(["JC", "JH", "JS", "JD"])
    state = E.evolve(E.initial_state(config(4, seating="omboeren")), shuffle_event("omboeren", order))
    assert state.table == [0, 1, 2, 3]
    assert state.side_of == [0, 1, 0, 1]
    order = complete(["JC", "JH", "JD", "JS"])
    state = E.evolve(E.initial_state(config(4, seating="omboeren")), shuffle_event("omboeren", order))
    assert state.table == [0, 1, 3, 2]  # JC's partner (JS, seat 3) sits opposite
    assert state.side_of[0] == state.side_of[3] and state.side_of[1] == state.side_of[2]


@pytest.mark.parametrize("n", [2, 3, 6])
def test_KL5_omboeren_only_picks_first_dealer(n: int) -> None:
    # covers KL-5 (see RULES.md)
    order = complete(["AS", "KS", "QS", "JS"])  # seat 3 % n gets the first jack
    state = E.evolve(E.initial_state(config(n, seating="omboeren")), shuffle_event("omboeren", order))
    assert state.dealer == 3 % n
    assert state.table == list(range(n))
    assert len(state.omboeren_cards) == 4
    if n == 6:
        assert state.side_of == [0, 1, 0, 1, 0, 1]
    else:
        assert state.side_of == list(range(n))


# --- dealing ------------------------------------------------------------------------------
def test_KL6_deal_one_at_a_time_from_voorhand() -> None:
    deck = complete([])
    state = E.evolve(E.initial_state(config(4, first_dealer=3)), shuffle_event("deal", deck))
    assert state.voorhand == 0
    assert state.hands[0] == ids([deck[i] for i in range(0, 24, 4)])
    assert state.hands[3] == ids([deck[i] for i in range(3, 24, 4)])


def test_KL7_dealers_last_card_turned_proposes_trump() -> None:
    # covers KL-7 (see RULES.md)
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"]})
    assert state.turned_card == ids(["KD"])[0]
    state = run(state, 1, bid("play"))
    assert state.trump == D


def test_KL8_turned_card_belongs_to_dealer_until_first_card() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"]})
    view = E.view(state, 2)
    assert view["turned_card"] == "KD" and view["turned_card_on_table"]
    assert ids(["KD"])[0] in state.hands[0]
    state = run(state, 1, bid("play"))
    first = E.legal_moves(state, 1)[0]
    state = run(state, 1, first)
    assert not E.view(state, 2)["turned_card_on_table"]
    assert E.view(state, 2)["turned_card"] == "KD"  # KL-R4: public all deal


def test_KL9_next_seat_deals_after_played_and_void_deals() -> None:
    # covers KL-9 (see RULES.md)
    state = dealt(4, {}, dealer=3)
    void = moves(
        state, *[(s, bid("pass")) for s in (0, 1, 2, 3)], *[(s, {"type": "pass"}) for s in (0, 1, 2, 3)]
    )
    assert E.evolve(void, shuffle_event("deal", complete([]))).dealer == 0
    played, _ = play_out_deal(run(state, 0, bid("play")), seed=1)
    assert played.deal_scored
    assert E.evolve(played, shuffle_event("deal", complete([]))).dealer == 0


# --- bidding --------------------------------------------------------------------------------
def test_KL10_round_one_from_voorhand_only_play_or_pass() -> None:
    state = dealt(4, {})
    assert E.legal_moves(state, 1) == [bid("play"), bid("pass")]
    assert rejected(state, 1, bid("maybe")).rule == "KL-10"
    assert rejected(state, 1, {"type": "choose_trump", "suit": "S"}).rule == "KL-10"
    assert rejected(state, 1, {"type": "pass"}).rule == "KL-10"


def test_KL11_first_play_is_speler_without_holding_trump() -> None:
    state = dealt(4, {2: ["AS", "KS", "QS", "AD", "KD", "QD"], 0: ["JS", "10S", "9S", "JD", "10D", "KH"]})
    state = moves(state, (1, bid("pass")), (2, bid("play")))  # seat 2 holds no heart
    assert state.speler == 2 and state.trump == H and state.phase == "play"
    assert rejected(state, 1, bid("pass")).rule == "KL-11"


def test_KL12_round_two_any_suit_including_proposed() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"]})
    state = moves(state, *[(s, bid("pass")) for s in (1, 2, 3, 0)])
    assert state.phase == "bidding_2"
    suits = {m["suit"] for m in E.legal_moves(state, 1) if m["type"] == "choose_trump"}
    assert suits == {"S", "H", "D", "C"}
    assert rejected(state, 1, bid("play")).rule == "KL-12"
    assert rejected(state, 1, {"type": "choose_trump", "suit": "X"}).rule == "KL-12"


def test_KL13_first_named_suit_wins_and_ends_bidding() -> None:
    # covers KL-13 (see RULES.md)
    state = dealt(4, {})
    state = moves(state, *[(s, bid("pass")) for s in (1, 2, 3, 0)], (1, {"type": "pass"}))
    state = run(state, 2, {"type": "choose_trump", "suit": "C"})
    assert state.speler == 2 and state.trump == C and state.phase == "play"
    assert E.to_move(state) == [1]
    assert rejected(state, 1, {"type": "choose_trump", "suit": "S"}).rule == "KL-11"


def test_KL14_all_pass_twice_void_nobody_scores() -> None:
    # covers KL-14 (see RULES.md)
    state = dealt(4, {})
    state = moves(state, *[(s, bid("pass")) for s in (1, 2, 3, 0)])
    events = []
    for s in (1, 2, 3, 0):
        events += E.decide(state, s, {"type": "pass"})
        state = run(state, s, {"type": "pass"})
    assert events[-1]["type"] == "DealVoided"
    assert state.score == [0, 0] and state.results[-1]["void"] is True
    assert E.chance_request(state) is not None and E.to_move(state) == []


def test_KL15_playing_side_is_speler_and_partner() -> None:
    # covers KL-15 (see RULES.md)
    state = run(dealt(4, {}), 1, bid("play"))
    assert state.playing_side == 1 and state.members(1) == [1, 3]
    assert E.view(state, 0)["playing_side"] == 1


# --- play of tricks -------------------------------------------------------------------------
def test_KL16_voorhand_leads_whoever_is_speler() -> None:
    # covers KL-16 (see RULES.md)
    state = moves(dealt(4, {}), (1, bid("pass")), (2, bid("pass")), (3, bid("play")))
    assert E.to_move(state) == [1]


def test_KL17_must_follow_suit() -> None:
    hand = ids(["AS", "9S", "AH", "KD"])
    trick = [(0, ids(["KS"])[0])]
    assert set(legal_cards(hand, trick, H)) == set(ids(["AS", "9S"]))


def test_KL17_trump_led_must_play_trump() -> None:
    hand = ids(["QH", "AS", "AD"])
    assert legal_cards(hand, [(0, ids(["JH"])[0])], H) == ids(["QH"])


def test_KL18_follow_any_card_even_if_trumped() -> None:
    # covers KL-18 (see RULES.md)
    hand = ids(["KC", "9C", "JH"])
    trick = [(0, ids(["AC"])[0]), (1, ids(["9H"])[0])]
    assert set(legal_cards(hand, trick, H)) == set(ids(["KC", "9C"]))


def test_KL19_cannot_follow_must_trump() -> None:
    hand = ids(["QH", "AD", "AS"])
    assert legal_cards(hand, [(0, ids(["AC"])[0])], H) == ids(["QH"])


def test_KL20_overtrump_else_undertrump() -> None:
    trick = [(0, ids(["AC"])[0]), (1, ids(["AH"])[0])]
    assert legal_cards(ids(["JH", "KH", "AD"]), trick, H) == ids(["JH"])
    assert set(legal_cards(ids(["KH", "QH", "AD"]), trick, H)) == set(ids(["KH", "QH"]))


def test_KL21_neither_follow_nor_trump_any_card() -> None:
    # covers KL-21 (see RULES.md)
    hand = ids(["AS", "9D", "KD"])
    assert set(legal_cards(hand, [(0, ids(["AC"])[0])], H)) == set(hand)


def test_KL22_duties_apply_when_partner_wins() -> None:
    # covers KL-22 (see RULES.md)
    trick = [(0, ids(["AC"])[0]), (1, ids(["9C"])[0])]  # seat 0's partner (2) must still trump
    assert legal_cards(ids(["9H", "AD"]), trick, H) == ids(["9H"])


def test_KL23_highest_trump_else_highest_of_led_suit() -> None:
    state = dealt(
        4,
        {
            1: ["KC", "AS", "KS", "QS", "JS", "10S"],
            2: ["AD", "JC", "10C", "9C", "KD", "QD"],
            3: ["9S", "AC", "QC", "JD", "10D", "9D"],
            0: ["AH", "KH", "QH", "JH", "10H", "9H"],
        },
    )
    state = moves(
        state, (1, bid("play")), (1, play("KC")), (2, play("10C")), (3, play("AC")), (0, play("9H"))
    )
    assert state.tricks[0].winner == 0  # the only trump
    state2 = dealt(
        4,
        {
            1: ["KC", "AS", "KS", "QS", "JS", "10S"],
            2: ["AD", "JC", "10C", "9C", "KD", "QD"],
            3: ["9S", "AC", "QC", "JD", "10D", "9D"],
            0: ["AH", "KH", "QH", "JH", "10H", "9H"],
        },
    )
    state2 = moves(state2, (1, bid("pass")), (2, bid("pass")), (3, bid("pass")), (0, bid("pass")))
    state2 = run(state2, 1, {"type": "choose_trump", "suit": "S"})
    state2 = moves(state2, (1, play("KC")), (2, play("10C")), (3, play("AC")), (0, play("AH")))
    assert state2.tricks[0].winner == 3  # AC beats 10C; the AH of another suit does not count


def test_KL24_winner_leads_next_trick() -> None:
    # covers KL-24 (see RULES.md)
    state = dealt(4, {})
    state = run(state, 1, bid("play"))
    for _ in range(4):
        seat = E.to_move(state)[0]
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    assert E.to_move(state) == [state.tricks[0].winner]


def test_KL25_engine_rejects_illegal_and_malformed_cards() -> None:
    state = dealt(4, {1: ["AS", "KS", "QS", "JS", "10S", "9S"], 2: ["AH", "KH", "QH", "JH", "AD", "9D"]})
    state = moves(state, (1, bid("play")), (1, play("AS")))  # proposed suit from dealer's last card
    assert rejected(state, 2, play("AS")).code == "not_in_hand"
    assert rejected(state, 2, play("ZZ")).rule == "KL-25"
    assert rejected(state, 2, {"type": "play_card"}).rule == "KL-25"
    assert rejected(state, 2, {"type": "jump"}).code == "unknown_move"
    assert rejected(state, 2, "nonsense").code == "malformed_move"


# --- card points ----------------------------------------------------------------------------
def test_KL26_card_points_table() -> None:
    trump = [points(c, H) for c in ids(["JH", "9H", "AH", "10H", "KH", "QH"])]
    plain = [points(c, H) for c in ids(["JS", "9S", "AS", "10S", "KS", "QS"])]
    assert trump == [20, 14, 11, 10, 4, 3] and plain == [2, 0, 11, 10, 4, 3]


def test_KL27_last_trick_scores_ten() -> None:
    # covers KL-27 (see RULES.md)
    _state, log = play_out_deal(run(dealt(4, {}), 1, bid("play")), seed=2, declare=False)
    scored = next(e for e in log if e["type"] == "DealScored")
    side = scored["last_trick_side"]
    assert scored["deal_points"][side] == scored["card_points"][side] + 10


@pytest.mark.parametrize("n", [3, 4, 6])
def test_KL28_card_points_total_162(n: int) -> None:
    _state, log = play_out_deal(run(dealt(n, {}), 1, bid("play")), seed=n, declare=False)
    scored = next(e for e in log if e["type"] == "DealScored")
    assert sum(scored["card_points"]) == 152 and sum(scored["deal_points"]) == 162


# --- roem -----------------------------------------------------------------------------------
def test_KL29_roem_only_in_first_trick_at_own_turn_once() -> None:
    state = dealt(4, {1: ["AS", "KS", "QS", "9D", "9C", "JD"], 2: ["AD", "KD", "QD", "9S", "10C", "JC"]})
    state = run(state, 1, bid("play"))
    state = run(state, 1, RUN3)
    assert rejected(state, 1, RUN3).code == "already_declared"
    assert not any(m["type"] == "declare_roem" for m in E.legal_moves(state, 1))
    state = run(state, 1, play("9C"))
    for seat in (2, 3, 0):
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    late = {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AD", "KD", "QD"]}]}
    leader = E.to_move(state)[0]
    assert rejected(state, leader, late).rule == "KL-29"


def test_KL29_undeclared_roem_is_lost() -> None:
    state = dealt(4, {1: ["AS", "KS", "QS", "JS", "10S", "9D"]})
    state = moves(state, (1, bid("play")), (1, play("9D")))
    for seat in (2, 3, 0):
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    assert state.roem_settled and state.roem_scored == [0, 0]


def test_KL30_roem_from_own_hand_including_card_to_play() -> None:
    state = dealt(4, {1: ["AS", "KS", "9D", "9C", "JD", "10D"], 2: ["QS", "AD", "KD", "9H", "10C", "JC"]})
    state = moves(state, (1, bid("play")))
    err = rejected(state, 1, RUN3)
    assert err.rule == "KL-30"
    state = dealt(4, {1: ["AS", "KS", "QS", "9C", "JD", "10D"]})
    state = moves(state, (1, bid("play")), (1, RUN3), (1, play("QS")))  # QS is in the run and played
    assert state.declared[1]


def test_KL31_meld_values() -> None:
    # covers KL-31 (see RULES.md)
    assert MELD_VALUES == {
        "four_jacks": 200,
        "four_of_a_kind": 100,
        "run5": 100,
        "run4": 50,
        "run3": 30,
        "stuk": 20,
    }
    assert meld_problem(("four_of_a_kind", tuple(ids(["JS", "JH", "JD", "JC"]))), H) is not None
    assert meld_problem(("four_jacks", tuple(ids(["JS", "JH", "JD", "JC"]))), H) is None
    assert meld_problem(("stuk", tuple(sorted(ids(["KS", "QS"])))), H) is not None


def test_KL32_runs_in_roem_order_without_wrap() -> None:
    # covers KL-32 (see RULES.md)
    assert meld_problem(("run3", tuple(sorted(ids(["JC", "10C", "9C"])))), H) is None  # 10 and 9 adjacent
    assert meld_problem(("run3", tuple(sorted(ids(["10C", "9C", "AC"])))), H) is not None
    assert meld_problem(("run3", tuple(sorted(ids(["AC", "KC", "QD"])))), H) is not None


def test_KL33_card_in_one_meld_except_stuk() -> None:
    state = dealt(4, {1: ["AH", "KH", "QH", "JH", "9D", "9C"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))
    ok = {
        "type": "declare_roem",
        "melds": [
            {"type": "run4", "cards": ["AH", "KH", "QH", "JH"]},
            {"type": "stuk", "cards": ["KH", "QH"]},
        ],
    }
    assert E.decide(state, 1, ok)[0]["total"] == 70
    bad = {
        "type": "declare_roem",
        "melds": [
            {"type": "run3", "cards": ["AH", "KH", "QH"]},
            {"type": "run3", "cards": ["KH", "QH", "JH"]},
        ],
    }
    assert rejected(state, 1, bad).rule == "KL-33"


def test_KL34_roem_is_sum_of_declared_melds() -> None:
    # covers KL-34 (see RULES.md)
    state = dealt(4, {1: ["AH", "KH", "QH", "JH", "9D", "9C"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))
    only_stuk = {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]}
    assert E.decide(state, 1, only_stuk)[0]["total"] == 20  # fewer melds than held (KL-R9)


def test_KL35_only_highest_scores_other_side_none() -> None:
    state = dealt(
        4,
        {
            1: ["AD", "KD", "QD", "9C", "10S", "9S"],
            2: ["AS", "KS", "QS", "JS", "10D", "9D"],
            3: ["JD", "QC", "JC", "10C", "KC", "AC"],
            0: ["KH", "QH", "AH", "JH", "10H", "9H"],
        },
    )
    run4 = {"type": "declare_roem", "melds": [{"type": "run4", "cards": ["AS", "KS", "QS", "JS"]}]}
    state = moves(
        state,
        (1, bid("play")),
        (1, {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AD", "KD", "QD"]}]}),
    )
    state = moves(state, (1, play("9C")), (2, run4), (2, play("10D")), (3, play("AC")))
    state = run(
        state,
        0,
        {
            "type": "declare_roem",
            "melds": [
                {"type": "run5", "cards": ["AH", "KH", "QH", "JH", "10H"]},
                {"type": "stuk", "cards": ["KH", "QH"]},
            ],
        },
    )
    state = run(state, 0, play("9H"))
    assert state.roem_holder == 0 and state.roem_scored == [120 + 50, 0]


# --- scoring and end ------------------------------------------------------------------------
def _ended(n: int, **opts: Any) -> KlapperState:
    return run(dealt(n, {}, **opts), 1, bid("play"))


def test_KL36_deal_points_are_cards_last_trick_and_roem() -> None:
    # covers KL-36 (see RULES.md)
    state = _ended(4)
    state.card_points, state.last_trick_side, state.roem_scored = [60, 92], 1, [0, 50]
    event = _deal_scored(state)
    assert event["deal_points"] == [60, 152]


def test_KL37_playing_side_more_both_score() -> None:
    state = _ended(4)
    state.card_points, state.last_trick_side, state.roem_scored = [60, 92], 1, [0, 0]
    assert _deal_scored(state)["added"] == [60, 102]


def test_KL38_playing_side_not_more_gets_nothing() -> None:
    # covers KL-38 (see RULES.md)
    state = _ended(4)
    state.card_points, state.last_trick_side, state.roem_scored = [92, 60], 1, [0, 0]
    assert _deal_scored(state)["added"] == [92, 0]


def test_KL39_end_at_target_unique_top() -> None:
    assert game_winner([499, 300], 500) is None
    assert game_winner([500, 300], 500) == 0
    assert game_winner([520, 510], 500) == 0
    assert game_winner([510, 510], 500) is None
    state = dealt(4, {})
    state.phase = "game_over"
    assert rejected(state, 1, bid("play")).rule == "KL-39"


# --- three players --------------------------------------------------------------------------
def test_KL40_three_players_eight_cards_eight_tricks() -> None:
    # covers KL-40 (see RULES.md)
    state = dealt(3, {0: ["AS", "KS", "QS", "JS", "10S", "9S", "AD", "KH"]})
    assert [len(h) for h in state.hands] == [8, 8, 8] and state.turned_card == ids(["KH"])[0]
    state, _ = play_out_deal(run(state, 1, bid("play")), seed=7)
    assert len(state.tricks) == 8


def test_KL41_troefmaker_must_beat_each_other_player_strictly() -> None:
    # covers KL-41 (see RULES.md)
    assert additions([70, 69, 23], [70, 69, 23], 0) == [70, 69, 23]
    assert additions([70, 70, 22], [70, 70, 22], 0) == [0, 70, 22]
    assert additions([40, 70, 52], [40, 70, 52], 2) == [40, 70, 0]


def test_KL42_three_players_single_highest_roem() -> None:
    # covers KL-42 (see RULES.md)
    state = dealt(3, {})
    assert roem_award(state, [50, 30, 20]) == (0, [50, 0, 0])
    assert roem_award(state, [30, 30, 20]) == (None, [0, 0, 0])


def test_KL43_three_players_end_per_player() -> None:
    # covers KL-43 (see RULES.md)
    assert game_winner([510, 480, 200], 500) == 0
    assert game_winner([510, 510, 200], 500) is None


# --- two players ----------------------------------------------------------------------------
def _two_player_start() -> tuple[KlapperState, list[str]]:
    rest = complete([])
    deck = deck_for_two(0, {1: rest[0:6], 0: rest[6:12]}, {1: rest[12:15], 0: rest[15:18]}, rest[18:24])
    return E.evolve(E.initial_state(config(2)), shuffle_event("deal", deck)), rest


def test_KL44_two_player_deal() -> None:
    state, rest = _two_player_start()
    assert state.hands[1] == ids(rest[0:6]) and state.hands[0] == ids(rest[6:12])
    assert state.extras == [ids(rest[15:18]), ids(rest[12:15])]
    assert state.dead_hand == ids(rest[18:24]) and state.turned_card == ids(rest[23:24])[0]


def test_KL45_extras_taken_up_after_bidding_non_dealer_leads() -> None:
    state, _ = _two_player_start()
    assert state.voorhand == 1 and E.to_move(state) == [1]
    assert len(E.view(state, 1)["hand"]) == 6 and E.view(state, 1)["extra_counts"] == [3, 3]
    state = run(state, 1, bid("play"))
    assert [len(h) for h in state.hands] == [9, 9] and E.to_move(state) == [1]
    state, _ = play_out_deal(state, seed=1)
    assert len(state.tricks) == 9


def test_KL46_dead_hand_takes_no_part() -> None:
    state, _rest = _two_player_start()
    state, _ = play_out_deal(run(state, 1, bid("play")), seed=2)
    played = {c for t in state.tricks for _, c in t.plays}
    assert played.isdisjoint(state.dead_hand)
    assert sum(state.card_points) == 152 - sum(points(c, state.trump or 0) for c in state.dead_hand)


def test_KL47_two_players_each_a_side_roem_single_highest() -> None:
    # covers KL-47 (see RULES.md)
    state, _ = _two_player_start()
    assert state.side_of == [0, 1] and state.num_sides == 2
    assert roem_award(state, [20, 50]) == (1, [0, 50])
    assert roem_award(state, [20, 20]) == (None, [0, 0])


# --- six players ----------------------------------------------------------------------------
def test_KL48_six_players_alternating_teams_four_cards_partner_roem() -> None:
    state = dealt(6, {})
    assert [len(h) for h in state.hands] == [4] * 6 and state.side_of == [0, 1, 0, 1, 0, 1]
    assert roem_award(state, [0, 50, 0, 20, 0, 30]) == (1, [0, 100])  # both teammates' roem counts
    assert E.teams(config(6)) == [[0, 2, 4], [1, 3, 5]]
    state, _ = play_out_deal(run(state, 1, bid("play")), seed=6)
    assert len(state.tricks) == 4


def test_all_cards_named_once() -> None:
    assert len(set(NAMES)) == 24 and best_total([], H) == 0


def test_KL29_KL33_melds_and_their_cards_may_be_listed_in_any_order() -> None:
    """KL-29, KL-33: a roem declaration is a set of melds, each a set of cards; no listed order is
    refused, and every order scores the same total."""
    state = dealt(4, {1: ["AH", "KH", "QH", "JH", "9D", "9C"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))
    run4 = {"type": "run4", "cards": ["AH", "KH", "QH", "JH"]}
    stuk = {"type": "stuk", "cards": ["KH", "QH"]}
    totals = set()
    for melds in ([run4, stuk], [stuk, run4],
                  [{"type": "run4", "cards": ["JH", "QH", "AH", "KH"]}, {"type": "stuk", "cards": ["QH", "KH"]}]):
        totals.add(E.decide(state, 1, {"type": "declare_roem", "melds": melds})[0]["total"])
    assert totals == {70}
