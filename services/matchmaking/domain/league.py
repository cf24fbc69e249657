"""A league: an event-sourced aggregate (state = fold of its events; commands return new events).

Events (``type`` and payload):

* ``LeagueCreated`` {league_id, name, game_type, options, participants, rounds, table_sizes,
  format, created_by}
* ``RoundSeated`` {round, tables: [{request_id, table_no, seats, reason}], byes}
* ``TableGameCreated`` {request_id, game_id}
* ``GameResultRecorded`` {request_id, game_id, players, ranks, scores, reason}
* ``GameAbortRecorded`` {request_id, game_id, reason}
* ``DisputeOpened`` {dispute_id, game_id, reason, audit}  (the games service's audit report or
  ``{"available": false, "error": ...}`` when it did not answer)
* ``DisputeRuled`` {dispute_id, game_id, ruling, note, replay_request_id}
* ``TableCreationFailed`` {request_id, reason, field, rule}  (the games service refused the table's
  game: GameCreationRefused; the table is ``failed`` until the organiser re-seats it)
* ``LeagueCompleted`` {}

Standings (see :func:`standings`): per game a player scores one point for every table-mate
ranked below them and half a point for every table-mate with the same rank (a 4-player win is 3
points); a bye scores half the table, ``(n - 1) / 2``. Tie-breaks, in order: points; Buchholz
(the sum of the final points of every table-mate in every counted game); wins (rank 1); the sum
of game scores; the seeding order. Void games count for nobody; aborted games count as played
with no points; a game under an open dispute counts but marks its players ``provisional``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.matchmaking.domain.seating import (
    ROUND_ROBIN,
    Seating,
    SeatingError,
    choose_format,
    seat_round_robin,
    seat_swiss,
)

RULINGS = ("result_stands", "void", "replay")


class LeagueError(Exception):
    """A command the league's state does not allow (mapped to 409 or 422 at the boundary)."""

    def __init__(self, message: str, field: str | None = None, conflict: bool = True) -> None:
        super().__init__(message)
        self.field = field
        self.conflict = conflict


Event = tuple[str, dict[str, Any]]


@dataclass
class LeagueTable:
    request_id: str
    round: int
    table_no: int
    seats: list[str]
    reason: str
    replay_of: str | None = None
    game_id: str | None = None
    status: str = "requested"  # requested | created | finished | aborted | failed | void | replaced
    ranks: list[int] | None = None
    scores: list[float] | None = None
    failure: dict[str, Any] | None = None  # failed: {reason, field, rule} from the games service

    @property
    def settled(self) -> bool:
        return self.status in {"finished", "aborted", "void", "replaced"}

    def as_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "round": self.round,
            "table_no": self.table_no,
            "seats": list(self.seats),
            "reason": self.reason,
            "replay_of": self.replay_of,
            "game_id": self.game_id,
            "status": self.status,
            "ranks": self.ranks,
            "scores": self.scores,
            "failure": self.failure,
        }


@dataclass
class Dispute:
    dispute_id: str
    game_id: str
    reason: str
    audit: dict[str, Any]
    status: str = "open"
    ruling: str | None = None
    note: str | None = None
    replay_request_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "dispute_id": self.dispute_id,
            "game_id": self.game_id,
            "reason": self.reason,
            "audit": self.audit,
            "status": self.status,
            "ruling": self.ruling,
            "note": self.note,
            "replay_request_id": self.replay_request_id,
        }


@dataclass
class League:
    league_id: str = ""
    version: int = 0
    name: str = ""
    game_type: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    participants: list[str] = field(default_factory=list)
    rounds: int = 0
    table_sizes: list[int] = field(default_factory=list)
    format: str = ""
    status: str = "new"  # running | completed
    tables: dict[str, LeagueTable] = field(default_factory=dict)  # request_id -> table
    byes: dict[int, list[str]] = field(default_factory=dict)
    disputes: dict[str, Dispute] = field(default_factory=dict)
    seated_rounds: int = 0

    # ------------------------------------------------------------------ folding
    @classmethod
    def fold(cls, events: Sequence[Event]) -> League:
        league = cls()
        for kind, payload in events:
            league.apply(kind, payload)
        return league

    def apply(self, kind: str, p: Mapping[str, Any]) -> None:
        self.version += 1
        if kind == "LeagueCreated":
            self.league_id, self.name, self.game_type = p["league_id"], p["name"], p["game_type"]
            self.options = dict(p["options"])
            self.participants = list(p["participants"])
            self.rounds, self.table_sizes, self.format = int(p["rounds"]), list(p["table_sizes"]), p["format"]
            self.status = "running"
        elif kind == "RoundSeated":
            r = int(p["round"])
            for t in p["tables"]:
                self.tables[t["request_id"]] = LeagueTable(
                    t["request_id"], r, int(t["table_no"]), list(t["seats"]), t["reason"]
                )
            self.byes[r] = list(p["byes"])
            self.seated_rounds = max(self.seated_rounds, r)
        elif kind == "TableGameCreated":
            table = self.tables[p["request_id"]]
            table.game_id = p["game_id"]
            if table.status == "requested":
                table.status = "created"
        elif kind == "GameResultRecorded":
            table = self.tables[p["request_id"]]
            table.game_id = p["game_id"]
            table.status, table.ranks, table.scores = "finished", list(p["ranks"]), list(p["scores"])
        elif kind == "GameAbortRecorded":
            table = self.tables[p["request_id"]]
            table.game_id = p["game_id"]
            table.status = "aborted"
        elif kind == "DisputeOpened":
            self.disputes[p["dispute_id"]] = Dispute(p["dispute_id"], p["game_id"], p["reason"], dict(p["audit"]))
        elif kind == "DisputeRuled":
            d = self.disputes[p["dispute_id"]]
            d.status, d.ruling, d.note = "ruled", p["ruling"], p.get("note")
            d.replay_request_id = p.get("replay_request_id")
            ruled = self.table_for_game(p["game_id"])
            if ruled is not None and p["ruling"] == "void":
                ruled.status = "void"
            elif ruled is not None and p["ruling"] == "replay":
                ruled.status = "replaced"
                new_id = p["replay_request_id"]
                self.tables[new_id] = LeagueTable(
                    new_id, ruled.round, ruled.table_no, list(ruled.seats),
                    f"replay of game {ruled.game_id} by ruling on dispute {d.dispute_id}", ruled.request_id,
                )
        elif kind == "TableCreationFailed":
            table = self.tables[p["request_id"]]
            table.status = "failed"
            table.failure = {"reason": p["reason"], "field": p.get("field"), "rule": p.get("rule")}
        elif kind == "LeagueCompleted":
            self.status = "completed"
        else:
            raise ValueError(f"unknown league event {kind}")

    # ------------------------------------------------------------------ queries
    def table_for_game(self, game_id: str) -> LeagueTable | None:
        for table in self.tables.values():
            if table.game_id == game_id:
                return table
        return None

    def round_tables(self, round_no: int) -> list[LeagueTable]:
        return sorted((t for t in self.tables.values() if t.round == round_no),
                      key=lambda t: (t.table_no, t.request_id))

    def round_complete(self, round_no: int) -> bool:
        tables = self.round_tables(round_no)
        return bool(tables) and all(t.settled for t in tables)

    def open_disputes(self) -> list[Dispute]:
        return [d for d in self.disputes.values() if d.status == "open"]

    # ------------------------------------------------------------------ commands
    @staticmethod
    def create(
        league_id: str,
        name: str,
        game_type: str,
        options: Mapping[str, Any],
        participants: Sequence[str],
        rounds: int,
        table_sizes: Sequence[int],
        fmt: str,
        created_by: str,
    ) -> list[Event]:
        if len(set(participants)) != len(participants):
            raise LeagueError("a participant is listed twice", "participants", conflict=False)
        if len(participants) < min(table_sizes):
            raise LeagueError("fewer participants than the smallest table", "participants", conflict=False)
        try:
            chosen = choose_format(fmt, len(participants), table_sizes, rounds)
        except SeatingError as exc:
            raise LeagueError(str(exc), "format", conflict=False) from None
        created: Event = ("LeagueCreated", {
            "league_id": league_id, "name": name, "game_type": game_type, "options": dict(options),
            "participants": list(participants), "rounds": rounds, "table_sizes": list(table_sizes),
            "format": chosen, "created_by": created_by,
        })
        league = League.fold([created])
        return [created, league.seat_next_round()]

    def seat_next_round(self) -> Event:
        r = self.seated_rounds + 1
        if r > self.rounds:
            raise LeagueError("every round is seated already")
        seating = self.seating_for(r)
        tables = [
            {"request_id": f"league:{self.league_id}:r{r}:t{k}", "table_no": k, "seats": list(t.seats),
             "reason": t.reason}
            for k, t in enumerate(seating.tables, start=1)
        ]
        return ("RoundSeated", {"round": r, "tables": tables, "byes": list(seating.byes)})

    def seating_for(self, round_no: int) -> Seating:
        history = self.seat_history()
        if self.format == ROUND_ROBIN:
            return seat_round_robin(self.participants, self.table_sizes, round_no, history)
        rows = standings(self)
        byes_had: dict[str, int] = {}
        for players in self.byes.values():
            for p in players:
                byes_had[p] = byes_had.get(p, 0) + 1
        return seat_swiss(
            [row["player_id"] for row in rows], self.met(), history, byes_had, self.table_sizes, round_no,
            {row["player_id"]: row["points"] for row in rows},
        )

    def met(self) -> dict[str, dict[str, int]]:
        """How many earlier tables each pair shared (a replayed table counts once)."""
        met: dict[str, dict[str, int]] = {p: {} for p in self.participants}
        for t in self.tables.values():
            if t.status == "replaced":
                continue
            for p in t.seats:
                mine = met.setdefault(p, {})
                for q in t.seats:
                    if q != p:
                        mine[q] = mine.get(q, 0) + 1
        return met

    def seat_history(self) -> dict[str, list[float]]:
        history: dict[str, list[float]] = {}
        for t in self.tables.values():
            if t.status == "replaced":
                continue
            n = len(t.seats)
            for seat, p in enumerate(t.seats):
                history.setdefault(p, []).append(seat / (n - 1) if n > 1 else 0.5)
        return history

    def after_settlement(self) -> list[Event]:
        """Seat the next round when the last seated round is complete, or close the league."""
        if self.status != "running" or not self.round_complete(self.seated_rounds):
            return []
        if self.seated_rounds < self.rounds:
            return [self.seat_next_round()]
        if all(t.settled for t in self.tables.values()):
            return [("LeagueCompleted", {})]
        return []

    def record_result(
        self, game_id: str, players: Sequence[str], ranks: Sequence[int], scores: Sequence[float], reason: str
    ) -> list[Event]:
        table = self.table_for_game(game_id)
        if table is None or table.status in {"finished", "aborted", "void", "replaced"}:
            return []
        if list(players) != table.seats:
            raise LeagueError(f"game {game_id} was played by other players than seated")
        event: Event = ("GameResultRecorded", {
            "request_id": table.request_id, "game_id": game_id, "players": list(players),
            "ranks": list(ranks), "scores": [float(s) for s in scores], "reason": reason,
        })
        return self._then_progress(event)

    def record_abort(self, game_id: str, reason: str) -> list[Event]:
        table = self.table_for_game(game_id)
        if table is None or table.settled:
            return []
        return self._then_progress(("GameAbortRecorded", {
            "request_id": table.request_id, "game_id": game_id, "reason": reason}))

    def _then_progress(self, event: Event) -> list[Event]:
        after = copy.deepcopy(self)
        after.apply(*event)
        return [event, *after.after_settlement()]

    def open_dispute(self, dispute_id: str, game_id: str, reason: str, audit: Mapping[str, Any]) -> list[Event]:
        table = self.table_for_game(game_id)
        if table is None:
            raise LeagueError(f"game {game_id} is not a game of this league", "game_id", conflict=False)
        if table.status not in {"finished", "aborted"}:
            raise LeagueError(f"game {game_id} has no result to dispute (it is {table.status})", "game_id")
        if any(d.game_id == game_id for d in self.open_disputes()):
            raise LeagueError(f"game {game_id} is already under dispute", "game_id")
        return [("DisputeOpened", {"dispute_id": dispute_id, "game_id": game_id, "reason": reason,
                                   "audit": dict(audit)})]

    def rule(self, dispute_id: str, ruling: str, note: str | None) -> list[Event]:
        dispute = self.disputes.get(dispute_id)
        if dispute is None:
            raise LeagueError(f"no dispute {dispute_id}", "dispute_id", conflict=False)
        if dispute.status != "open":
            raise LeagueError(f"dispute {dispute_id} is ruled already")
        if ruling not in RULINGS:
            raise LeagueError(f"ruling must be one of {', '.join(RULINGS)}", "ruling", conflict=False)
        table = self.table_for_game(dispute.game_id)
        assert table is not None
        replay_id = None
        if ruling == "replay":
            replays = sum(1 for t in self.tables.values() if t.replay_of == table.request_id)
            replay_id = f"{table.request_id}:replay{replays + 1}"
        ruled: Event = ("DisputeRuled", {"dispute_id": dispute_id, "game_id": dispute.game_id, "ruling": ruling,
                                         "note": note, "replay_request_id": replay_id})
        return self._then_progress(ruled)


def game_points(ranks: Sequence[int]) -> list[float]:
    """One point per table-mate ranked below, half per table-mate ranked equal."""
    return [
        sum(1.0 if r < o else 0.5 if r == o else 0.0 for j, o in enumerate(ranks) if j != i)
        for i, r in enumerate(ranks)
    ]


def standings(league: League) -> list[dict[str, Any]]:
    """Rows best first: place, player_id, points, buchholz, wins, score, games, byes, provisional."""
    seed = {p: i for i, p in enumerate(league.participants)}
    rows: dict[str, dict[str, Any]] = {
        p: {"player_id": p, "points": 0.0, "buchholz": 0.0, "wins": 0, "score": 0.0, "games": 0, "byes": 0,
            "provisional": False}
        for p in league.participants
    }
    disputed = {d.game_id for d in league.open_disputes()}
    counted: list[LeagueTable] = [t for t in league.tables.values() if t.status in {"finished", "aborted"}]
    for t in counted:
        pts = game_points(t.ranks) if t.status == "finished" and t.ranks else [0.0] * len(t.seats)
        for i, p in enumerate(t.seats):
            row = rows[p]
            row["points"] += pts[i]
            row["games"] += 1
            if t.status == "finished" and t.ranks is not None and t.ranks[i] == 1:
                row["wins"] += 1
            if t.status == "finished" and t.scores is not None:
                row["score"] += t.scores[i]
            if t.game_id in disputed:
                row["provisional"] = True
    for r, players in league.byes.items():
        sizes = [len(t.seats) for t in league.round_tables(r)] or [2]
        for p in players:
            rows[p]["points"] += (max(sizes) - 1) / 2
            rows[p]["byes"] += 1
    for t in counted:
        for p in t.seats:
            rows[p]["buchholz"] += sum(rows[q]["points"] for q in t.seats if q != p)
    ordered = sorted(
        rows.values(),
        key=lambda row: (-row["points"], -row["buchholz"], -row["wins"], -row["score"], seed[row["player_id"]]),
    )
    for place, row in enumerate(ordered, start=1):
        row["place"] = place
    return ordered


TIE_BREAKS = ("points", "buchholz", "wins", "score", "seed")
