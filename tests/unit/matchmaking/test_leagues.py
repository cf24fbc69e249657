"""League seating, standings, tie-breaks and disputes (pure domain)."""

from __future__ import annotations

import itertools

import pytest

from services.matchmaking.domain.league import League, LeagueError, game_points, standings
from services.matchmaking.domain.seating import (
    choose_format,
    repeat_cost,
    seat_round_robin,
    seat_swiss,
    table_plan,
)

PLAYERS = [f"p{k:02d}" for k in range(12)]


def play(league: League, round_no: int, ranks_for=lambda k: [1, 2, 3, 4]) -> None:  # type: ignore[no-untyped-def]
    for t in league.round_tables(round_no):
        league.apply("TableGameCreated", {"request_id": t.request_id, "game_id": f"g-{t.request_id}"})
    for k, t in enumerate(league.round_tables(round_no)):
        ranks = ranks_for(k)[: len(t.seats)]
        assert t.game_id is not None
        for event in league.record_result(t.game_id, t.seats, ranks, [10 - r for r in ranks], "done"):
            league.apply(*event)


def new_league(n: int = 12, rounds: int = 3, sizes=(4,), fmt: str = "auto") -> League:  # type: ignore[no-untyped-def]
    return League.fold(League.create("L", "Test", "paardenkoppen", {}, PLAYERS[:n], rounds, list(sizes), fmt, "a"))


def test_game_points() -> None:
    assert game_points([1, 2, 3, 4]) == [3.0, 2.0, 1.0, 0.0]
    assert game_points([1, 1, 3]) == [1.5, 1.5, 0.0]


def test_formats() -> None:
    assert choose_format("auto", 12, [4], 3) == "swiss"
    assert choose_format("auto", 4, [4], 5) == "round_robin"
    assert choose_format("auto", 6, [2], 5) == "round_robin"
    assert choose_format("auto", 6, [2], 6) == "swiss"
    with pytest.raises(ValueError):
        choose_format("round_robin", 12, [4], 3)


def test_table_plan_prefers_the_first_size_then_byes() -> None:
    assert table_plan(12, [4]) == ([4, 4, 4], 0)
    assert table_plan(10, [4, 3]) == ([4, 3, 3], 0)
    assert table_plan(10, [4]) == ([4, 4], 2)


def test_round_robin_pairs_everyone_once() -> None:
    players = PLAYERS[:6]
    seen = set()
    for r in range(1, 6):
        seating = seat_round_robin(players, [2], r, {})
        for t in seating.tables:
            pair = frozenset(t.seats)
            assert pair not in seen
            seen.add(pair)
    assert len(seen) == 15


def test_swiss_round_two_repeats_are_minimal_and_explained() -> None:
    league = new_league()
    play(league, 1)
    r2 = league.round_tables(2)
    assert all(repeat_cost(t.seats, {}) == 0 for t in r2)
    met = {p: {q: 1 for q in t.seats if q != p} for t in league.round_tables(1) for p in t.seats}
    assert sum(repeat_cost(t.seats, met) for t in r2) == 3  # pigeonhole: one per table
    assert all("unavoidable" in t.reason for t in r2)


def test_swiss_with_room_avoids_every_repeat_and_says_why() -> None:
    players = [f"q{k:02d}" for k in range(16)]
    met: dict[str, dict[str, int]] = {p: {} for p in players}
    for group in (players[0:4], players[4:8], players[8:12], players[12:16]):
        for p in group:
            met[p] = {q: 1 for q in group if q != p}
    seating = seat_swiss(players, met, {}, {}, [4], 2)
    assert seating.repeats == 0
    assert all(repeat_cost(t.seats, met) == 0 for t in seating.tables)
    assert any("skipped to avoid repeat" in t.reason for t in seating.tables)


def test_seat_positions_are_balanced() -> None:
    history = {"a": [0.0, 0.0], "b": [1.0], "c": [], "d": [0.33]}
    seating = seat_swiss(["a", "b", "c", "d"], {}, history, {}, [4], 3)
    assert seating.tables[0].seats == ("b", "c", "d", "a")


def test_byes_go_to_the_lowest_placed_and_score_half_a_table() -> None:
    league = new_league(n=10, rounds=2, sizes=(4,))
    assert league.byes[1] == ["p09", "p08"]
    play(league, 1)
    rows = {r["player_id"]: r for r in standings(league)}
    assert rows["p09"]["points"] == 1.5 and rows["p09"]["byes"] == 1
    assert set(league.byes[2]).isdisjoint({"p08", "p09"})


def test_standings_tie_breaks_points_then_buchholz() -> None:
    league = new_league(n=8, rounds=1)
    play(league, 1)
    rows = standings(league)
    assert [r["points"] for r in rows][:2] == [3.0, 3.0]
    assert rows[0]["buchholz"] >= rows[1]["buchholz"]
    assert [r["place"] for r in rows] == list(range(1, 9))
    assert league.status == "completed"


def test_dispute_void_and_replay() -> None:
    league = new_league(n=8, rounds=2)
    play(league, 1)
    table = league.round_tables(1)[0]
    assert table.game_id is not None
    with pytest.raises(LeagueError):
        league.open_dispute("d0", "nope", "?", {})
    for e in league.open_dispute("d1", table.game_id, "loaded dice", {"ok": True}):
        league.apply(*e)
    rows = {r["player_id"]: r for r in standings(league)}
    assert all(rows[p]["provisional"] for p in table.seats)
    with pytest.raises(LeagueError):
        league.open_dispute("d2", table.game_id, "again", {})
    for e in league.rule("d1", "void", "no"):
        league.apply(*e)
    rows = {r["player_id"]: r for r in standings(league)}
    assert all(rows[p]["points"] == 0 and not rows[p]["provisional"] for p in table.seats)
    with pytest.raises(LeagueError):
        league.rule("d1", "void", None)

    other = league.round_tables(1)[1]
    assert other.game_id is not None
    for e in league.open_dispute("d3", other.game_id, "misdeal", {}):
        league.apply(*e)
    (ruled,) = league.rule("d3", "replay", None)
    league.apply(*ruled)
    replay = league.tables[ruled[1]["replay_request_id"]]
    assert replay.seats == other.seats and replay.replay_of == other.request_id
    assert not league.round_complete(1)


def test_twelve_player_rounds_match_brute_force_minimum() -> None:
    league = new_league()
    for r in (1, 2, 3):
        history: dict[str, dict[str, int]] = {p: {} for p in PLAYERS}
        for t in league.tables.values():
            if t.round < r:
                for p, q in itertools.permutations(t.seats, 2):
                    history[p][q] = history[p].get(q, 0) + 1
        actual = sum(repeat_cost(t.seats, history) for t in league.round_tables(r))
        assert actual == _brute_force(history)
        play(league, r, lambda k: [1, 2, 3, 4] if k % 2 else [4, 3, 2, 1])


def _brute_force(met) -> int:  # type: ignore[no-untyped-def]
    best = 10**9
    first, rest = PLAYERS[0], PLAYERS[1:]
    for mates in itertools.combinations(rest, 3):
        left = [p for p in rest if p not in mates]
        for mates2 in itertools.combinations(left[1:], 3):
            t2 = (left[0], *mates2)
            t3 = [p for p in left if p not in t2]
            best = min(best, repeat_cost((first, *mates), met) + repeat_cost(t2, met) + repeat_cost(t3, met))
    return best
