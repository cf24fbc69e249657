"""Per-round results of a league (pure): every game, table, seat, score and the standings with
their tie-breaks after the round; as a document, as CSV rows, and, for leagues of two-player
tables, as a FIDE TRF-16-like player list (``001`` lines with one block per round)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.matchmaking.domain.league import League, LeagueError, LeagueTable
from services.matchmaking.domain.league_rules import bye_points
from services.matchmaking.domain.standings import TIE_BREAKS, game_points, standings

CSV_COLUMNS = ("round", "table_no", "request_id", "game_id", "status", "seat", "player_id", "display_name",
               "rank", "game_score", "points", "place_after_round", "total_points", "buchholz", "wins",
               "total_score", "decided_by")


def _points(t: LeagueTable) -> list[float | None]:
    if t.status in ("forfeited", "void") and t.points is not None:  # void: the void_table rule "bye"
        return list(t.points)
    if t.status == "finished" and t.ranks:
        return list(game_points(t.ranks))
    return [None] * len(t.seats)


def round_results(league: League, round_no: int, names: Mapping[str, str]) -> dict[str, Any]:
    if not 1 <= round_no <= league.seated_rounds:
        raise LeagueError(f"round {round_no} is not seated (rounds seated: {league.seated_rounds})", "round",
                          conflict=False)
    games = []
    for t in league.round_tables(round_no):
        pts = _points(t)
        games.append({
            "table_no": t.table_no, "request_id": t.request_id, "game_id": t.game_id, "status": t.status,
            "reason": t.reason, "replay_of": t.replay_of, "absent": t.absent, "void_reason": t.void_reason,
            "counted": t.status in ("finished", "forfeited"),
            "seats": [{
                "seat": k, "player_id": p, "display_name": names.get(p),
                "rank": t.ranks[k] if t.ranks and t.status in ("finished", "forfeited") else None,
                "game_score": t.scores[k] if t.scores and t.status == "finished" else None,
                "points": pts[k],
            } for k, p in enumerate(t.seats)],
        })
    sizes = [len(t.seats) for t in league.round_tables(round_no)] or [max(league.table_sizes)]
    byes = [{"player_id": p, "display_name": names.get(p), "points": bye_points(league.rules, max(sizes))}
            for p in league.byes.get(round_no, [])]
    rows = standings(league, up_to_round=round_no)
    for row in rows:
        row["display_name"] = names.get(row["player_id"])
    return {
        "league_id": league.league_id, "name": league.name, "game_type": league.game_type, "round": round_no,
        "complete": league.round_complete(round_no), "rules": league.rules.as_dict(), "tie_breaks": list(TIE_BREAKS),
        "games": games, "byes": byes,
        "late_entries": [e for e in league.entered.values() if e["from_round"] == round_no],
        "withdrawals": [w for w in league.withdrawn.values() if w["from_round"] == round_no + 1],
        "standings": rows,
    }


def csv_rows(doc: Mapping[str, Any]) -> list[list[Any]]:
    """One row per seat of every game, then one per bye; each with the player's standing after the round."""
    after = {row["player_id"]: row for row in doc["standings"]}

    def standing(p: str) -> list[Any]:
        row = after.get(p)
        if row is None:
            return [""] * 6
        return [row["place"], row["points"], row["buchholz"], row["wins"], row["score"], row["decided_by"]]

    out: list[list[Any]] = [list(CSV_COLUMNS)]
    for g in doc["games"]:
        for s in g["seats"]:
            out.append([doc["round"], g["table_no"], g["request_id"], g["game_id"] or "", g["status"], s["seat"],
                        s["player_id"], s["display_name"] or "", _blank(s["rank"]), _blank(s["game_score"]),
                        _blank(s["points"]), *standing(s["player_id"])])
    for b in doc["byes"]:
        out.append([doc["round"], "", "", "", "bye", "", b["player_id"], b["display_name"] or "", "", "",
                    b["points"], *standing(b["player_id"])])
    return out


def _blank(value: Any) -> Any:
    return "" if value is None else value


def trf(league: League, up_to_round: int, names: Mapping[str, str]) -> str:
    """TRF-16-like: ``012`` name, ``062``/``092`` counts, then one ``001`` line per player with start
    rank, name, points and place after ``up_to_round`` and per round ``opponent colour result``
    (``w``/``b`` by seat; ``1 = 0``, forfeits ``+ -``, byes ``U`` (win) ``H`` (half) ``Z`` (zero),
    not paired ``0000 - Z``). Only for leagues of two-player tables."""
    if league.table_sizes != [2]:
        raise LeagueError("TRF fits leagues of two-player tables only; use json or csv", "format", conflict=False)
    start = {p: k for k, p in enumerate(league.participants, start=1)}
    rows = {row["player_id"]: row for row in standings(league, up_to_round=up_to_round)}
    bye_code = {"win": "U", "half": "H", "zero": "Z"}[league.rules.bye]
    late_code = "H" if league.rules.late_entry == "half" else "Z"
    lines = [f"012 {league.name}", f"062 {len(league.participants)}", f"092 {league.format}"]
    for p in league.participants:
        blocks = []
        for r in range(1, up_to_round + 1):
            block = "0000 - Z"
            if p in league.byes.get(r, []):
                block = f"0000 - {bye_code}"
            elif r in league.entered.get(p, {}).get("missed_rounds", []):
                block = f"0000 - {late_code}"
            for t in league.round_tables(r):
                if p in t.seats and t.status == "void" and t.points is not None:
                    block = f"0000 - {bye_code}"  # a voided table scored as a bye (void_table rule)
                if p in t.seats and t.status in ("finished", "forfeited") and t.ranks:
                    k = t.seats.index(p)
                    other = t.seats[1 - k]
                    if t.status == "forfeited":
                        mark = "-" if p in (t.absent or []) else "+"
                    else:
                        mark = {1.0: "1", 0.5: "=", 0.0: "0"}[game_points(t.ranks)[k]]
                    block = f"{start[other]:4d} {'wb'[k]} {mark}"
            blocks.append(block)
        row = rows.get(p)
        points, place = (row["points"], row["place"]) if row else (0.0, 0)
        name = (names.get(p) or p)[:33]
        lines.append(f"001 {start[p]:4d}      {name:<33} {0:4d} {'':3} {'':11} {'':10} {points:4.1f} {place:4d}"
                     + "".join(f"  {b}" for b in blocks))
    return "\n".join(lines) + "\n"
