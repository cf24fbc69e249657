"""The ROPARUN state (spec §4) and its hand-written copy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.games.engines.base import GameConfig
from services.games.engines.roparun.board import Board

# Stages inside a phase (phase: dealer_draw | playing | finished).
DEALER_DRAW = "dealer_draw"  # waiting for the shuffle of the dealer draw (RR-4)
SHUFFLE = "shuffle"  # waiting for the shuffle that starts a deck cycle (RR-5)
BETWEEN_DEALS = "between_deals"  # the next deal of the cycle is due (RR-6, RR-8)
TURN = "turn"  # ``current`` is taking a turn (RR-9 ... RR-12)
DEAL_DONE = "deal_done"  # every seat had its turn; the deal ends (RR-9)
FINISHED = "finished"  # a team has finished (RR-38)


@dataclass
class RoparunState:
    config: GameConfig
    board: Board
    deck: tuple[str, ...]
    stage: str
    pawns: list[list[int]]  # [seat][c1, c2, r, car] location codes (board.py)
    hands: list[list[str]]
    stock: list[str]  # top of the stock is index 0
    discard_up: list[str] = field(default_factory=list)
    discard_down: list[str] = field(default_factory=list)
    dealer: int | None = None
    cycle_no: int = 0
    deal_no: int = 0  # deals so far in the game
    deal_in_cycle: int = 0  # deals so far in the current cycle
    current: int | None = None
    plays_this_turn: int = 0
    turns_done: int = 0
    winner: int | None = None
    draw_contenders: list[int] = field(default_factory=list)
    dealer_draws: list[list[dict[str, Any]]] = field(default_factory=list)  # public draw rounds
    last_play: dict[str, Any] | None = None  # the latest CardPlayed, public
    home_place: list[list[int]] = field(default_factory=list)  # highest finish code seen (invariants)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def phase(self) -> str:
        if self.stage == DEALER_DRAW:
            return "dealer_draw"
        if self.stage == FINISHED:
            return "finished"
        return "playing"

    def clone(self) -> RoparunState:
        return RoparunState(
            config=self.config,
            board=self.board,
            deck=self.deck,
            stage=self.stage,
            pawns=[list(p) for p in self.pawns],
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            discard_up=list(self.discard_up),
            discard_down=list(self.discard_down),
            dealer=self.dealer,
            cycle_no=self.cycle_no,
            deal_no=self.deal_no,
            deal_in_cycle=self.deal_in_cycle,
            current=self.current,
            plays_this_turn=self.plays_this_turn,
            turns_done=self.turns_done,
            winner=self.winner,
            draw_contenders=list(self.draw_contenders),
            dealer_draws=[list(r) for r in self.dealer_draws],
            last_play=self.last_play,
            home_place=[list(h) for h in self.home_place],
        )
