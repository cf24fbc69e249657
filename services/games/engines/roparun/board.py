"""Board geometry (spec §5, B-1 ... B-8): a ring of sections, one per seat, as plain data.

A pawn's location is stored as a *code* relative to its own team (B-5, B-6):

* ``OFF`` (-1): in the team's off-route box (B-4);
* ``0 .. N-1``: on the route with that progress, i.e. on square ``(base + code) mod N``;
* ``N .. N+3``: in the team's finish column, place F1 ... F4 (Fi counts as progress N-1+i).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OFF = -1
SLOTS = 4  # B-3: start squares b ... b+3 (slots 0-3)
FINISH_PLACES = 4  # B-6: F1 ... F4

PAWNS: tuple[str, ...] = ("c1", "c2", "r", "car")
C1, C2, RUNNER, CAR = 0, 1, 2, 3
PAWN_INDEX: dict[str, int] = {name: i for i, name in enumerate(PAWNS)}
# RR-30: swaps pair pawns of the same type; the two cyclists are interchangeable (§2).
PAWN_KIND: tuple[str, ...] = ("cyclist", "cyclist", "runner", "car")

COLOURS_4: tuple[str, ...] = ("Red", "Blue", "Green", "Yellow")
COLOURS_2: tuple[str, ...] = ("Red", "Green")


def default_sections(num_players: int, sections: int) -> list[int]:
    """B-2 defaults: 2 players opposite (0 and M/2), otherwise sections 0 ... n-1."""
    if num_players == 2:
        return [0, sections // 2]
    return list(range(num_players))


@dataclass(frozen=True)
class Board:
    section_length: int
    sections: int
    seat_section: tuple[int, ...]
    n: int = field(init=False)  # N, the number of route squares (B-1)
    bases: tuple[int, ...] = field(init=False)  # b = s x S per seat (B-2)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", self.section_length * self.sections)
        object.__setattr__(self, "bases", tuple(s * self.section_length for s in self.seat_section))

    @property
    def num_players(self) -> int:
        return len(self.seat_section)

    def base(self, seat: int) -> int:
        """b = s x S (B-2)."""
        return self.bases[seat]

    def square(self, seat: int, code: int) -> int:
        """The route square of a route code of ``seat``'s pawn (B-5)."""
        return (self.bases[seat] + code) % self.n

    def colour(self, seat: int) -> str:
        colours = COLOURS_2 if self.num_players == 2 else COLOURS_4
        return colours[seat] if seat < len(colours) else f"Team {seat + 1}"

    def describe(self) -> dict[str, Any]:
        """What a frontend needs to draw the board: squares, start squares and finish columns."""
        n = self.n
        start_of: dict[int, tuple[int, int]] = {}
        entrance_of: dict[int, int] = {}
        for seat in range(self.num_players):
            for slot in range(SLOTS):
                start_of[self.square(seat, slot)] = (seat, slot)
            entrance_of[self.square(seat, n - 1)] = seat
        squares = []
        for x in range(n):
            owner = start_of.get(x)
            squares.append(
                {
                    "square": x,
                    "section": x // self.section_length,
                    "start_of": owner[0] if owner else None,
                    "slot": owner[1] if owner else None,
                    "finish_beside_of": entrance_of.get(x),
                }
            )
        teams = [
            {
                "seat": seat,
                "colour": self.colour(seat),
                "section": self.seat_section[seat],
                "base": self.base(seat),
                "start_squares": [self.square(seat, slot) for slot in range(SLOTS)],
                "last_square": self.square(seat, n - 1),
                "finish_column": {"beside_square": self.square(seat, n - 1), "places": [1, 2, 3, 4]},
            }
            for seat in range(self.num_players)
        ]
        return {
            "squares": n,
            "section_length": self.section_length,
            "sections": self.sections,
            "direction": "clockwise",
            "route": squares,
            "teams": teams,
        }

    def location(self, seat: int, code: int) -> dict[str, Any]:
        """A pawn location as JSON: off-route box, route square (with progress) or finish place."""
        if code == OFF:
            return {"where": "off"}
        if code < self.n:
            return {"where": "route", "square": self.square(seat, code), "progress": code}
        return {"where": "finish", "place": code - self.n + 1}
