"""Every worked example of rules/klapper.md (section 5), named by its id."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.klapper.cards import points
from services.games.engines.klapper.decide import _deal_scored
from services.games.engines.klapper.melds import best_total, meld_problem
from services.games.engines.klapper.rules import additions, deal_points, game_winner, roem_award
from services.games.engines.klapper.state import KlapperState

from .support import (
    E,
    bid,
    complete,
    config,
    dealt,
    deck_for,
    deck_for_two,
    ids,
    legal_cards,
    moves,
    play,
    play_out_deal,
    run,
    shuffle_event,
)

H, S, D, C = 1, 0, 2, 3


def test_example_EX1_omboeren_fixes_dealer_and_partners() -> None:
    # join order P, Q, R, S = seats 0, 1, 2, 3
    order = complete(["10H", "JS", "AC", "JD", "KS", "JH", "9C", "JC"])
    state = E.initial_state(config(4, seating="omboeren"))
    state = E.evolve(state, shuffle_event("omboeren", order))
    assert state.dealer == 1  # Q got the first jack
    assert state.table == [1, 3, 0, 2]  # Q deals; S at position 1; P opposite Q; R at 3
    assert state.side_of[1] == state.side_of[0]  # Q (JS) and P (JC)
    assert state.side_of[3] == state.side_of[2]  # S (JD) and R (JH)
    assert [c for _, c in state.omboeren_cards] == ids(order[:8])
    assert E.view(state, None)["teams"] == [[0, 1], [2, 3]]


def test_example_EX2_card_points_total_152_and_162() -> None:
    trump_suit = sum(points(c, H) for c in range(6, 12))
    other = [sum(points(c, H) for c in range(6 * s, 6 * s + 6)) for s in (S, D, C)]
    assert trump_suit == 62 and other == [30, 30, 30]
    assert sum(points(c, H) for c in range(24)) == 152
    assert sum(points(c, H) for c in range(24)) + 10 == 162


def test_example_EX3_round_one_play() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "9H"]})
    assert state.turned_card == ids(["9H"])[0]
    state = moves(state, (1, bid("pass")), (2, bid("play")))
    assert state.speler == 2 and state.trump == H and state.phase == "play"
    assert state.members(state.playing_side or 0) == [0, 2]
    assert E.to_move(state) == [1]  # seat 1 still leads trick 1
    assert ids(["9H"])[0] in state.hands[0]  # the dealer keeps the turned card


def test_example_EX4_round_two_and_void_deal() -> None:
    state = dealt(4, {})
    state = moves(state, *[(s, bid("pass")) for s in (1, 2, 3, 0)])
    assert state.phase == "bidding_2" and E.to_move(state) == [1]
    named = moves(
        state, (1, {"type": "pass"}), (2, {"type": "pass"}), (3, {"type": "choose_trump", "suit": "S"})
    )
    assert named.speler == 3 and named.trump == S
    void = moves(state, *[(s, {"type": "pass"}) for s in (1, 2, 3, 0)])
    assert void.pending == "deal" and void.score == [0, 0]
    void = E.evolve(void, shuffle_event("deal", complete([])))
    assert void.dealer == 1


def _ex5_state() -> KlapperState:
    state = dealt(
        4,
        {
            1: ["AS", "KS", "QS", "JS", "10S", "AC"],
            2: ["KH", "KC", "QC", "JC", "10C", "9C"],
            3: ["QH", "9H", "AD", "KD", "QD", "JD"],
            0: ["9S", "JH", "10H", "10D", "9D", "AH"],
        },
    )
    return moves(state, (1, bid("play")), (1, play("AS")))


def test_example_EX5_must_trump_then_overtrump() -> None:
    state = _ex5_state()
    assert legal_cards(state, 2) == {"KH"}
    state = run(state, 2, play("KH"))
    assert legal_cards(state, 3) == {"9H"}
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 3, play("QH"))
    assert err.value.rule == "KL-20"
    state = run(state, 3, play("9H"))
    assert legal_cards(state, 0) == {"9S"}
    state = run(state, 0, play("9S"))
    assert state.tricks[0].winner == 3


def test_example_EX6_trump_led_must_go_higher() -> None:
    state = dealt(
        4,
        {
            1: ["10H", "AS", "KS", "QS", "JS", "10S"],
            2: ["KH", "JH", "AC", "KC", "QC", "JC"],
            0: ["JD", "10D", "9D", "QH", "9H", "AH"],
        },
    )
    state = moves(state, (1, bid("play")), (1, play("10H")))
    assert legal_cards(state, 2) == {"JH"}
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 2, play("KH"))
    assert err.value.rule == "KL-20"


def test_example_EX7_undertrump_when_unable_to_overtrump() -> None:
    state = dealt(
        4,
        {
            1: ["AC", "KC", "QC", "JC", "10C", "9C"],
            2: ["JH", "KH", "AS", "KS", "QS", "JS"],
            3: ["QH", "AD", "KD", "QD", "JD", "10D"],
            0: ["10S", "9S", "9D", "AH", "10H", "9H"],
        },
    )
    state = moves(state, (1, bid("play")), (1, play("AC")), (2, play("JH")))
    assert legal_cards(state, 3) == {"QH"}
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 3, play("AD"))
    assert err.value.rule == "KL-19"


def test_example_EX8_must_trump_over_partner() -> None:
    state = dealt(
        4,
        {
            0: ["AS", "AC", "KC", "QC", "JC", "10C"],
            1: ["9S", "KS", "QS", "JS", "10S", "9C"],
            2: ["9H", "AD", "KD", "QD", "JD", "10D"],
            3: ["9D", "AH", "KH", "QH", "JH", "10H"],
        },
        dealer=3,
    )
    state = moves(state, (0, bid("play")), (0, play("AS")), (1, play("9S")))
    assert legal_cards(state, 2) == {"9H"}
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 2, play("AD"))
    assert err.value.rule == "KL-19"


def test_example_EX9_follow_after_trump_any_club_no_trump() -> None:
    state = dealt(
        4,
        {
            1: ["AC", "QC", "JC", "10C", "AS", "KS"],
            2: ["JH", "AD", "KD", "QD", "JD", "10D"],
            3: ["KC", "9C", "QH", "9D", "QS", "JS"],
            0: ["10S", "9S", "AH", "KH", "10H", "9H"],
        },
    )
    state = moves(state, (1, bid("play")), (1, play("AC")), (2, play("JH")))
    assert legal_cards(state, 3) == {"KC", "9C"}
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 3, play("QH"))
    assert err.value.rule == "KL-17"


def test_example_EX10_run_of_three_plus_stuk() -> None:
    assert best_total(ids(["KH", "QH", "JH", "AS", "AC", "9D"]), H) == 50
    state = dealt(4, {1: ["KH", "QH", "JH", "AS", "AC", "9D"], 0: ["AH", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))
    move = {
        "type": "declare_roem",
        "melds": [{"type": "run3", "cards": ["KH", "QH", "JH"]}, {"type": "stuk", "cards": ["QH", "KH"]}],
    }
    events = E.decide(state, 1, move)
    assert events[0]["total"] == 50


def test_example_EX11_roem_order_not_trick_order() -> None:
    assert meld_problem(("run3", tuple(sorted(ids(["JH", "9H", "AH"])))), H) is not None
    assert meld_problem(("run3", tuple(sorted(ids(["AH", "KH", "QH"])))), H) is None


def test_example_EX12_overlap_only_for_stuk() -> None:
    hand = ids(["KS", "KH", "KD", "KC", "QS", "JS"])
    assert best_total(hand, H) == 100
    assert best_total(hand, S) == 120
    state = dealt(4, {1: ["KS", "KH", "KD", "KC", "QS", "JS"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))  # hearts
    both = {
        "type": "declare_roem",
        "melds": [
            {"type": "four_of_a_kind", "cards": ["KS", "KH", "KD", "KC"]},
            {"type": "run3", "cards": ["KS", "QS", "JS"]},
        ],
    }
    with pytest.raises(IllegalMove) as err:
        E.decide(state, 1, both)
    assert err.value.rule == "KL-33"


def test_example_EX13_run_of_six_counts_as_vijfde() -> None:
    hand = ids(["AC", "KC", "QC", "JC", "10C", "9C"])
    assert best_total(hand, H) == 100
    assert best_total(hand, C) == 120


def test_example_EX14_four_jacks() -> None:
    assert best_total(ids(["JS", "JH", "JD", "JC", "AS", "9D"]), D) == 200


def test_example_EX15_highest_roem_scores_with_partner() -> None:
    state = dealt(
        4,
        {
            1: ["AD", "KD", "QD", "9C", "10S", "9S"],
            2: ["KH", "QH", "AC", "KC", "10D", "9D"],
            3: ["JD", "QC", "JC", "10C", "9H", "10H"],
            0: ["AS", "KS", "QS", "JS", "AH", "JH"],
        },
    )
    state = moves(
        state,
        (1, bid("play")),
        (1, {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AD", "KD", "QD"]}]}),
        (1, play("9C")),
        (2, {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]}),
        (2, play("AC")),
        (3, play("QC")),
        (0, {"type": "declare_roem", "melds": [{"type": "run4", "cards": ["AS", "KS", "QS", "JS"]}]}),
        (0, play("AH")),
    )
    assert state.roem_settled and state.roem_holder == 0
    assert state.roem_scored == [70, 0]


def test_example_EX16_tie_between_sides_scores_nothing() -> None:
    state = dealt(4, {})
    holder, per_side = roem_award(state, [30, 30, 0, 0])
    assert holder is None and per_side == [0, 0]
    first = dealt(4, {}, roem_tie="voorhand_first")
    holder, per_side = roem_award(first, [30, 30, 0, 0])
    assert holder == 1 and per_side == [0, 30]  # seat 1 is voorhand


def test_example_EX17_playing_side_more() -> None:
    pts = deal_points([85, 67], 0, [50, 0])
    assert pts == [145, 67]
    assert additions(pts, pts, 0) == [145, 67]


def test_example_EX18_equal_playing_side_gets_nothing() -> None:
    pts = deal_points([71, 81], 0, [0, 0])
    assert pts == [81, 81] and additions(pts, pts, 0) == [0, 81]


def test_example_EX19_fewer() -> None:
    pts = deal_points([70, 82], 1, [0, 0])
    assert additions(pts, pts, 0) == [0, 92]


def test_example_EX20_roem_decides_comparison() -> None:
    pts = deal_points([75, 77], 1, [50, 0])
    assert pts == [125, 87]
    assert additions(pts, pts, 0) == [125, 87]
    without = deal_points([75, 77], 1, [0, 0])  # compare_with_roem = false
    assert additions(pts, without, 0) == [0, 87]


def test_example_EX21_opponents_roem() -> None:
    pts = deal_points([80, 72], 0, [0, 30])
    assert pts == [90, 102] and additions(pts, pts, 0) == [0, 102]


def test_example_EX22_three_players() -> None:
    assert additions([70, 50, 42], [70, 50, 42], 0) == [70, 50, 42]
    assert additions([60, 60, 42], [60, 60, 42], 0) == [0, 60, 42]


def test_example_EX23_two_player_dead_hand() -> None:
    dead = ["AS", "10D", "KC", "QS", "JD", "9H"]
    rest = [c for c in complete([]) if c not in dead]
    deck = deck_for_two(0, {1: rest[0:6], 0: rest[6:12]}, {1: rest[12:15], 0: rest[15:18]}, dead)
    start = E.evolve(E.initial_state(config(2)), shuffle_event("deal", deck))
    assert start.turned_card == ids(["9H"])[0] and sorted(start.dead_hand) == sorted(ids(dead))
    assert sum(points(c, H) for c in start.dead_hand) == 44
    assert sum(points(c, S) for c in start.dead_hand) == 30
    hearts, _ = play_out_deal(run(start, 1, bid("play")), seed=3)
    assert sum(hearts.card_points) == 108 and hearts.last_trick_side is not None
    spades = moves(start, (1, bid("pass")), (0, bid("pass")), (1, {"type": "choose_trump", "suit": "S"}))
    spades, _ = play_out_deal(spades, seed=4)
    assert sum(spades.card_points) == 152 - 30


def test_example_EX24_six_players_four_of_a_kind() -> None:
    state = dealt(6, {1: ["AS", "AH", "AD", "AC"]})
    state = run(state, 1, bid("play"))
    melds = [m for m in E.legal_moves(state, 1) if m["type"] == "declare_roem"]
    four = {"type": "declare_roem", "melds": [{"type": "four_of_a_kind", "cards": ["AS", "AH", "AD", "AC"]}]}
    assert four in melds
    assert E.decide(state, 1, four)[0]["total"] == 100
    state, log = play_out_deal(run(state, 1, four), seed=5)
    assert len(state.tricks) == 4
    scored = next(e for e in log if e["type"] == "DealScored")
    last_side = scored["last_trick_side"]
    assert (
        scored["deal_points"][last_side] == state.card_points[last_side] + 10 + state.roem_scored[last_side]
    )


def test_example_EX25_end_of_game() -> None:
    assert game_winner([580, 552], 500) == 0
    assert game_winner([505, 505], 500) is None
    state = dealt(4, {})
    state = run(state, 1, bid("play"))
    state.speler, state.card_points, state.last_trick_side = 2, [90, 62], 0  # playing side {0, 2}
    state.score = [480, 490]
    event = _deal_scored(state)
    assert event["added"] == [100, 62] and event["scores"] == [580, 552] and event["winner"] == 0
    over = E.evolve(state, event)
    assert over.phase == "game_over"
    result = E.outcome(over)
    assert result is not None and result.team_ranks == [1, 2] and result.ranks == [1, 2, 1, 2]
    state.score = [405, 443]
    tied = _deal_scored(state)
    assert tied["scores"] == [505, 505] and tied["winner"] is None
    assert E.evolve(state, tied).phase == "dealing"


def test_deck_helper_deals_listed_cards() -> None:
    deck = deck_for(4, 0, {1: ["AS"], 0: ["9H"]})
    state = E.evolve(E.initial_state(config(4)), shuffle_event("deal", deck))
    assert ids(["AS"])[0] in state.hands[1] and state.turned_card == ids(["9H"])[0]
