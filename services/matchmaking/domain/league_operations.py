"""The organiser's commands on a league (pure): each returns the events to record, followed by what
they set off (the next round seated, the league completed), or raises ``LeagueError``.

* :func:`withdraw` a player: ``PlayerWithdrew`` from the next round to be seated; a game of theirs
  already seated and not finished is forfeited at once (``ForfeitRecorded``); later rounds follow
  the league's ``withdrawal`` rule (not paired, or paired and forfeited).
* :func:`enter_late`: ``PlayerEntered`` from the next round to be seated (Swiss leagues only: a
  round robin's schedule is fixed), with the ``late_entry`` rule's points for each missed round.
* :func:`record_forfeit`: a seated player did not show (or lost on the clock): the absent rank
  last with 0 points, the present score the ``forfeit`` rule's points.
* :func:`reseat` an aborted or failed table: a new game for the same seats and settings, or for new
  seats and new options, clock or timeout policy (a table the games service refused gets corrected
  settings); the old one no longer counts as played.
* :func:`void_table`: no result for a table not yet settled, scored by the ``void_table`` rule.
* :func:`override_pairing` of a round not yet seated: the organiser's tables and byes, with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.matchmaking.domain.league import RESEATABLE, Event, League, LeagueError, LeagueTable
from services.matchmaking.domain.league_model import VOIDABLE
from services.matchmaking.domain.league_rules import bye_points, forfeit_result, late_entry_points
from services.matchmaking.domain.seating import ROUND_ROBIN


def _running(league: League) -> None:
    if league.status != "running":
        raise LeagueError(f"the league is {league.status}")


def _forfeit(league: League, table: LeagueTable, absent: Sequence[str], reason: str, by: str) -> Event:
    ranks, points = forfeit_result(league.rules, table.seats, absent)
    return ("ForfeitRecorded", {
        "request_id": table.request_id, "round": table.round, "table_no": table.table_no,
        "absent": list(absent), "present": [p for p in table.seats if p not in absent], "ranks": ranks,
        "points": points, "rule": league.rules.forfeit, "reason": reason, "by": by,
    })


def withdraw(league: League, player_id: str, reason: str, by: str) -> list[Event]:
    _running(league)
    if player_id not in league.participants:
        raise LeagueError(f"{player_id} does not play in this league", "player_id", conflict=False)
    if player_id in league.withdrawn:
        raise LeagueError(f"{player_id} has withdrawn already", "player_id")
    events: list[Event] = [("PlayerWithdrew", {
        "player_id": player_id, "from_round": league.seated_rounds + 1, "rule": league.rules.withdrawal,
        "reason": reason, "by": by,
    })]
    for t in sorted(league.tables.values(), key=lambda t: (t.round, t.table_no)):
        if player_id in t.seats and not t.settled:
            absent = [p for p in t.seats if p == player_id or p in league.withdrawn]
            events.append(_forfeit(league, t, absent, f"withdrawn: {reason}", by))
    return league.progress(events)


def enter_late(league: League, player_id: str, by: str) -> list[Event]:
    _running(league)
    if league.format == ROUND_ROBIN:
        raise LeagueError("late entry needs a Swiss league: a round robin's schedule is fixed", "player_id")
    if player_id in league.participants:
        raise LeagueError(f"{player_id} plays in this league already", "player_id")
    first = league.seated_rounds + 1
    if first > league.rounds:
        raise LeagueError("every round is seated already: there is no round left to enter", "player_id")
    missed = list(range(1, first))
    return league.progress([("PlayerEntered", {
        "player_id": player_id, "from_round": first, "missed_rounds": missed,
        "points_per_missed_round": late_entry_points(league.rules, max(league.table_sizes)),
        "rule": league.rules.late_entry, "by": by,
    })])


def _table(league: League, round_no: int, table_no: int) -> LeagueTable:
    table = league.current_table(round_no, table_no)
    if table is None:
        raise LeagueError(f"round {round_no} has no table {table_no}", "table_no", conflict=False)
    return table


def record_forfeit(
    league: League, round_no: int, table_no: int, absent: Sequence[str], reason: str, by: str
) -> list[Event]:
    _running(league)
    table = _table(league, round_no, table_no)
    if table.settled:
        raise LeagueError(f"round {round_no} table {table_no} is {table.status} already", "table_no")
    wrong = [p for p in absent if p not in table.seats]
    if wrong or not absent or len(set(absent)) != len(absent):
        raise LeagueError(f"absent must list players seated at this table once each (not {', '.join(wrong)})"
                          if wrong else "absent must list the seated players who did not show, once each",
                          "absent", conflict=False)
    return league.progress([_forfeit(league, table, list(absent), reason, by)])


def reseat(
    league: League, round_no: int, table_no: int, reason: str, by: str,
    seats: Sequence[str] | None = None, settings: Mapping[str, Any] | None = None,
) -> list[Event]:
    """A new game at an ``aborted`` or ``failed`` table: for the same seats and settings, or for new
    ``seats`` (players of this table or with a bye that round, in seat order; whoever of them is left
    out has a bye that round, scored by the ``bye`` rule) and new ``settings`` (``options``, ``clock``,
    ``timeout_policy``: the table's own from then on; the caller has checked them at the door; or
    ``no_clock``: the new game has no clock, whatever the league's)."""
    _running(league)
    table = _table(league, round_no, table_no)
    if table.status not in RESEATABLE:
        raise LeagueError(f"only an aborted or failed table can be re-seated; round {round_no} table"
                          f" {table_no} is {table.status}", "table_no")
    n = sum(1 for t in league.round_tables(round_no) if t.table_no == table_no and ":reseat" in t.request_id)
    base = table.request_id.split(":reseat")[0]
    event: dict[str, Any] = {
        "request_id": table.request_id, "new_request_id": f"{base}:reseat{n + 1}",
        "previous_status": table.status,
        "reason": f"re-seat of round {round_no} table {table_no} ({table.status} game {table.game_id}): {reason}",
        "by": by,
    }
    if seats is not None and list(seats) != table.seats:
        byes = list(league.byes.get(round_no, []))
        pool = [*table.seats, *byes]
        if len(set(seats)) != len(seats):
            raise LeagueError("a player is listed twice", "seats", conflict=False)
        strangers = [p for p in seats if p not in pool]
        if strangers:
            raise LeagueError(f"only players of this table or with a bye in round {round_no} can be seated here,"
                              f" not {', '.join(strangers)}", "seats", conflict=False)
        if len(seats) not in league.table_sizes:
            raise LeagueError(f"a table of {len(seats)} players; this league seats {league.table_sizes}", "seats",
                              conflict=False)
        event["seats"] = list(seats)
        event["byes"] = [p for p in pool if p not in seats]
    for key in ("options", "clock", "timeout_policy"):
        if settings and settings.get(key) is not None:
            event[key] = settings[key]
    if settings and settings.get("no_clock"):
        if settings.get("clock") is not None or settings.get("timeout_policy") is not None:
            raise LeagueError("no_clock takes the clock away: give no clock or timeout_policy with it", "no_clock",
                              conflict=False)
        event["no_clock"] = True
    return league.progress([("TableReseated", event)])


def void_table(league: League, round_no: int, table_no: int, reason: str, by: str) -> list[Event]:
    """No result for a table not yet settled (its game could not be played, nor re-seated): it counts
    for nobody, or under the ``void_table`` rule ``bye`` each seated player scores a bye for that round;
    the round can then complete. A game still running is aborted (the caller's queue)."""
    _running(league)
    table = _table(league, round_no, table_no)
    if table.status not in VOIDABLE:
        raise LeagueError(f"round {round_no} table {table_no} is {table.status}: only a table without a result"
                          " can be voided", "table_no")
    points = None
    if league.rules.void_table == "bye":
        sizes = [len(t.seats) for t in league.round_tables(round_no)] or [max(league.table_sizes)]
        points = [bye_points(league.rules, max(sizes))] * len(table.seats)
    return league.progress([("TableVoided", {
        "request_id": table.request_id, "round": round_no, "table_no": table_no, "reason": reason,
        "rule": league.rules.void_table, "points": points, "by": by,
    })])


def override_pairing(
    league: League, round_no: int, tables: Sequence[Sequence[str]], byes: Sequence[str], reason: str, by: str
) -> list[Event]:
    """The organiser's seating for a round not yet seated (used when it is seated)."""
    _running(league)
    if round_no <= league.seated_rounds or round_no > league.rounds:
        raise LeagueError(f"only a round not yet seated can be paired by hand (rounds {league.seated_rounds + 1}"
                          f" to {league.rounds})", "round")
    players = league.active_players(round_no)
    listed = [p for seats in tables for p in seats] + list(byes)
    if len(set(listed)) != len(listed):
        raise LeagueError("a player is listed twice", "tables", conflict=False)
    if sorted(listed) != sorted(players):
        missing, extra = sorted(set(players) - set(listed)), sorted(set(listed) - set(players))
        raise LeagueError(f"the pairing must seat every player of round {round_no} once (missing: "
                          f"{', '.join(missing) or 'none'}; not playing: {', '.join(extra) or 'none'})",
                          "tables", conflict=False)
    sizes = sorted({len(seats) for seats in tables} - set(league.table_sizes))
    if sizes:
        raise LeagueError(f"tables of {sizes} players; this league seats {league.table_sizes}", "tables",
                          conflict=False)
    return [("PairingOverridden", {"round": round_no, "tables": [list(s) for s in tables], "byes": list(byes),
                                   "reason": reason, "by": by})]
