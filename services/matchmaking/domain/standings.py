"""League standings and the tie-break that decided each place (pure).

Points per game: one for every table-mate ranked below, half for every table-mate ranked equal (a
4-player win is 3 points); a forfeit scores what the league's ``forfeit`` rule says (recorded in
the event; a seat that ran out of time under the forfeit policy is scored so too); a bye and a
missed round (late entry) score what the ``bye`` and ``late_entry`` rules say; a table the organiser
voided scores what the ``void_table`` rule recorded (nothing, or a bye each: points only, no game,
no win, no Buchholz). Counted games are finished and forfeited ones; void, aborted, failed and
replaced (re-seated) games count for nobody and are not played.

Tie-breaks, in order (``TIE_BREAKS``): points; Buchholz (the sum of the current points of every
table-mate in every counted game, forfeits included; byes and missed rounds add nothing); wins
(games ranked first, forfeit wins included); the sum of game scores; the seeding order (late
entrants after everyone seeded at creation, in the order they entered).

Each row says which tie-break ``decided_by`` its place: the deepest criterion needed to separate
it from the row above and from the row below (``points`` when its points alone place it), with an
``explanation`` naming the neighbours and the values compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.matchmaking.domain.league_rules import bye_points

if TYPE_CHECKING:
    from services.matchmaking.domain.league import League

TIE_BREAKS = ("points", "buchholz", "wins", "score", "seed")
COUNTED = ("finished", "forfeited")


def game_points(ranks: Sequence[int]) -> list[float]:
    """One point per table-mate ranked below, half per table-mate ranked equal."""
    return [
        sum(1.0 if r < o else 0.5 if r == o else 0.0 for j, o in enumerate(ranks) if j != i)
        for i, r in enumerate(ranks)
    ]


def standings(league: League, up_to_round: int | None = None) -> list[dict[str, Any]]:
    """Rows best first: place, player_id, points, buchholz, wins, score, games, byes, provisional,
    withdrawn_from_round, entered_round, missed_rounds, decided_by, explanation. With ``up_to_round``,
    only what rounds up to it contributed (the standings after that round)."""
    last = up_to_round if up_to_round is not None else max(league.rounds, league.seated_rounds)
    # a late entrant shows from the round before their first (they entered while it was played)
    players = [p for p in league.participants if league.entered.get(p, {}).get("from_round", 1) <= last + 1]
    seed = {p: i for i, p in enumerate(league.participants)}
    rows: dict[str, dict[str, Any]] = {}
    for p in players:
        entry = league.entered.get(p)
        missed = [r for r in (entry or {}).get("missed_rounds", []) if r <= last]
        withdrawn = league.withdrawn.get(p)
        rows[p] = {
            "player_id": p, "points": float(entry["points_per_missed_round"]) * len(missed) if entry else 0.0,
            "buchholz": 0.0, "wins": 0, "score": 0.0, "games": 0, "byes": 0, "provisional": False,
            "withdrawn_from_round": withdrawn["from_round"] if withdrawn else None,
            "entered_round": entry["from_round"] if entry else 1, "missed_rounds": missed,
        }
    disputed = {d.game_id for d in league.open_disputes()}
    counted = [t for t in league.tables.values() if t.status in COUNTED and t.round <= last]
    for t in counted:
        pts = t.points if t.status == "forfeited" and t.points is not None else game_points(t.ranks or [])
        for i, p in enumerate(t.seats):
            row = rows[p]
            row["points"] += pts[i]
            row["games"] += 1
            if t.ranks is not None and t.ranks[i] == 1:
                row["wins"] += 1
            if t.status == "finished" and t.scores is not None:
                row["score"] += t.scores[i]
            if t.game_id is not None and t.game_id in disputed:
                row["provisional"] = True
    for t in league.tables.values():  # tables voided by the organiser under the void_table rule "bye"
        if t.status == "void" and t.points is not None and t.round <= last:
            for i, p in enumerate(t.seats):
                rows[p]["points"] += t.points[i]
    for r, byed in league.byes.items():
        if r > last:
            continue
        sizes = [len(t.seats) for t in league.round_tables(r)] or [max(league.table_sizes or [2])]
        for p in byed:
            rows[p]["points"] += bye_points(league.rules, max(sizes))
            rows[p]["byes"] += 1
    for t in counted:
        for p in t.seats:
            rows[p]["buchholz"] += sum(rows[q]["points"] for q in t.seats if q != p)
    ordered = sorted(rows.values(), key=lambda row: (*_key(row), seed[row["player_id"]]))
    for place, row in enumerate(ordered, start=1):
        row["place"] = place
        row["seed"] = seed[row["player_id"]] + 1
    explain(ordered)
    return ordered


def _key(row: dict[str, Any]) -> tuple[float, float, int, float]:
    return (-row["points"], -row["buchholz"], -row["wins"], -row["score"])


def _values(row: dict[str, Any]) -> list[float]:
    return [row["points"], row["buchholz"], row["wins"], row["score"], row["seed"]]


def _first_difference(a: dict[str, Any], b: dict[str, Any]) -> int:
    for k, (x, y) in enumerate(zip(_values(a), _values(b), strict=True)):
        if x != y:
            return k
    return len(TIE_BREAKS) - 1


def _compare(row: dict[str, Any], other: dict[str, Any], ahead: bool) -> str:
    k = _first_difference(row, other)
    mine, theirs = _values(row), _values(other)
    level = [f"level on {TIE_BREAKS[j]} ({mine[j]:g})" for j in range(k)]
    if TIE_BREAKS[k] == "seed":
        decided = f"seeded {mine[k]:g} to {theirs[k]:g}"
    else:
        decided = f"{TIE_BREAKS[k]} {mine[k]:g} to {theirs[k]:g}"
    word = "ahead of" if ahead else "behind"
    return f"{word} {other['player_id']}: " + ", ".join([*level, decided])


def explain(rows: list[dict[str, Any]]) -> None:
    """Set ``decided_by`` and ``explanation`` on rows already in place order."""
    for i, row in enumerate(rows):
        depth, parts = 0, []
        if i > 0:
            depth = max(depth, _first_difference(rows[i - 1], row))
            parts.append(_compare(row, rows[i - 1], ahead=False))
        if i + 1 < len(rows):
            depth = max(depth, _first_difference(row, rows[i + 1]))
            parts.append(_compare(row, rows[i + 1], ahead=True))
        row["decided_by"] = TIE_BREAKS[depth]
        row["explanation"] = "; ".join(parts) or "the only player"
