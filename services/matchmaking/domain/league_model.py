"""The parts of a league's state: its tables and disputes (pure), folded by :class:`League`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.matchmaking.domain.standings import game_points

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
    # requested | created | finished | aborted | failed | forfeited | void | replaced
    status: str = "requested"
    ranks: list[int] | None = None
    scores: list[float] | None = None
    points: list[float] | None = None  # forfeits: the points the league's rule gave each seat
    absent: list[str] | None = None
    failure: dict[str, Any] | None = None  # failed: {reason, field, rule} from the games service
    # a re-seat's own settings (None: the league's): options, clock and timeout policy of this table's game
    options: dict[str, Any] | None = None
    clock: dict[str, Any] | None = None
    timeout_policy: str | None = None
    no_clock: bool = False  # a re-seat that took the league's clock away: this table's game has none
    void_reason: str | None = None  # voided by the organiser (TableVoided): why

    @property
    def settled(self) -> bool:
        """Finished one way or another; aborted and failed tables wait for a re-seat (or a forfeit)."""
        return self.status in SETTLED

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
            "points": self.points if self.status in ("forfeited", "void") else (
                game_points(self.ranks) if self.status == "finished" and self.ranks else None),
            "absent": self.absent,
            "failure": self.failure,
            "options": self.options,
            "clock": self.clock,
            "timeout_policy": self.timeout_policy,
            "no_clock": self.no_clock,
            "void_reason": self.void_reason,
        }


SETTLED = frozenset({"finished", "forfeited", "void", "replaced"})
RESEATABLE = ("aborted", "failed")
VOIDABLE = ("requested", "created", "aborted", "failed")  # not settled: the organiser may void it


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
