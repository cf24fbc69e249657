"""The HopPaa state (spec section 4). Plain data; the engine folds events onto copies of it."""

from __future__ import annotations

from dataclasses import dataclass, field

# Phases of a round (section 4), plus "deal": waiting for the host's shuffle.
DEAL = "deal"
WHITE_PAWN = "white_pawn"
BIDDING = "bidding"
PLAY = "play"
SCORING = "scoring"
GAME_OVER = "game_over"

BEFORE_FIRST_BID = "before_first_bid"
BEFORE_OWN_BID = "before_own_bid"


@dataclass(frozen=True)
class Table:
    """The table configuration fixed at creation (section 2)."""

    num_players: int
    team: bool
    pawns_per_player: int
    age_rank: tuple[int, ...]
    first_dealer: int
    white_pawn_timing: str
    forward_move_optional: bool

    def partner(self, seat: int) -> int | None:
        return (seat + 2) % 4 if self.team else None

    @property
    def teams(self) -> list[list[int]] | None:
        return [[0, 2], [1, 3]] if self.team else None


@dataclass(frozen=True)
class Trick:
    """A finished trick: its leader, the cards in playing order and the winner."""

    leader: int
    cards: tuple[tuple[int, str], ...]
    winner: int


@dataclass
class HopPaaState:
    table: Table
    pawns: list[list[int]]  # pawns[seat][0 green, 1 red]
    round: int = 0
    dealer: int = 0
    opener: int = 0
    phase: str = DEAL
    # Where the cards are (every card of the deck is in exactly one place).
    deck: list[str] = field(default_factory=list)  # gathered, waiting for the shuffle
    hands: list[list[str]] = field(default_factory=list)
    reserve: list[str] = field(default_factory=list)  # 2 players: the 20 cards set aside (HP-6)
    out_of_play: list[str] = field(default_factory=list)  # 2 players, even round: last round's cards
    discards: list[str | None] = field(default_factory=list)
    trick: list[tuple[int, str]] = field(default_factory=list)
    trick_log: list[Trick] = field(default_factory=list)
    # White pawn (HP-7 to HP-11): used is None while undecided.
    white_offer: int | None = None
    white_used: bool | None = None
    # Bidding (HP-12 to HP-16).
    trump: str | None = None
    bids: list[int | None] = field(default_factory=list)
    bid_order: list[int] = field(default_factory=list)
    discard_pending: bool = False
    turn: int | None = None
    trick_leader: int | None = None
    tricks_won: list[int] = field(default_factory=list)
    # Scoring (HP-26 to HP-41): results are applied for seats opener, opener+1, ...
    scoring_index: int = 0
    results: list[dict[str, object]] = field(default_factory=list)  # this round's applied results
    winner: int | None = None  # the winning seat (solo) or team index (team mode)
    results_after_end: int = 0  # must stay 0 (HP-44); counted so invariants can see a breach

    @property
    def num_players(self) -> int:
        return self.table.num_players

    @property
    def scoring_seat(self) -> int | None:
        if self.phase != SCORING or self.scoring_index >= self.num_players:
            return None
        return (self.opener + self.scoring_index) % self.num_players

    def shallow(self) -> HopPaaState:
        """A copy sharing every container: the caller must replace (never mutate) what it changes."""
        new = object.__new__(HopPaaState)
        new.__dict__.update(self.__dict__)
        return new

    def clone(self) -> HopPaaState:
        """A copy deep enough that folding an event onto it leaves the original untouched."""
        return HopPaaState(
            table=self.table,
            pawns=[list(p) for p in self.pawns],
            round=self.round,
            dealer=self.dealer,
            opener=self.opener,
            phase=self.phase,
            deck=list(self.deck),
            hands=[list(h) for h in self.hands],
            reserve=list(self.reserve),
            out_of_play=list(self.out_of_play),
            discards=list(self.discards),
            trick=list(self.trick),
            trick_log=list(self.trick_log),
            white_offer=self.white_offer,
            white_used=self.white_used,
            trump=self.trump,
            bids=list(self.bids),
            bid_order=list(self.bid_order),
            discard_pending=self.discard_pending,
            turn=self.turn,
            trick_leader=self.trick_leader,
            tricks_won=list(self.tricks_won),
            scoring_index=self.scoring_index,
            results=list(self.results),
            winner=self.winner,
            results_after_end=self.results_after_end,
        )
