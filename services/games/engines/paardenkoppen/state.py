"""The state of a Paardenkoppen game (spec §4) and the constants of the chip economy (§2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

START_BALANCE = 210  # PK-2
ANTE_PER_FIELD = 5  # PK-6: every player pays 5 onto each of the four row fields
ANTE_PER_PLAYER = 4 * ANTE_PER_FIELD  # 20, also the PK-21 threshold
PASS_COST = 1  # PK-16

# phases
CHOOSING_START = "choosing_start"  # waits for the recorded start-player draw (R9)
DEALING = "dealing"  # waits for the recorded shuffle (PK-7)
PLAYING = "playing"
FINISHED = "finished"


@dataclass(slots=True)
class RoundResult:
    round_no: int
    seat_out: int
    pot_payout: int


@dataclass(slots=True)
class Ledger:
    """Running totals of every chip movement, cross-checked by the PK-24 invariant."""

    antes: int = 0
    passes: int = 0
    head_payouts: int = 0
    pot_payouts: int = 0


@dataclass(slots=True)
class PKState:
    num_players: int
    options: dict[str, Any]
    phase: str
    balances: list[int]
    fields: list[int]  # one per animal row (PK-4)
    rows: list[tuple[int, ...]]  # ranks per animal in the order they were played
    lows: list[int]  # 0 when the row is empty
    highs: list[int]
    hands: list[tuple[int, ...]]  # card ints, sorted
    deck: int = 0  # cards collected and waiting to be dealt
    pot: int = 0
    round_no: int = 0
    dealer: int = -1
    start_player: int = -1
    current_seat: int = -1
    round_over: bool = False  # the last round ended and the next one has not started
    passes: list[int] = field(default_factory=list)  # passes per seat this round
    round_pass_paid: int = 0  # value paid into the pot this round
    last_pass: tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...]] | None = None
    last_round: RoundResult | None = None
    winners: list[int] | None = None
    end_reason: str | None = None
    ledger: Ledger = field(default_factory=Ledger)

    def clone(self) -> PKState:
        """A copy that shares only immutable parts (tuples, ints, the options)."""
        return PKState(
            num_players=self.num_players,
            options=self.options,
            phase=self.phase,
            balances=list(self.balances),
            fields=list(self.fields),
            rows=list(self.rows),
            lows=list(self.lows),
            highs=list(self.highs),
            hands=list(self.hands),
            deck=self.deck,
            pot=self.pot,
            round_no=self.round_no,
            dealer=self.dealer,
            start_player=self.start_player,
            current_seat=self.current_seat,
            round_over=self.round_over,
            passes=list(self.passes),
            round_pass_paid=self.round_pass_paid,
            last_pass=self.last_pass,
            last_round=self.last_round,
            winners=None if self.winners is None else list(self.winners),
            end_reason=self.end_reason,
            ledger=Ledger(
                self.ledger.antes, self.ledger.passes, self.ledger.head_payouts, self.ledger.pot_payouts
            ),
        )


def new_state(num_players: int, options: dict[str, Any]) -> PKState:
    return PKState(
        num_players=num_players,
        options=options,
        phase=CHOOSING_START,
        balances=[START_BALANCE] * num_players,
        fields=[0, 0, 0, 0],
        rows=[(), (), (), ()],
        lows=[0, 0, 0, 0],
        highs=[0, 0, 0, 0],
        hands=[() for _ in range(num_players)],
        deck=52,
        passes=[0] * num_players,
    )
