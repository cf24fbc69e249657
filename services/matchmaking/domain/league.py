"""A league: an event-sourced aggregate (state = fold of its events; commands return new events).

Events (``type`` and payload):

* ``LeagueCreated`` {league_id, name, game_type, options, participants, rounds, table_sizes,
  format, created_by, rules, clock?, timeout_policy?}  (``rules``: see :mod:`league_rules`; absent in
  old leagues: defaults; ``clock`` and ``timeout_policy``: every table's clock, as POST /v1/games takes
  it, normalized by the games service; absent: no clock)
* ``RoundSeated`` {round, tables: [{request_id, table_no, seats, reason}], byes}
* ``TableGameCreated`` {request_id, game_id}
* ``GameResultRecorded`` {request_id, game_id, players, ranks, scores, reason}
* ``GameAbortRecorded`` {request_id, game_id, reason}  (the table waits for a re-seat or a forfeit)
* ``DisputeOpened`` {dispute_id, game_id, reason, audit}  (the games service's audit report or
  ``{"available": false, "error": ...}`` when it did not answer)
* ``DisputeRuled`` {dispute_id, game_id, ruling, note, replay_request_id}
* ``PlayerWithdrew`` {player_id, from_round, rule, reason, by}
* ``PlayerEntered`` {player_id, from_round, missed_rounds, points_per_missed_round, rule, by}
* ``ForfeitRecorded`` {request_id, round, table_no, absent, present, ranks, points, rule, reason, by,
  game_id?}  (``by`` ``clock`` with the ``game_id``: a seat ran out of time under the forfeit policy and
  the game ended so, ``GameFinished`` naming its ``forfeited_seats``; no organiser acted)
* ``TableReseated`` {request_id, new_request_id, previous_status, reason, by, seats?, options?, clock?,
  timeout_policy?, no_clock?, byes?}  (an aborted or failed table gets a new game, with the same seats and
  settings unless new ones are given; ``no_clock``: the new game has no clock, whatever the league's;
  ``byes``: the round's byes after new seats took or left players; the old game no longer counts as played)
* ``TableVoided`` {request_id, round, table_no, reason, rule, points, by}  (the organiser gives a table no
  result: ``rule`` is the league's ``void_table`` rule, ``points`` per seat or null)
* ``PairingOverridden`` {round, tables: [[player_id, ...]], byes, reason, by}  (used when that
  round is seated)
* ``TableCreationFailed`` {request_id, reason, field, rule}  (the games service refused the table's
  game: GameCreationRefused; the table is ``failed`` until the organiser re-seats it)
* ``LeagueCompleted`` {}

Standings and tie-breaks: :mod:`services.matchmaking.domain.standings`. Commands of the league's
organiser (withdrawals, late entries, forfeits, re-seats, pairing overrides):
:mod:`services.matchmaking.domain.league_operations`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.matchmaking.domain.league_model import (
    RESEATABLE,
    RULINGS,
    SETTLED,
    Dispute,
    Event,
    LeagueError,
    LeagueTable,
)
from services.matchmaking.domain.league_rules import LeagueRules
from services.matchmaking.domain.seating import (
    ROUND_ROBIN,
    SeatedTable,
    Seating,
    SeatingError,
    choose_format,
    seat_round_robin,
    seat_swiss,
)
from services.matchmaking.domain.standings import TIE_BREAKS, game_points, standings

__all__ = ["RESEATABLE", "RULINGS", "SETTLED", "TIE_BREAKS", "Dispute", "Event", "League", "LeagueError",
           "LeagueTable", "game_points", "standings"]

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
    rules: LeagueRules = field(default_factory=LeagueRules)
    withdrawn: dict[str, dict[str, Any]] = field(default_factory=dict)  # player -> PlayerWithdrew
    entered: dict[str, dict[str, Any]] = field(default_factory=dict)  # late entrant -> PlayerEntered
    overrides: dict[int, dict[str, Any]] = field(default_factory=dict)  # round -> PairingOverridden
    clock: dict[str, Any] | None = None  # every table's clock (POST /v1/games' ``clock``), None: no clock
    timeout_policy: str | None = None

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
            self.rules = LeagueRules.parse(p.get("rules"))
            self.clock, self.timeout_policy = p.get("clock"), p.get("timeout_policy")
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
                    options=ruled.options, clock=ruled.clock, timeout_policy=ruled.timeout_policy,
                )
        elif kind == "PlayerWithdrew":
            self.withdrawn[p["player_id"]] = dict(p)
        elif kind == "PlayerEntered":
            self.participants.append(p["player_id"])
            self.entered[p["player_id"]] = dict(p)
        elif kind == "ForfeitRecorded":
            table = self.tables[p["request_id"]]
            table.status, table.ranks, table.points = "forfeited", list(p["ranks"]), list(p["points"])
            table.absent, table.scores = list(p["absent"]), None
        elif kind == "TableReseated":
            old = self.tables[p["request_id"]]
            old.status = "replaced"
            new_id = p["new_request_id"]
            no_clock = bool(p.get("no_clock", old.no_clock and "clock" not in p))  # a new clock lifts it
            self.tables[new_id] = LeagueTable(
                new_id, old.round, old.table_no, list(p.get("seats") or old.seats), p["reason"], old.request_id,
                options=p.get("options", old.options), clock=None if no_clock else p.get("clock", old.clock),
                timeout_policy=None if no_clock else p.get("timeout_policy", old.timeout_policy),
                no_clock=no_clock,
            )
            if "byes" in p:
                self.byes[old.round] = list(p["byes"])
        elif kind == "TableVoided":
            table = self.tables[p["request_id"]]
            table.status, table.void_reason = "void", p["reason"]
            table.points = list(p["points"]) if p.get("points") is not None else None
        elif kind == "PairingOverridden":
            self.overrides[int(p["round"])] = dict(p)
        elif kind == "TableCreationFailed":
            table = self.tables[p["request_id"]]
            table.status = "failed"
            table.failure = {"reason": p["reason"], "field": p.get("field"), "rule": p.get("rule")}
        elif kind == "LeagueCompleted":
            self.status = "completed"
        else:
            raise ValueError(f"unknown league event {kind}")

    # ------------------------------------------------------------------ queries
    def table_settings(self, table: LeagueTable) -> tuple[dict[str, Any], dict[str, Any] | None, str | None]:
        """(options, clock, timeout_policy) of a table's game: its re-seat's own, else the league's (no clock
        after a re-seat that took it away)."""
        clock = None if table.no_clock else table.clock if table.clock is not None else self.clock
        policy = table.timeout_policy if table.timeout_policy is not None else self.timeout_policy
        options = table.options if table.options is not None else self.options
        return dict(options), clock, policy if clock is not None else None

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

    def current_table(self, round_no: int, table_no: int) -> LeagueTable | None:
        """The table now standing at that number (the newest after re-seats and replays)."""
        live = [t for t in self.round_tables(round_no) if t.table_no == table_no and t.status != "replaced"]
        return live[-1] if live else None

    def active_players(self, round_no: int) -> list[str]:
        """Who is seated in a round: entered by then, and not withdrawn under ``not_paired``."""
        return [
            p for p in self.participants
            if self.entered.get(p, {}).get("from_round", 1) <= round_no
            and not (p in self.withdrawn and self.withdrawn[p]["rule"] == "not_paired"
                     and self.withdrawn[p]["from_round"] <= round_no)
        ]

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
        rules: Mapping[str, Any] | None = None,
        clock: Mapping[str, Any] | None = None,
        timeout_policy: str | None = None,
    ) -> list[Event]:
        if len(set(participants)) != len(participants):
            raise LeagueError("a participant is listed twice", "participants", conflict=False)
        if len(participants) < min(table_sizes):
            raise LeagueError("fewer participants than the smallest table", "participants", conflict=False)
        try:
            chosen = choose_format(fmt, len(participants), table_sizes, rounds)
        except SeatingError as exc:
            raise LeagueError(str(exc), "format", conflict=False) from None
        try:
            parsed = LeagueRules.parse(rules)
        except ValueError as exc:
            raise LeagueError(str(exc), "rules", conflict=False) from None
        created: Event = ("LeagueCreated", {
            "league_id": league_id, "name": name, "game_type": game_type, "options": dict(options),
            "participants": list(participants), "rounds": rounds, "table_sizes": list(table_sizes),
            "format": chosen, "created_by": created_by, "rules": parsed.as_dict(),
        } | ({"clock": dict(clock), "timeout_policy": timeout_policy or "forfeit"} if clock is not None else {}))
        league = League.fold([created])
        return [created, *league.progress(league.seat_next_round())]

    def seat_next_round(self) -> list[Event]:
        """``RoundSeated``, then a ``ForfeitRecorded`` for every table with a player withdrawn under
        the ``forfeit`` rule (no game is requested for it)."""
        from services.matchmaking.domain.league_rules import forfeit_result

        r = self.seated_rounds + 1
        if r > self.rounds:
            raise LeagueError("every round is seated already")
        seating = self.seating_for(r)
        tables: list[dict[str, Any]] = [
            {"request_id": f"league:{self.league_id}:r{r}:t{k}", "table_no": k, "seats": list(t.seats),
             "reason": t.reason}
            for k, t in enumerate(seating.tables, start=1)
        ]
        events: list[Event] = [("RoundSeated", {"round": r, "tables": tables, "byes": list(seating.byes)})]
        for t in tables:
            absent = [p for p in t["seats"] if p in self.withdrawn]
            if absent:
                ranks, points = forfeit_result(self.rules, t["seats"], absent)
                events.append(("ForfeitRecorded", {
                    "request_id": t["request_id"], "round": r, "table_no": t["table_no"], "absent": absent,
                    "present": [p for p in t["seats"] if p not in absent], "ranks": ranks, "points": points,
                    "rule": self.rules.forfeit, "reason": "withdrawn (withdrawal rule: forfeit)", "by": "league",
                }))
        return events

    def seating_for(self, round_no: int) -> Seating:
        players = self.active_players(round_no)
        override = self.overrides.get(round_no)
        note = ""
        if override is not None:
            listed = [p for seats in override["tables"] for p in seats] + list(override["byes"])
            if sorted(listed) == sorted(players):
                reason = f"manual pairing by the organiser ({override['by']}): {override['reason']}"
                return Seating(tuple(SeatedTable(tuple(seats), reason) for seats in override["tables"]),
                               tuple(override["byes"]), 0)
            note = ("; the organiser's pairing override no longer matched the players (a withdrawal or"
                    " late entry since), so the round was seated by the rules")
        seating = self._seat_by_rules(round_no, players)
        if note:
            seating = Seating(tuple(SeatedTable(t.seats, t.reason + note) for t in seating.tables),
                              seating.byes, seating.repeats)
        return seating

    def _seat_by_rules(self, round_no: int, players: list[str]) -> Seating:
        history = self.seat_history()
        if self.format == ROUND_ROBIN:
            seating = seat_round_robin(self.participants, self.table_sizes, round_no, history)
            gone = set(self.participants) - set(players)
            if not gone:
                return seating
            tables, byes = [], list(seating.byes)  # a withdrawn player's table-mates sit out with a bye
            for t in seating.tables:
                left = tuple(p for p in t.seats if p not in gone)
                if len(left) == len(t.seats):
                    tables.append(t)
                elif len(left) in self.table_sizes:
                    tables.append(SeatedTable(left, t.reason + "; without the withdrawn players"))
                else:
                    byes += list(left)
            return Seating(tuple(tables), tuple(p for p in byes if p not in gone), seating.repeats)
        playing = set(players)
        rows = [row for row in standings(self) if row["player_id"] in playing]
        byes_had: dict[str, int] = {}
        for byed in self.byes.values():
            for p in byed:
                byes_had[p] = byes_had.get(p, 0) + 1
        return seat_swiss(
            [row["player_id"] for row in rows], self.met(), history, byes_had, self.table_sizes, round_no,
            {row["player_id"]: row["points"] for row in rows},
        )

    def met(self) -> dict[str, dict[str, int]]:
        """How many earlier tables each pair shared (a replayed or re-seated table counts once)."""
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
            return self.seat_next_round()
        if all(t.settled for t in self.tables.values()):
            return [("LeagueCompleted", {})]
        return []

    def record_result(
        self, game_id: str, players: Sequence[str], ranks: Sequence[int], scores: Sequence[float], reason: str
    ) -> list[Event]:
        table = self.table_for_game(game_id)
        if table is None or table.settled or table.status in RESEATABLE:
            return []
        if list(players) != table.seats:
            raise LeagueError(f"game {game_id} was played by other players than seated")
        event: Event = ("GameResultRecorded", {
            "request_id": table.request_id, "game_id": game_id, "players": list(players),
            "ranks": list(ranks), "scores": [float(s) for s in scores], "reason": reason,
        })
        return self.progress([event])

    def record_time_forfeit(
        self, game_id: str, players: Sequence[str], forfeited_seats: Sequence[int], reason: str
    ) -> list[Event]:
        """A game that ended because a seat ran out of time under the forfeit policy (``GameFinished`` with
        ``forfeited_seats``: the seat and its partners) is scored by the league's ``forfeit`` rule, as if
        the organiser had recorded those players absent: ``ForfeitRecorded`` by ``clock``."""
        from services.matchmaking.domain.league_rules import forfeit_result

        table = self.table_for_game(game_id)
        if table is None or table.settled or table.status in RESEATABLE:
            return []
        if list(players) != table.seats:
            raise LeagueError(f"game {game_id} was played by other players than seated")
        absent = [table.seats[s] for s in sorted(set(forfeited_seats)) if 0 <= s < len(table.seats)]
        ranks, points = forfeit_result(self.rules, table.seats, absent)
        return self.progress([("ForfeitRecorded", {
            "request_id": table.request_id, "round": table.round, "table_no": table.table_no, "absent": absent,
            "present": [p for p in table.seats if p not in absent], "ranks": ranks, "points": points,
            "rule": self.rules.forfeit, "reason": f"ran out of time: {reason}", "by": "clock", "game_id": game_id,
        })])

    def record_abort(self, game_id: str, reason: str) -> list[Event]:
        table = self.table_for_game(game_id)
        if table is None or table.settled or table.status in RESEATABLE:
            return []
        return self.progress([("GameAbortRecorded", {
            "request_id": table.request_id, "game_id": game_id, "reason": reason})])

    def progress(self, events: list[Event]) -> list[Event]:
        """``events`` followed by whatever they set off: the next rounds seated (a round of nothing but
        forfeits is complete at once) and the league completed."""
        after = copy.deepcopy(self)
        for event in events:
            after.apply(*event)
        out = list(events)
        while more := after.after_settlement():
            for event in more:
                after.apply(*event)
            out += more
        return out

    def _then_progress(self, event: Event) -> list[Event]:
        return self.progress([event])

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
