"""The Klapper state (section 4 of rules/klapper.md).

Seats are the host's seats (join order). ``table`` lists them clockwise from table position 0,
which omboeren may reorder for 4 players (KL-2 to KL-4, KL-R1). Sides are numbered 0..k-1;
with 2 or 3 players each seat is its own side. Cards are ints (see ``cards``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .melds import Meld

Play = tuple[int, int]  # (seat, card)


@dataclass(frozen=True)
class Options:
    seating: str = "omboeren"  # KL-2, KL-R1
    first_dealer: int = 0  # seating "fixed" only (KL-R1)
    target: int = 500  # KL-39
    round2_turned_suit: bool = True  # KL-R5
    roem_tie: str = "nobody"  # KL-R12
    compare_with_roem: bool = True  # KL-R16

    @classmethod
    def from_dict(cls, o: Mapping[str, Any]) -> Options:
        """The options ``as_dict`` wrote (normalized table options, or a view's ``options``)."""
        return cls(
            str(o["seating"]),
            int(o["first_dealer"]),
            int(o["target"]),
            bool(o["round2_turned_suit"]),
            str(o["roem_tie"]),
            bool(o["compare_with_roem"]),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "seating": self.seating,
            "first_dealer": self.first_dealer,
            "target": self.target,
            "round2_turned_suit": self.round2_turned_suit,
            "roem_tie": self.roem_tie,
            "compare_with_roem": self.compare_with_roem,
        }


@dataclass(frozen=True)
class Trick:
    leader: int
    plays: tuple[Play, ...]
    winner: int
    points: int


@dataclass
class KlapperState:
    n: int
    opts: Options
    table: list[int]
    side_of: list[int]
    num_sides: int
    phase: str  # omboeren, dealing, bidding_1, bidding_2, play, game_over
    pending: str | None  # chance purpose awaited: "omboeren" or "deal"
    omboeren_cards: list[Play] = field(default_factory=list)
    deal_no: int = 0
    dealer: int = -1
    voorhand: int = -1
    hands: list[list[int]] = field(default_factory=list)
    turned_card: int | None = None
    turned_on_table: bool = False
    extras: list[list[int]] = field(default_factory=list)  # 2 players, before take-up
    dead_hand: list[int] = field(default_factory=list)  # 2 players
    turn: int | None = None
    bids: list[tuple[int, int, str]] = field(default_factory=list)  # (seat, round, bid)
    round_passes: int = 0
    speler: int | None = None
    trump: int | None = None
    trick_leader: int | None = None
    trick: list[Play] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)
    card_points: list[int] = field(default_factory=list)  # per side, this deal
    last_trick_side: int | None = None
    roem: list[tuple[Meld, ...]] = field(default_factory=list)  # per seat, this deal
    declared: list[bool] = field(default_factory=list)
    roem_settled: bool = False
    roem_scored: list[int] = field(default_factory=list)  # per side, this deal
    roem_holder: int | None = None
    deal_scored: bool = False
    score: list[int] = field(default_factory=list)  # per side
    results: list[dict[str, Any]] = field(default_factory=list)  # one per deal, public
    winner: int | None = None  # side

    @property
    def cards_each(self) -> int:
        return {2: 9, 3: 8, 4: 6, 6: 4}[self.n]

    @property
    def tricks_per_deal(self) -> int:
        return self.cards_each

    @property
    def playing_side(self) -> int | None:
        return None if self.speler is None else self.side_of[self.speler]

    def pos(self, seat: int) -> int:
        return self.table.index(seat)

    def next_seat(self, seat: int) -> int:
        return self.table[(self.table.index(seat) + 1) % self.n]

    def seats_from(self, seat: int) -> list[int]:
        """All seats clockwise starting at ``seat``."""
        p = self.table.index(seat)
        return [self.table[(p + k) % self.n] for k in range(self.n)]

    def members(self, side: int) -> list[int]:
        return [s for s in range(self.n) if self.side_of[s] == side]

    def clone(self) -> KlapperState:
        """A copy sharing only immutable parts (tuples, frozen dataclasses, result dicts)."""
        return KlapperState(
            n=self.n,
            opts=self.opts,
            table=list(self.table),
            side_of=list(self.side_of),
            num_sides=self.num_sides,
            phase=self.phase,
            pending=self.pending,
            omboeren_cards=list(self.omboeren_cards),
            deal_no=self.deal_no,
            dealer=self.dealer,
            voorhand=self.voorhand,
            hands=[list(h) for h in self.hands],
            turned_card=self.turned_card,
            turned_on_table=self.turned_on_table,
            extras=[list(h) for h in self.extras],
            dead_hand=list(self.dead_hand),
            turn=self.turn,
            bids=list(self.bids),
            round_passes=self.round_passes,
            speler=self.speler,
            trump=self.trump,
            trick_leader=self.trick_leader,
            trick=list(self.trick),
            tricks=list(self.tricks),
            card_points=list(self.card_points),
            last_trick_side=self.last_trick_side,
            roem=list(self.roem),
            declared=list(self.declared),
            roem_settled=self.roem_settled,
            roem_scored=list(self.roem_scored),
            roem_holder=self.roem_holder,
            deal_scored=self.deal_scored,
            score=list(self.score),
            results=list(self.results),
            winner=self.winner,
        )
