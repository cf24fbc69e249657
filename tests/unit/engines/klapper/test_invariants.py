"""The random-play invariants catch broken states (each message names its rule)."""

from __future__ import annotations

from services.games.engines.klapper.state import KlapperState, Trick

from .support import E, bid, dealt, ids, moves, play, play_out_deal, run


def _rules(state: KlapperState) -> set[str]:
    return {p.split()[0] for p in E.invariants(state)}


def test_invariants_hold_on_sound_states() -> None:
    state = dealt(4, {})
    assert E.invariants(state) == []
    state, _ = play_out_deal(run(state, 1, bid("play")), seed=1)
    assert E.invariants(state) == []


def test_KL6_invariant_every_card_once() -> None:
    state = dealt(4, {})
    state.hands[0] = state.hands[0][1:]
    assert "KL-6" in _rules(state)
    state = dealt(4, {})
    state.hands[1] = [*state.hands[1], state.hands[0][0]]
    assert "KL-6" in _rules(state)


def test_KL8_invariant_turned_card_stays_with_dealer() -> None:
    state = dealt(4, {0: ["AS", "KS", "QS", "JS", "10S", "KD"], 1: ["9S"]})
    kd, nine = ids(["KD", "9S"])
    state.hands[0] = sorted([c for c in state.hands[0] if c != kd] + [nine])
    state.hands[1] = sorted([c for c in state.hands[1] if c != nine] + [kd])
    assert "KL-8" in _rules(state)


def test_KL25_invariant_illegal_card_detected_independently() -> None:
    state = dealt(
        4,
        {
            1: ["AS", "KS", "QS", "JS", "10S", "AC"],
            2: ["KH", "KC", "QC", "JC", "10C", "9C"],
            3: ["QH", "9H", "AD", "KD", "QD", "JD"],
            0: ["9S", "JH", "10H", "10D", "9D", "AH"],
        },
    )
    state = moves(state, (1, bid("play")), (1, play("AS")), (2, play("KH")))
    assert E.invariants(state) == []
    qh = ids(["QH"])[0]
    bad = state.clone()
    bad.hands[3].remove(qh)
    bad.trick.append((3, qh))  # undertrump while 9H could overtrump
    bad.turn = 0
    assert any(p.startswith("KL-20") for p in E.invariants(bad))
    bad2 = state.clone()
    kc = ids(["KC"])[0]
    bad2.hands[2].append(ids(["KH"])[0])
    bad2.hands[2].remove(kc)
    bad2.trick = [(1, ids(["AS"])[0]), (2, kc)]  # seat 2 had a trump and did not play it
    assert any(p.startswith("KL-19") for p in E.invariants(bad2))


def test_KL23_invariant_trick_winner() -> None:
    state, _ = play_out_deal(run(dealt(4, {}), 1, bid("play")), seed=2)
    t = state.tricks[0]
    wrong = next(s for s, _ in t.plays if s != t.winner)
    state.tricks[0] = Trick(t.leader, t.plays, wrong, t.points)
    assert "KL-23" in _rules(state)


def test_KL28_invariant_card_points() -> None:
    state, _ = play_out_deal(run(dealt(4, {}), 1, bid("play")), seed=3)
    state.card_points[0] += 1
    assert "KL-26" in _rules(state)


def test_KL35_invariant_roem_only_for_highest() -> None:
    state = dealt(4, {1: ["AS", "KS", "QS", "9C", "JD", "10D"]})
    state = moves(
        state,
        (1, bid("play")),
        (1, {"type": "declare_roem", "melds": [{"type": "run3", "cards": ["AS", "KS", "QS"]}]}),
        (1, play("9C")),
    )
    for seat in (2, 3, 0):
        state = run(state, seat, next(m for m in E.legal_moves(state, seat) if m["type"] == "play_card"))
    assert state.roem_scored == [0, 30] and E.invariants(state) == []
    state.roem_scored = [30, 0]
    assert "KL-35" in _rules(state)


def test_KL37_invariant_deal_scoring() -> None:
    state, _ = play_out_deal(run(dealt(4, {}), 1, bid("play")), seed=4)
    assert state.deal_scored and E.invariants(state) == []
    result = dict(state.results[-1])
    result["added"] = [a + 1 for a in result["added"]]
    state.results[-1] = result
    state.score = [s + 1 for s in state.score]
    assert "KL-37" in _rules(state)


def test_KL39_invariant_end_condition() -> None:
    state = dealt(4, {})
    state.score = [510, 400]
    state.results = [{"deal_no": 0, "added": [510, 400]}]
    assert "KL-39" in _rules(state)
    state.phase = "game_over"
    state.winner = 0
    assert "KL-39" not in _rules(state)
    state.score = state.results[0]["added"] = [510, 510]
    assert "KL-39" in _rules(state)
