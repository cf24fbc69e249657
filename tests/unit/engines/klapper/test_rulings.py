"""The Rulings KL-R1 .. KL-R23 of rules/klapper.md (section 6)."""

from __future__ import annotations

from typing import Any

import pytest

from services.games.engines.base import IllegalMove
from services.games.engines.klapper.decide import _deal_scored
from services.games.engines.klapper.melds import declarations, meld_problem, total
from services.games.engines.klapper.rules import game_winner, roem_award
from services.games.engines.klapper.state import KlapperState

from .support import E, bid, complete, config, dealt, ids, moves, play, play_out_deal, run, shuffle_event

H, S = 1, 0


def rejected(state: KlapperState, seat: int, move: Any) -> IllegalMove:
    with pytest.raises(IllegalMove) as err:
        E.decide(state, seat, move)
    return err.value


def test_KLR1_fixed_seating_takes_seats_and_first_dealer_from_config() -> None:
    state = E.initial_state(config(4, first_dealer=2))
    assert state.pending == "deal" and state.dealer == 2 and state.table == [0, 1, 2, 3]
    assert E.teams(config(4)) == [[0, 2], [1, 3]]
    omb = E.initial_state(config(4, seating="omboeren"))
    assert E.chance_request(omb) is not None and E.chance_request(omb).purpose == "omboeren"  # type: ignore[union-attr]


def test_KLR2_omboeren_for_2_3_6_players_only_picks_dealer() -> None:
    state = E.initial_state(config(6, seating="omboeren"))
    state = E.evolve(state, shuffle_event("omboeren", complete(["AS", "KS", "JH"])))
    assert state.dealer == 2 and state.side_of == [0, 1, 0, 1, 0, 1]


def test_KLR3_cards_one_at_a_time_dealers_last_card_is_last_dealt() -> None:
    deck = complete([])
    for n in (3, 4, 6):
        state = E.evolve(E.initial_state(config(n, first_dealer=1)), shuffle_event("deal", deck))
        assert state.turned_card == ids([deck[23]])[0] and state.turned_card in state.hands[1]


def test_KLR4_turned_card_public_all_deal() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"]})
    state = run(state, 1, bid("play"))
    for seat in (1, 2):
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    for viewer in (None, 1, 2, 3):
        assert E.view(state, viewer)["turned_card"] == "KD"
        assert not E.view(state, viewer)["turned_card_on_table"]


def test_KLR5_option_excludes_proposed_suit_in_round_two() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"]}, round2_turned_suit=False)
    state = moves(state, *[(s, bid("pass")) for s in (1, 2, 3, 0)])
    suits = {m["suit"] for m in E.legal_moves(state, 1) if m["type"] == "choose_trump"}
    assert suits == {"S", "H", "C"}
    err = rejected(state, 1, {"type": "choose_trump", "suit": "D"})
    assert err.rule == "KL-12" and err.code == "turned_suit_excluded"
    assert E.options_schema()["properties"]["round2_turned_suit"]["default"] is True


def test_KLR6_round_two_from_voorhand_first_named_wins() -> None:
    state = dealt(4, {}, dealer=1)
    state = moves(state, *[(s, bid("pass")) for s in (2, 3, 0, 1)])
    assert E.to_move(state) == [2]
    state = moves(state, (2, {"type": "choose_trump", "suit": "H"}))
    assert state.speler == 2 and state.phase == "play"


def test_KLR7_dealer_moves_one_seat_clockwise() -> None:
    state = dealt(4, {}, dealer=3)
    state, _ = play_out_deal(run(state, 0, bid("play")), seed=11)
    state = E.evolve(state, shuffle_event("deal", complete([])))
    assert state.dealer == 0 and state.voorhand == 1


def test_KLR8_duties_over_partner() -> None:
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
    assert rejected(state, 2, play("AD")).rule == "KL-19"


def test_KLR9_declare_fewer_melds_once_before_own_card() -> None:
    state = dealt(4, {1: ["AH", "KH", "QH", "JH", "9D", "9C"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = run(state, 1, bid("play"))
    packs = [total(p) for p in declarations(state.hands[1], H)]
    assert 20 in packs and 30 in packs and 70 in packs
    state = run(state, 1, {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AH", "KH", "QH"]}]})
    assert E.to_move(state) == [1]  # still his turn: now the card
    assert rejected(
        state, 1, {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]}
    ).code == ("already_declared")


def test_KLR10_declared_melds_public_at_once() -> None:
    state = dealt(4, {1: ["AH", "KH", "QH", "JH", "9D", "9C"], 0: ["AS", "10S", "9S", "10D", "JD", "9H"]})
    state = moves(
        state,
        (1, bid("play")),
        (1, {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]}),
    )
    for viewer in (None, 0, 2, 3):
        assert E.view(state, viewer)["roem"][1] == [{"type": "stuk", "cards": ["KH", "QH"]}]


def test_KLR11_highest_individual_roem_includes_stuk() -> None:
    state = dealt(
        4,
        {
            1: ["AH", "KH", "QH", "9C", "10S", "9S"],
            2: ["AD", "KD", "QD", "JD", "AC", "9D"],
            3: ["KC", "QC", "JC", "10C", "AS", "KS"],
            0: ["QS", "JS", "JH", "10H", "10D", "9H"],
        },
    )
    state = moves(
        state,
        (1, bid("play")),
        (
            1,
            {
                "type": "declare_roem",
                "melds": [
                    {"type": "run3", "cards": ["AH", "KH", "QH"]},
                    {"type": "stuk", "cards": ["KH", "QH"]},
                ],
            },
        ),
        (1, play("9C")),
        (2, {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AD", "KD", "QD"]}]}),
        (2, play("AC")),
        (3, play("KC")),
        (0, play("JH")),
    )
    assert state.roem_holder == 1 and state.roem_scored == [0, 50]


def test_KLR12_roem_ties() -> None:
    state = dealt(4, {})  # voorhand seat 1
    assert roem_award(state, [30, 0, 30, 0]) == (2, [60, 0])  # tie inside one side: that side scores
    assert roem_award(state, [0, 30, 0, 30]) == (1, [0, 60])
    assert roem_award(state, [30, 0, 0, 30]) == (None, [0, 0])
    first = dealt(4, {}, roem_tie="voorhand_first")
    assert roem_award(first, [30, 0, 0, 30]) == (3, [0, 30])  # from voorhand 1: seat 3 before seat 0
    assert E.options_schema()["properties"]["roem_tie"]["default"] == "nobody"


def test_KLR13_run_of_six_is_vijfde_or_two_derdes() -> None:
    hand = ids(["AC", "KC", "QC", "JC", "10C", "9C"])
    packs = declarations(hand, H)
    kinds = sorted(sorted(k for k, _ in p) for p in packs if total(p) in (60, 100))
    assert ["run3", "run3"] in kinds and ["run5"] in kinds
    assert max(total(p) for p in packs) == 100
    assert meld_problem(("run5", tuple(ids(["AC", "KC", "QC", "JC", "10C", "9C"]))), H) is not None


def test_KLR14_four_nines_are_a_carre() -> None:
    assert meld_problem(("four_of_a_kind", tuple(ids(["9S", "9H", "9D", "9C"]))), H) is None


def test_KLR15_ten_and_nine_adjacent_no_eights_or_sevens() -> None:
    assert meld_problem(("run3", tuple(ids(["JS", "10S", "9S"]))), H) is None
    assert meld_problem(("run4", tuple(ids(["QS", "JS", "10S", "9S"]))), H) is None


def test_KLR16_compare_with_roem_option() -> None:
    for flag, expected in ((True, [125, 87]), (False, [0, 87])):
        state = run(dealt(4, {}, compare_with_roem=flag), 1, bid("pass"))
        state = run(state, 2, bid("play"))  # seat 2 plays: side 0
        state.card_points, state.last_trick_side, state.roem_scored = [75, 77], 1, [50, 0]
        event = _deal_scored(state)
        assert event["added"] == expected
    assert E.options_schema()["properties"]["compare_with_roem"]["default"] is True


def test_KLR17_failing_side_opponents_only_own_points() -> None:
    state = run(dealt(4, {}), 1, bid("play"))  # side 1 plays
    state.card_points, state.last_trick_side, state.roem_scored = [90, 62], 0, [0, 0]
    assert _deal_scored(state)["added"] == [100, 0]


def test_KLR18_target_means_or_more_ties_play_on() -> None:
    assert game_winner([500, 499], 500) == 0
    assert game_winner([530, 520], 500) == 0
    assert game_winner([530, 530], 500) is None


def _card_strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_card_strings(v) for k, v in value.items() if k != "omboeren"))
    if isinstance(value, list):
        return set().union(*(_card_strings(v) for v in value))
    return set()


def test_KLR19_two_player_void_deal_never_reveals_extras() -> None:
    state = E.evolve(E.initial_state(config(2)), shuffle_event("deal", complete([])))
    extras = set(E.full_view(state)["extras"][0] + E.full_view(state)["extras"][1])
    assert len(extras) == 6
    for seat, move in ((1, bid("pass")), (0, bid("pass")), (1, {"type": "pass"}), (0, {"type": "pass"})):
        for event in E.decide(state, seat, move):
            after = E.evolve(state, event)
            for viewer in (None, 0, 1):
                assert not _card_strings(E.redact_event(event, viewer, state, after)) & extras
                assert not _card_strings(E.view(after, viewer)) & extras
            state = after
    assert state.pending == "deal" and state.results[-1]["void"]


def test_KLR20_three_players_strictly_more_and_per_player_target() -> None:
    state = run(dealt(3, {}), 1, bid("play"))  # seat 1 is Troefmaker
    state.card_points, state.last_trick_side, state.roem_scored = [50, 52, 50], 1, [0, 0, 0]
    assert _deal_scored(state)["added"] == [50, 62, 50]
    state.card_points, state.last_trick_side = [60, 60, 32], 2
    assert _deal_scored(state)["added"] == [60, 0, 42]  # 60 is not more than 60
    assert dealt(3, {0: ["AS", "KS", "QS", "JS", "10S", "9S", "AD", "KH"]}).turned_card == ids(["KH"])[0]
    assert game_winner([500, 420, 300], 500) == 0


def test_KLR21_six_player_partner_means_both_teammates() -> None:
    state = dealt(6, {})
    assert roem_award(state, [20, 0, 30, 0, 50, 0]) == (4, [100, 0])


def test_KLR22_stuk_declared_in_first_trick_not_when_played() -> None:
    state = dealt(4, {1: ["KH", "QH", "AS", "KS", "9C", "9D"], 0: ["AD", "10S", "9S", "10D", "JD", "9H"]})
    state = moves(state, (1, bid("play")), (1, play("9C")))
    for seat in (2, 3, 0):
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    assert state.roem_scored == [0, 0]
    leader = E.to_move(state)[0]
    err = rejected(
        state, leader, {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]}
    )
    assert err.rule == "KL-29"
    assert not any(m["type"] == "declare_roem" for m in E.legal_moves(state, leader))


def test_KLR23_no_bonus_for_all_tricks_speler_need_not_hold_trump() -> None:
    state = dealt(
        4,
        {
            1: ["JH", "9H", "AH", "10H", "KH", "QH"],
            3: ["AS", "AD", "AC", "10S", "10D", "10C"],
            2: ["KS", "QS", "JS", "KD", "QD", "JD"],
            0: ["9S", "9D", "KC", "QC", "JC", "9C"],
        },
    )
    state = moves(
        state, *[(s, bid("pass")) for s in (1, 2, 3, 0)], (1, {"type": "choose_trump", "suit": "H"})
    )
    log: list[dict[str, Any]] = []
    for card in ("JH", "9H", "AH", "10H", "KH", "QH"):
        for seat in (1, 2, 3, 0):
            move = play(card) if seat == 1 else E.legal_moves(state, seat)[0]
            log += E.decide(state, seat, move)
            state = run(state, seat, move)
    scored = next(e for e in log if e["type"] == "DealScored")
    assert scored["deal_points"] == [0, 162] and scored["added"] == [0, 162]
    # a Speler without a trump (KL-11): seat 2 holds no heart
    other = dealt(4, {2: ["KS", "QS", "JS", "KD", "QD", "JD"], 0: ["AS", "AD", "9S", "9D", "KC", "AH"]})
    assert moves(other, (1, bid("pass")), (2, bid("play"))).speler == 2
