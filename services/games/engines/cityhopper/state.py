"""The CityHopper state (cityhopper.md 3.2) and its hand-written copy for ``evolve``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.cityhopper import catalog

_C = catalog.constants()
HOUSES = _C.houses_per_player
REWARD = _C.reward_correct_eur
REWARD_FINAL = _C.reward_final_correct_eur
TOLL = _C.toll_eur
PRICE_CITY = _C.price_city_eur
PRICE_END_CITY = _C.price_end_city_eur
PRICE_END_CITY_20 = _C.price_end_city_with_end_city_20_ticket_eur
PRICE_FLIGHT = _C.price_flight_eur
SELL_PRICE = _C.house_sell_price_eur
PENALTY_LIMIT = _C.penalty_points_limit
FLIGHT_STEPS = _C.flight_steps
TICKET_KINDS: tuple[str, ...] = tuple(catalog.chance_deck().ticket_stock)
TICKET_STOCK: dict[str, int] = dict(catalog.chance_deck().ticket_stock)
CARDS: dict[str, catalog.ChanceCard] = {c.id: c for c in catalog.chance_cards()}
CARD_IDS: tuple[str, ...] = tuple(c.id for c in catalog.chance_cards())
SELECTOR_RANGE = 2**31

# phases (3.2); SETUP waits for the three deck shuffles
SETUP = "SETUP"
START_ROLL = "START_ROLL"
AWAIT_ROLL = "AWAIT_ROLL"
MOVE = "MOVE"
QUESTION = "QUESTION"
CHANCE = "CHANCE"
PURCHASE = "PURCHASE"
GAME_OVER = "GAME_OVER"
RESOLVING = "RESOLVING"  # between a correct answer and the purchase window (inside one decide)


@dataclass(frozen=True)
class Pos:
    """Where a pawn stands: ``city`` (at = city id), ``edge`` (at = edge id, index 1..k counted
    from the edge's ``a`` end, heading = the city it walks to) or ``airport`` (at = airport id)."""

    kind: str
    at: str
    index: int = 0
    heading: str = ""

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "edge":
            return {"edge": self.at, "index": self.index, "heading": self.heading}
        return {self.kind: self.at}


def pos_from_dict(d: Any) -> Pos:
    if "edge" in d:
        return Pos("edge", str(d["edge"]), int(d["index"]), str(d["heading"]))
    if "airport" in d:
        return Pos("airport", str(d["airport"]))
    return Pos("city", str(d["city"]))


@dataclass(frozen=True)
class EndCard:
    """A blue end-city card a player holds: public once bought as an end city (CH-38); ``known``
    lists other seats that saw it (a swap, K13-K14)."""

    city: str
    public: bool = False
    known: tuple[int, ...] = ()


@dataclass
class Player:
    seat: int
    money: int
    penalty: int = 0
    start_city: str = ""
    end_cards: list[EndCard] = field(default_factory=list)
    played_away: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    supply: int = HOUSES
    barred: list[str] = field(default_factory=list)
    pos: Pos = Pos("city", "")
    last_from: Pos | None = None  # where the last walking move started (no-reversal check)

    def clone(self) -> Player:
        new = object.__new__(Player)
        d = dict(self.__dict__)
        d["end_cards"] = list(self.end_cards)
        d["played_away"] = list(self.played_away)
        d["tickets"] = list(self.tickets)
        d["barred"] = list(self.barred)
        new.__dict__ = d
        return new

    def end_cities(self) -> list[str]:
        return [c.city for c in self.end_cards]


@dataclass
class State:
    num_players: int
    starting_money: int
    phase: str = SETUP
    players: list[Player] = field(default_factory=list)
    owners: dict[str, int] = field(default_factory=dict)
    blue: list[str] = field(default_factory=list)
    yellow: list[str] = field(default_factory=list)
    green: list[str] = field(default_factory=list)
    ticket_stock: dict[str, int] = field(default_factory=dict)
    shuffled: int = 0  # 0..3: blue, yellow, green shuffled
    start_rolls: list[int | None] = field(default_factory=list)  # this round's rolls (None: to roll)
    start_rollers: list[int] = field(default_factory=list)
    start_history: list[dict[str, int]] = field(default_factory=list)
    pending_start: int | None = None
    active: int = 0
    turn_no: int = 0
    roll: int | None = None
    roll_pending: bool = False
    steps: int = 0
    question: dict[str, Any] | None = None
    last_question: dict[str, Any] | None = None
    chance: dict[str, Any] | None = None
    requests: int = 0
    winner: int | None = None
    bank_in: int = 0
    bank_out: int = 0
    ledger_errors: list[str] = field(default_factory=list)

    def clone(self) -> State:
        new = object.__new__(State)
        d = dict(self.__dict__)
        d["players"] = [p.clone() for p in self.players]
        d["owners"] = dict(self.owners)
        d["blue"] = list(self.blue)
        d["yellow"] = list(self.yellow)
        d["green"] = list(self.green)
        d["ticket_stock"] = dict(self.ticket_stock)
        d["start_rolls"] = list(self.start_rolls)
        d["start_rollers"] = list(self.start_rollers)
        d["start_history"] = list(self.start_history)
        d["ledger_errors"] = list(self.ledger_errors)
        new.__dict__ = d
        return new

    def houses_of(self, seat: int) -> list[str]:
        return sorted(c for c, o in self.owners.items() if o == seat)
