"""Random play: every variant to the end with invariants and replay checks; hidden information;
``decide`` accepts exactly what ``legal_moves`` lists; malformed moves are IllegalMove."""

from __future__ import annotations

import json
import random
from itertools import combinations, permutations
from typing import Any

import pytest

from services.games.domain.play import Progress, apply_move, open_game
from services.games.engines.base import CHANCE_EVENT, Event, GameConfig, IllegalMove
from services.games.engines.roparun.board import OFF, PAWNS
from services.games.engines.roparun.state import RoparunState
from services.games.service_layer.selfplay import seeds_for, selfplay

from .helpers import ENGINE, RED, config, position

VARIANTS = ENGINE.variants()


def _label(cfg: GameConfig) -> str:
    o = cfg.options
    return f"n{cfg.num_players}-{o['obligation']}-{o['dealer_rotation']}-S{o['section_length']}"


def test_variants_cover_every_player_count_and_configurable_ruling() -> None:
    """R2, R7, R13, RR-4, B-1: the variants list both values of every configurable Ruling."""
    assert {c.num_players for c in VARIANTS} == {2, 3, 4}
    for key in ("obligation", "dealer_rotation", "seven_max_pawns", "first_dealer", "section_length"):
        for n in (2, 3, 4):
            assert len({str(c.options[key]) for c in VARIANTS if c.num_players == n}) == 2


@pytest.mark.parametrize("cfg", VARIANTS, ids=_label)
def test_random_play_50_games_per_variant(cfg: GameConfig) -> None:
    """Invariants (pawns, deck, order, finish column, end of game) hold after every event."""
    report = selfplay(ENGINE, cfg, games=50, seed=cfg.num_players * 7 + len(str(cfg.options)))
    assert report.ok, report.failures
    assert report.games == 50 and report.moves > 0


def _play(cfg: GameConfig, seed: int) -> tuple[list[tuple[RoparunState, list[Event]]], RoparunState]:
    """One random game; returns (state after, events) per move, and the final state."""
    chooser = random.Random(seed)
    seeds = seeds_for(seed)
    progress, opening = open_game(ENGINE, cfg, seeds)
    steps: list[tuple[RoparunState, list[Event]]] = [(progress.state, opening)]
    while ENGINE.outcome(progress.state) is None:
        seat = ENGINE.to_move(progress.state)[0]
        mv = chooser.choice(ENGINE.legal_moves(progress.state, seat))
        events = apply_move(ENGINE, progress, seat, mv, seeds)
        steps.append((progress.state, events))
    return steps, progress.state


def _strings(obj: Any, skip: frozenset[str] = frozenset()) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(v, skip) for k, v in obj.items() if k not in skip), set())
    if isinstance(obj, list | tuple):
        return set().union(*(_strings(v, skip) for v in obj), set())
    return set()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_hidden_information_views_and_events(n: int) -> None:
    """§4 visibility, R29: a hand only to its owner, stock order and face-down discards to nobody,
    during play and after the end; spectators see no hand; dealt hands redacted per seat."""
    for seed in range(2):
        steps, final = _play(config(n), 1000 * n + seed)
        for state, events in [*steps[:: max(1, len(steps) // 40)], steps[-1]]:
            secret_all = set(state.stock) | set(state.discard_down)
            for seat in [None, *range(n)]:
                view = ENGINE.view(state, seat)
                seen = _strings(view)
                others = {c for s, h in enumerate(state.hands) if s != seat for c in h}
                assert not seen & (others | secret_all), (seat, seen & (others | secret_all))
                assert view["hand"] == (None if seat is None else state.hands[seat])
                assert [t["hand_size"] for t in view["teams"]] == [len(h) for h in state.hands]
                assert view["num_players"] == n
                for event in events:
                    red = ENGINE.redact_event(event, seat, state, state)
                    if event["type"] == CHANCE_EVENT:
                        assert red["values"] == "hidden"
                    if event["type"] == "CardsDealt":
                        hidden = {c for s, h in enumerate(event["hands"]) if s != seat for c in h}
                        assert not _strings(red) & hidden
                        if seat is not None:
                            assert red["hands"][seat] == event["hands"][seat]
        assert ENGINE.outcome(final) is not None
        assert "hands" not in ENGINE.view(final, None) and ENGINE.view(final, None)["hand"] is None
        assert ENGINE.full_view(final)["hands"] == final.hands


def _candidates(state: RoparunState, seat: int) -> list[dict[str, Any]]:
    """A brute-force superset of plausible moves: every shape with every card in hand (and one not)."""
    n = state.num_players
    out: list[dict[str, Any]] = [{"type": "end_turn"}]
    names = [*PAWNS, "x"]
    for card in [*sorted(set(state.hands[seat])), "5S" if "5S" not in state.hands[seat] else "5C"]:
        actions: list[dict[str, Any]] = []
        for pawn in names:
            actions.append({"move": pawn})
            actions += [{"move": pawn, "steps": k} for k in (1, 5, 11)]
            for target_seat in range(n + 1):
                for target in PAWNS:
                    actions.append(
                        {"swap": {"pawn": pawn, "target_seat": target_seat, "target_pawn": target}}
                    )
        if card[:-1] in ("A", "K", "5"):
            for size in range(1, 5):
                for group in combinations(PAWNS, size):
                    for slots in permutations(range(4), size):
                        entries = [{"pawn": p, "slot": s} for p, s in zip(group, slots, strict=True)]
                        actions.append({"enter": entries})
                        actions.append({"enter": entries[::-1]})
        if card[:-1] in ("7", "5"):
            for size in range(1, 5):
                for group in permutations(PAWNS, size):
                    for cuts in combinations(range(1, 7), size - 1):
                        bounds = [0, *cuts, 7]
                        parts = [bounds[i + 1] - bounds[i] for i in range(size)]
                        actions.append(
                            {"split": [{"pawn": p, "steps": k} for p, k in zip(group, parts, strict=True)]}
                        )
            actions.append({"split": [{"pawn": "c1", "steps": 3}, {"pawn": "c1", "steps": 4}]})
        out += [{"type": "play_card", "card": card, "action": a} for a in actions]
    return out


def test_decide_accepts_exactly_the_listed_moves() -> None:
    """RR-15 ... RR-33: decide succeeds on a move iff legal_moves lists it; others name a rule."""
    checked = 0
    for cfg in (config(4), config(3, seven_max_pawns=2, obligation="while_possible")):
        steps, _ = _play(cfg, 77 + cfg.num_players)
        for state, _events in steps[5 :: max(1, len(steps) // 6)]:
            seats = ENGINE.to_move(state)
            if not seats:
                continue
            seat = seats[0]
            legal = {json.dumps(m, sort_keys=True) for m in ENGINE.legal_moves(state, seat)}
            accepted = set()
            for mv in _candidates(state, seat):
                try:
                    ENGINE.decide(state, seat, mv)
                except IllegalMove as err:
                    assert err.rule.startswith("RR-") and err.code and err.message
                    continue
                accepted.add(json.dumps(mv, sort_keys=True))
            assert accepted == legal
            checked += 1
    assert checked >= 8


MALFORMED: list[Any] = [
    None,
    [],
    "play_card",
    {},
    {"type": 5},
    {"type": "play_card"},
    {"type": "play_card", "card": "5H"},
    {"type": "play_card", "card": 5, "action": {"move": "c2"}},
    {"type": "play_card", "card": ["5H"], "action": {"move": "c2"}},
    {"type": "play_card", "card": "5H", "action": None},
    {"type": "play_card", "card": "5H", "action": "c2"},
    {"type": "play_card", "card": "5H", "action": {"move": ["c2"]}},
    {"type": "play_card", "card": "5H", "action": {"move": {"pawn": "c2"}}},
    {"type": "play_card", "card": "5H", "action": {"move": "c2"}, "extra": 1},
    {"type": "play_card", "card": "AH", "action": {"move": "c2", "steps": True}},
    {"type": "play_card", "card": "AH", "action": {"move": "c2", "steps": "1"}},
    {"type": "play_card", "card": "AH", "action": {"enter": [{"pawn": "car"}]}},
    {"type": "play_card", "card": "AH", "action": {"enter": [{"pawn": "car", "slot": "0"}]}},
    {"type": "play_card", "card": "AH", "action": {"enter": {"pawn": "car", "slot": 0}}},
    {"type": "play_card", "card": "AH", "action": {"enter": ["car"]}},
    {"type": "play_card", "card": "7H", "action": {"split": [{"pawn": "c2", "steps": 7.0}]}},
    {"type": "play_card", "card": "7H", "action": {"split": [["c2", 7]]}},
    {"type": "play_card", "card": "7H", "action": {"split": "c2"}},
    {
        "type": "play_card",
        "card": "JH",
        "action": {"swap": {"pawn": "c2", "target_seat": "1", "target_pawn": "c1"}},
    },
    {"type": "play_card", "card": "JH", "action": {"swap": {"pawn": "c2"}}},
    {"type": "play_card", "card": "JH", "action": {"swap": ["c2", 1, "c1"]}},
    {
        "type": "play_card",
        "card": "JH",
        "action": {"swap": {"pawn": "c2", "target_seat": -1, "target_pawn": "c1"}},
    },
    {"type": "play_card", "card": "5H", "action": {"move": "c2", "enter": []}},
]


@pytest.mark.parametrize("mv", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_moves_are_illegal_moves(mv: Any) -> None:
    """RR-10, RR-15, RR-16, RR-21, RR-25, RR-30: malformed input never raises anything else."""
    state = position(hands={RED: ["5H", "AH", "7H", "JH"]})
    with pytest.raises(IllegalMove) as info:
        ENGINE.decide(state, RED, mv)
    assert info.value.rule.startswith("RR-") and info.value.message


def test_not_your_turn_and_waiting_states() -> None:
    """RR-9: only the current seat moves; nobody moves while a shuffle is pending."""
    state = position(hands={RED: ["5H"], 1: ["5C"]})
    with pytest.raises(IllegalMove) as info:
        ENGINE.decide(state, 1, {"type": "play_card", "card": "5C", "action": {"move": "c2"}})
    assert info.value.rule == "RR-9"
    assert ENGINE.legal_moves(state, 1) == []
    fresh = ENGINE.initial_state(config(4))
    assert ENGINE.to_move(fresh) == [] and ENGINE.chance_request(fresh) is not None
    with pytest.raises(IllegalMove):
        ENGINE.decide(fresh, 0, {"type": "end_turn"})


def test_invariants_catch_broken_states() -> None:
    """The invariants of the issue text are checked on the state itself."""
    good = position(hands={RED: ["5H"]})
    assert ENGINE.invariants(good) == []
    shared = good.clone()
    shared.pawns[1][0] = (2 - 16) % 64  # Blue c1 onto Red's runner square
    assert any("share square" in p for p in ENGINE.invariants(shared))
    lost = good.clone()
    lost.stock.pop()
    assert any(p.startswith("RR-5") for p in ENGINE.invariants(lost))
    left = good.clone()
    left.home_place[RED][2] = 64
    assert any(p.startswith("RR-24") for p in ENGINE.invariants(left))
    done = good.clone()
    done.pawns[RED] = [64, 65, 67, 66]
    assert any(p.startswith("RR-38") for p in ENGINE.invariants(done))
    worse = good.clone()
    worse.last_play = {"seat": RED, "order_before": [0, 1, 3]}
    worse.pawns[RED] = [1, 3, 20, OFF]
    assert any(p.startswith("RR-33") for p in ENGINE.invariants(worse))
    assert isinstance(Progress, type)
