"""A league's operating rules, chosen at creation and recorded in ``LeagueCreated`` (pure).

* ``withdrawal``: ``not_paired`` (default: a withdrawn player is no longer seated; in a round robin
  of two-player tables their opponent gets a bye) or ``forfeit`` (they stay in the seatings and
  every later game of theirs is recorded as a forfeit loss, no game is played).
  Either way a game of theirs that is already seated and not finished is forfeited.
* ``forfeit``: the score of the present players when a seated player does not show (or their
  clock fell): ``win`` (default: every present player scores a win, ``n - 1`` points at a table of
  ``n``) or ``shared`` (the present players tie for first: ``n - 1 - (k - 1) / 2`` points each when
  ``k`` are present). The absent players score 0 and rank last.
* ``bye``: the score of a player left without a table (an odd count): ``half`` (default: half a
  win, ``(n - 1) / 2`` at the largest table of the round), ``win`` (``n - 1``) or ``zero``.
* ``late_entry``: the score a late entrant gets for each round they missed: ``zero`` (default) or
  ``half`` (a half-point bye for each, ``(n - 1) / 2`` at the league's largest table).
* ``void_table``: the score of the players of a table the organiser voids (no result: the game could not
  be played, nor re-seated): ``no_score`` (default: the table counts for nobody, as if not played) or
  ``bye`` (each seated player scores a bye by the ``bye`` rule for that round; no game, no Buchholz).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

CHOICES: dict[str, tuple[str, ...]] = {
    "withdrawal": ("not_paired", "forfeit"),
    "forfeit": ("win", "shared"),
    "bye": ("half", "win", "zero"),
    "late_entry": ("zero", "half"),
    "void_table": ("no_score", "bye"),
}


@dataclass(frozen=True)
class LeagueRules:
    withdrawal: str = "not_paired"
    forfeit: str = "win"
    bye: str = "half"
    late_entry: str = "zero"
    void_table: str = "no_score"

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None) -> LeagueRules:
        """Rules from a request or an event; unknown names or values raise ``ValueError`` naming the field."""
        raw = dict(raw or {})
        for key, value in raw.items():
            if key not in CHOICES:
                raise ValueError(f"rules.{key}: no such rule (rules are {', '.join(CHOICES)})")
            if value not in CHOICES[key]:
                raise ValueError(f"rules.{key}: must be one of {', '.join(CHOICES[key])}, not {value!r}")
        return cls(**raw)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def win_points(table_size: int) -> float:
    """A win at a table of ``n`` beats ``n - 1`` table-mates: ``n - 1`` points."""
    return float(table_size - 1)


def bye_points(rules: LeagueRules, table_size: int) -> float:
    return {"half": win_points(table_size) / 2, "win": win_points(table_size), "zero": 0.0}[rules.bye]


def late_entry_points(rules: LeagueRules, table_size: int) -> float:
    """Points for each round a late entrant missed."""
    return win_points(table_size) / 2 if rules.late_entry == "half" else 0.0


def forfeit_result(rules: LeagueRules, seats: Sequence[str], absent: Sequence[str]) -> tuple[list[int], list[float]]:
    """(ranks, points) per seat of a forfeited table: the present rank 1, the absent rank last with 0."""
    n, gone = len(seats), set(absent)
    present = n - len(gone)
    # shared: beat every absent player, draw with every other present one
    won = win_points(n) if rules.forfeit == "win" else float(len(gone)) + 0.5 * (present - 1)
    ranks = [present + 1 if p in gone else 1 for p in seats]
    points = [0.0 if p in gone else (won if present else 0.0) for p in seats]
    return ranks, points
