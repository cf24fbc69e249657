"""League operations and standings (pure domain): forfeit, bye and late-entry scores per rule, the
tie-break that decided each place, withdrawals, re-seats and pairing overrides."""

from __future__ import annotations

from typing import Any

import pytest

from services.matchmaking.domain import league_operations as ops
from services.matchmaking.domain.league import League, LeagueError
from services.matchmaking.domain.league_rules import (
    LeagueRules,
    bye_points,
    forfeit_result,
    late_entry_points,
)
from services.matchmaking.domain.results import round_results, trf
from services.matchmaking.domain.standings import explain, standings

P = [f"p{k:02d}" for k in range(1, 14)]


def league(n: int, sizes: list[int], rounds: int = 3, fmt: str = "swiss", **rules: str) -> League:
    return League.fold(League.create("L", "T", "diceduel", {}, P[:n], rounds, sizes, fmt, "admin", rules))


def apply(lg: League, events: list[Any]) -> None:
    for e in events:
        lg.apply(*e)


def create_games(lg: League, round_no: int) -> None:
    for t in lg.round_tables(round_no):
        if t.game_id is None and t.status == "requested":
            lg.apply("TableGameCreated", {"request_id": t.request_id, "game_id": f"g-{t.request_id}"})


def finish(lg: League, round_no: int, table_no: int, ranks: list[int]) -> None:
    t = lg.current_table(round_no, table_no)
    assert t is not None
    if t.game_id is None:
        create_games(lg, round_no)
    assert t.game_id is not None
    apply(lg, lg.record_result(t.game_id, t.seats, ranks, [10.0 - r for r in ranks], "done"))


def rows(lg: League, up_to: int | None = None) -> dict[str, dict[str, Any]]:
    return {r["player_id"]: r for r in standings(lg, up_to)}


# ------------------------------------------------------------------ scores per rule
def test_forfeit_scores_per_rule() -> None:
    # two players: the present one wins 1-0 either way
    assert forfeit_result(LeagueRules(), ["a", "b"], ["b"]) == ([1, 2], [1.0, 0.0])
    assert forfeit_result(LeagueRules(forfeit="shared"), ["a", "b"], ["b"]) == ([1, 2], [1.0, 0.0])
    # four players, one absent: "win" gives each present player a full win (3 points);
    # "shared": beat the absent one (1) and draw with the two others (0.5 + 0.5) = 2
    assert forfeit_result(LeagueRules(), ["a", "b", "c", "d"], ["c"]) == ([1, 1, 4, 1], [3.0, 3.0, 0.0, 3.0])
    assert forfeit_result(LeagueRules(forfeit="shared"), ["a", "b", "c", "d"], ["c"])[1] == [2.0, 2.0, 0.0, 2.0]
    # nobody showed: nobody scores
    assert forfeit_result(LeagueRules(), ["a", "b"], ["a", "b"])[1] == [0.0, 0.0]


def test_bye_and_late_entry_scores_per_rule() -> None:
    assert [bye_points(LeagueRules(bye=b), 2) for b in ("half", "win", "zero")] == [0.5, 1.0, 0.0]
    assert [bye_points(LeagueRules(bye=b), 4) for b in ("half", "win", "zero")] == [1.5, 3.0, 0.0]
    assert late_entry_points(LeagueRules(), 4) == 0.0
    assert late_entry_points(LeagueRules(late_entry="half"), 4) == 1.5
    with pytest.raises(ValueError, match=r"rules\.bye"):
        LeagueRules.parse({"bye": "double"})
    with pytest.raises(ValueError, match=r"rules\.colour"):
        LeagueRules.parse({"colour": "white"})
    with pytest.raises(LeagueError) as err:
        league(4, [2], late_entry="lots")
    assert err.value.field == "rules"


def test_old_leagues_without_rules_fold_with_the_defaults() -> None:
    events = League.create("L", "T", "diceduel", {}, P[:4], 1, [2], "swiss", "admin")
    del events[0][1]["rules"]
    assert League.fold(events).rules == LeagueRules()


# ------------------------------------------------------------------ tie-break explanation
def test_decided_by_names_the_deepest_tie_break_needed() -> None:
    def row(pid: str, points: float, bh: float = 0, wins: int = 0, score: float = 0, seed: int = 0) -> dict[str, Any]:
        return {"player_id": pid, "points": points, "buchholz": bh, "wins": wins, "score": score, "seed": seed}

    table = [row("a", 3, seed=5), row("b", 2, 5, seed=1), row("c", 2, 4, 2, seed=2), row("d", 2, 4, 1, seed=3),
             row("e", 1, 0, 0, 9, 4), row("f", 1, 0, 0, 7, 6), row("g", 0, seed=7), row("h", 0, seed=8)]
    explain(table)
    assert [r["decided_by"] for r in table] == ["points", "buchholz", "wins", "wins", "score", "score", "seed",
                                                "seed"]
    assert table[2]["explanation"] == ("behind b: level on points (2), buchholz 4 to 5; "
                                       "ahead of d: level on points (2), level on buchholz (4), wins 2 to 1")
    assert table[7]["explanation"].endswith("seeded 8 to 7")
    alone = [row("x", 0)]
    explain(alone)
    assert alone[0]["decided_by"] == "points" and alone[0]["explanation"] == "the only player"


# ------------------------------------------------------------------ aborted, re-seated, failed
def test_an_aborted_game_counts_for_nobody_and_holds_the_round_until_reseated() -> None:
    lg = league(4, [2], rounds=2)
    create_games(lg, 1)
    first = lg.current_table(1, 1)
    assert first is not None and first.game_id is not None
    apply(lg, lg.record_abort(first.game_id, "server restart"))
    finish(lg, 1, 2, [1, 2])
    r = rows(lg)
    assert r["p01"]["games"] == 0 and r["p01"]["points"] == 0 and r["p03"]["games"] == 1
    assert lg.seated_rounds == 1  # the round waits
    apply(lg, ops.reseat(lg, 1, 1, "server restart", "admin"))
    again = lg.current_table(1, 1)
    assert again is not None and again.request_id.endswith(":reseat1") and again.replay_of == first.request_id
    assert first.status == "replaced" and again.seats == first.seats
    with pytest.raises(LeagueError, match="only an aborted or failed table"):
        ops.reseat(lg, 1, 2, "?", "admin")
    finish(lg, 1, 1, [2, 1])
    assert rows(lg)["p02"]["points"] == 1 and lg.seated_rounds == 2
    assert lg.met()["p01"]["p02"] == 1  # the aborted, re-seated table is one meeting, not two


def test_a_failed_table_can_be_reseated() -> None:
    lg = league(4, [2], rounds=1)
    table = lg.current_table(1, 2)
    assert table is not None
    table.status = "failed"  # the games service refused the game (recorded by the roles work)
    (event,) = ops.reseat(lg, 1, 2, "options fixed", "admin")
    assert event[0] == "TableReseated" and event[1]["previous_status"] == "failed"


def test_a_reseat_takes_new_seats_from_the_table_and_the_byes_and_new_settings() -> None:
    """5 players at two-player tables, round 1: p01-p02, p03-p04, p05 bye. Table 2 failed; the organiser
    seats p05 (the bye) with p03 and a new clock: p04 gets the bye; a player of another table is refused."""
    lg = league(5, [2], rounds=1)
    assert lg.byes[1] == ["p05"]
    table = lg.current_table(1, 2)
    assert table is not None and table.seats == ["p03", "p04"]
    table.status = "failed"
    for seats, field in ((["p03", "p01"], "seats"), (["p03", "p03"], "seats"), (["p03", "p04", "p05"], "seats")):
        with pytest.raises(LeagueError) as err:
            ops.reseat(lg, 1, 2, "x", "org", seats)
        assert err.value.field == field and not err.value.conflict
    clock = {"kind": "per_move", "seconds": 60}
    apply(lg, ops.reseat(lg, 1, 2, "p04 left", "org", ["p05", "p03"],
                         {"options": {"target": 40}, "clock": clock, "timeout_policy": "forfeit"}))
    new = lg.current_table(1, 2)
    assert new is not None and new.seats == ["p05", "p03"] and lg.byes[1] == ["p04"]
    assert lg.table_settings(new) == ({"target": 40}, clock, "forfeit")
    old = lg.current_table(1, 1)
    assert old is not None and lg.table_settings(old) == ({}, None, None)  # the league's


def test_a_reseat_can_take_the_leagues_clock_away_until_a_later_reseat_gives_one() -> None:
    """A league with a clock (forfeit on time): the organiser re-seats a failed table with ``no_clock``
    (e.g. a player on a bad connection), so that table's game has no clock and no timeout policy; the
    other tables keep the league's. A second re-seat of it keeps it clockless unless it gives a clock.
    ``no_clock`` with a clock is refused, naming ``no_clock``."""
    league_clock = {"kind": "per_move", "seconds": 60}
    lg = League.fold(League.create("L", "T", "diceduel", {}, P[:4], 1, [2], "swiss", "admin", {},
                                   league_clock, "forfeit"))
    table = lg.current_table(1, 2)
    assert table is not None and lg.table_settings(table) == ({}, league_clock, "forfeit")
    table.status = "failed"
    with pytest.raises(LeagueError) as err:
        ops.reseat(lg, 1, 2, "x", "org", None, {"no_clock": True, "clock": league_clock})
    assert err.value.field == "no_clock" and not err.value.conflict
    apply(lg, ops.reseat(lg, 1, 2, "P4 is on a bad connection", "org", None, {"no_clock": True}))
    new = lg.current_table(1, 2)
    assert new is not None and lg.table_settings(new) == ({}, None, None)
    assert new.as_dict()["no_clock"] is True and new.as_dict()["clock"] is None
    other = lg.current_table(1, 1)
    assert other is not None and lg.table_settings(other) == ({}, league_clock, "forfeit")

    new.status = "aborted"  # re-seated again with the same settings: still no clock
    apply(lg, ops.reseat(lg, 1, 2, "the server restarted", "org"))
    again = lg.current_table(1, 2)
    assert again is not None and again.request_id != new.request_id
    assert lg.table_settings(again) == ({}, None, None)
    again.status = "aborted"  # a clock given again lifts it
    slow = {"kind": "per_move", "seconds": 300}
    apply(lg, ops.reseat(lg, 1, 2, "back on a good line", "org", None, {"clock": slow, "timeout_policy": "forfeit"}))
    clocked = lg.current_table(1, 2)
    assert clocked is not None and lg.table_settings(clocked) == ({}, slow, "forfeit") and not clocked.no_clock


def test_a_voided_table_scores_by_the_void_table_rule_and_completes_the_round() -> None:
    for rule, points in (("no_score", None), ("bye", [0.5, 0.5])):
        lg = league(4, [2], rounds=1, void_table=rule)
        finish(lg, 1, 1, [1, 2])
        apply(lg, ops.void_table(lg, 1, 2, "could not be played", "org"))
        table = lg.current_table(1, 2)
        assert table is not None and (table.status, table.points, table.void_reason) == (
            "void", points, "could not be played")
        assert lg.status == "completed"
        r = rows(lg)
        assert (r["p03"]["points"], r["p03"]["games"], r["p03"]["wins"]) == ((points or [0.0])[0], 0, 0)
        doc = round_results(lg, 1, {})
        assert [s["points"] for s in doc["games"][1]["seats"]] == (points or [None, None])
        assert doc["games"][1]["void_reason"] == "could not be played" and not doc["games"][1]["counted"]
        line = next(x for x in trf(lg, 1, {}).splitlines() if x.startswith("001    3 "))
        assert line.endswith("0000 - H" if points else "0000 - Z")  # a half-point bye, or nothing
        with pytest.raises(LeagueError) as err:
            ops.void_table(lg, 1, 1, "finished already", "org")
        assert err.value.conflict


def test_a_time_forfeit_in_team_mode_makes_both_partners_absent_under_the_league_rule() -> None:
    """GameFinished with forfeited_seats [1, 3] (seat 1 ran out of time, seat 3 its partner): both rank
    last with 0; under ``shared`` the two present beat the two absent and draw each other: 2.5 each."""
    lg = league(4, [4], rounds=1, forfeit="shared")
    create_games(lg, 1)
    table = lg.current_table(1, 1)
    assert table is not None and table.game_id is not None
    events = lg.record_time_forfeit(table.game_id, table.seats, [1, 3], "seat 1 ran out of time")
    assert events[0][0] == "ForfeitRecorded" and events[0][1]["by"] == "clock"
    assert events[0][1]["absent"] == [table.seats[1], table.seats[3]] and events[0][1]["game_id"] == table.game_id
    apply(lg, events)
    assert table.status == "forfeited" and table.points == [2.5, 0.0, 2.5, 0.0] and table.ranks == [1, 3, 1, 3]
    assert lg.record_time_forfeit(table.game_id, table.seats, [0], "again") == []  # settled: nothing new


# ------------------------------------------------------------------ forfeits and withdrawals
def test_a_forfeit_scores_per_rule_and_counts_in_standings() -> None:
    lg = league(4, [4], rounds=1, fmt="swiss", forfeit="shared")
    with pytest.raises(LeagueError) as err:
        ops.record_forfeit(lg, 1, 1, ["nobody"], "?", "admin")
    assert err.value.field == "absent"
    apply(lg, ops.record_forfeit(lg, 1, 1, ["p02"], "did not show", "admin"))
    r = rows(lg)
    # shared: p01, p03, p04 each beat p02 (1) and draw the two others (0.5 + 0.5)
    assert [r[p]["points"] for p in P[:4]] == [2.0, 0.0, 2.0, 2.0]
    assert r["p01"]["wins"] == 1 and r["p02"]["games"] == 1 and r["p01"]["score"] == 0
    assert lg.status == "completed"
    with pytest.raises(LeagueError):
        ops.record_forfeit(lg, 1, 1, ["p02"], "again", "admin")


def test_withdrawal_forfeits_a_seated_game_and_is_not_paired_after() -> None:
    lg = league(5, [2], rounds=2)  # round 1: p01-p02, p03-p04, bye p05
    assert lg.byes[1] == ["p05"]
    create_games(lg, 1)
    apply(lg, ops.withdraw(lg, "p03", "ill", "admin"))  # p03 was seated, not finished: forfeit
    t = lg.current_table(1, 2)
    assert t is not None and t.status == "forfeited" and t.absent == ["p03"] and t.points == [0.0, 1.0]
    with pytest.raises(LeagueError):
        ops.withdraw(lg, "p03", "again", "admin")
    finish(lg, 1, 1, [1, 2])
    assert "p03" not in {p for t in lg.round_tables(2) for p in t.seats} | set(lg.byes[2])
    assert rows(lg)["p03"]["withdrawn_from_round"] == 2


def test_withdrawal_under_the_forfeit_rule_forfeits_later_games_without_playing() -> None:
    lg = league(4, [2], rounds=3, fmt="round_robin", withdrawal="forfeit")
    finish(lg, 1, 1, [1, 2])
    apply(lg, ops.withdraw(lg, "p04", "moved", "admin"))
    finish(lg, 1, 2, [1, 2])
    for r in (2, 3):  # p04 stays in the schedule and loses every later game by forfeit
        mine = [t for t in lg.round_tables(r) if "p04" in t.seats]
        assert len(mine) == 1 and mine[0].status == "forfeited" and mine[0].game_id is None
        for t in lg.round_tables(r):
            if t.status != "forfeited":
                finish(lg, r, t.table_no, [1, 2])
    assert lg.status == "completed"
    r = rows(lg)
    assert r["p04"]["games"] == 3 and r["p04"]["points"] == 0 + 0 + 0


def test_withdrawal_from_a_round_robin_gives_the_opponent_a_bye() -> None:
    lg = league(4, [2], rounds=3, fmt="round_robin", bye="win")
    finish(lg, 1, 1, [1, 2])
    apply(lg, ops.withdraw(lg, "p04", "moved", "admin"))
    finish(lg, 1, 2, [1, 2])
    assert len(lg.round_tables(2)) == 1 and len(lg.byes[2]) == 1
    assert "p04" not in lg.byes[2]
    opponent = lg.byes[2][0]
    assert rows(lg)[opponent]["byes"] == 1


# ------------------------------------------------------------------ late entry and overrides
def test_late_entry_scores_the_missed_rounds_and_is_seated_from_the_next_round() -> None:
    lg = league(3, [2], rounds=3, late_entry="half", bye="zero")  # p03 has the round-1 bye
    with pytest.raises(LeagueError):
        ops.enter_late(lg, "p01", "admin")
    apply(lg, ops.enter_late(lg, "p09", "admin"))
    assert lg.entered["p09"]["from_round"] == 2 and lg.entered["p09"]["missed_rounds"] == [1]
    finish(lg, 1, 1, [1, 2])
    assert "p09" in {p for t in lg.round_tables(2) for p in t.seats}
    r = rows(lg)
    assert r["p09"]["points"] == 0.5 and r["p09"]["entered_round"] == 2 and r["p03"]["points"] == 0.0
    assert rows(lg, up_to=1)["p09"]["points"] == 0.5
    rr = league(4, [2], rounds=3, fmt="round_robin")
    with pytest.raises(LeagueError, match="round robin"):
        ops.enter_late(rr, "p09", "admin")


def test_pairing_override_is_used_unless_the_players_changed() -> None:
    lg = league(4, [2], rounds=3)
    with pytest.raises(LeagueError) as err:
        ops.override_pairing(lg, 2, [["p01", "p02", "p03"], ["p04"]], [], "x", "admin")
    assert err.value.field == "tables"  # tables of 3 and 1 in a league of two-player tables
    apply(lg, ops.override_pairing(lg, 2, [["p04", "p01"], ["p02", "p03"]], [], "family", "admin"))
    apply(lg, ops.override_pairing(lg, 3, [["p01", "p04"], ["p02", "p03"]], [], "again", "admin"))
    finish(lg, 1, 1, [1, 2])
    finish(lg, 1, 2, [1, 2])
    assert [t.seats for t in lg.round_tables(2)] == [["p04", "p01"], ["p02", "p03"]]
    assert "manual pairing by the organiser (admin): family" in lg.round_tables(2)[0].reason
    create_games(lg, 2)
    apply(lg, ops.withdraw(lg, "p02", "left", "admin"))  # forfeits p02-p03, so round 3 has 3 players
    finish(lg, 2, 1, [1, 2])
    assert lg.seated_rounds == 3 and len(lg.round_tables(3)) == 1 and len(lg.byes[3]) == 1
    assert "no longer matched" in lg.round_tables(3)[0].reason


# ------------------------------------------------------------------ export
def test_round_results_and_trf() -> None:
    lg = league(3, [2], rounds=1, bye="win")  # p01-p02, bye p03
    finish(lg, 1, 1, [1, 1])
    doc = round_results(lg, 1, {"p01": "Anneke"})
    (game,) = doc["games"]
    assert [(s["player_id"], s["rank"], s["points"]) for s in game["seats"]] == [("p01", 1, 0.5), ("p02", 1, 0.5)]
    assert doc["byes"] == [{"player_id": "p03", "display_name": None, "points": 1.0}]
    assert doc["standings"][0]["player_id"] == "p03" and doc["standings"][0]["decided_by"] == "points"
    lines = trf(lg, 1, {"p01": "Anneke"}).splitlines()
    assert lines[0] == "012 T"
    assert lines[3].startswith("001    1      Anneke") and lines[3].endswith(" 0.5    2     2 w =")
    assert lines[5].endswith(" 1.0    1  0000 - U")
    with pytest.raises(LeagueError):
        round_results(lg, 2, {})
    with pytest.raises(LeagueError, match="two-player"):
        trf(league(4, [4], rounds=1), 1, {})
