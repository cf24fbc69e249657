"""Scenario helpers: a game with known decks, direct state set-up, scripted chance and questions."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import (
    ChanceRequest,
    Event,
    GameConfig,
    chance_event,
    external_event,
)
from services.games.engines.cityhopper import CityHopperEngine
from services.games.engines.cityhopper.board import CITY_IDS, WALKS
from services.games.engines.cityhopper.state import CARD_IDS, EndCard, Pos, State
from shared.cityhopper.questions import distance_question

E = CityHopperEngine()


def config(n: int = 2, **options: Any) -> GameConfig:
    return GameConfig(n, E.normalize_options(n, options))


def fact(city: str, right: str = "a") -> dict[str, Any]:
    """A FACTS choice question about ``city`` whose key is ``right``."""
    return {
        "id": f"test:{city}",
        "category": "FACTS",
        "city": city,
        "prompt": f"Iets over {city}?",
        "format": "choice",
        "options": [{"id": "a", "text": "A", "media": None}, {"id": "b", "text": "B", "media": None}],
        "key": {"option": right},
        "reveal": {"answer": right, "info": "uitleg"},
        "pack": {"id": "test", "version": "1", "hash": "x"},
    }


class Game:
    """A game driven by hand: ``do`` a move, resolve chance with chosen values, answer questions."""

    def __init__(self, n: int = 2, start_rolls: tuple[int, ...] | None = None, **options: Any) -> None:
        self.cfg = config(n, **options)
        self.s: State = E.initial_state(self.cfg)
        self.log: list[Event] = []
        self.counter = 0
        for _ in range(3):  # identity shuffles: blue/yellow in cities.json order, green K01..K50
            req = E.chance_request(self.s)
            assert req is not None
            self.fold(chance_event(req, self.counter, list(range(req.n))))
        if start_rolls is not None:
            for seat, value in enumerate(start_rolls):
                self.do(seat, {"type": "roll_start"})
                self.resolve(value)

    # --- folding ---------------------------------------------------------------------------
    def fold(self, event: Event) -> None:
        if event.get("type") == "ChanceResolved":
            self.counter += 1
        self.s = E.evolve(self.s, event)
        self.log.append(event)

    def do(self, seat: int, move: dict[str, Any]) -> list[Event]:
        events = E.decide(self.s, seat, move)
        for e in events:
            self.fold(e)
        return events

    def request(self) -> ChanceRequest:
        req = E.chance_request(self.s)
        assert req is not None, f"no chance pending (phase {self.s.phase})"
        return req

    def resolve(self, *values: int) -> None:
        self.fold(chance_event(self.request(), self.counter, list(values)))

    def provide(self, question: dict[str, Any]) -> None:
        ext = E.external_request(self.s)
        assert ext is not None, "no question pending"
        self.fold(external_event(ext, {"question": question, "generated": False, "reason": "test"}))

    def ask(self, category: int = 5, right: str = "a", selector: int = 0) -> None:
        """Roll the white die (``category``), pick the selector, serve a question with key ``right``
        (a distance question for die 1)."""
        self.resolve(category)
        self.resolve(selector)
        q = self.s.question
        assert q is not None
        if category == 1:
            self.provide(distance_question(q["city"], q["yellow_city"]))
        else:
            self.provide(fact(q["city"], right))

    def answer(self, correct: bool = True) -> list[Event]:
        q = self.s.question
        assert q is not None and q["question"] is not None
        data = q["question"]
        if data["category"] == "ROAD_DISTANCE":
            km = float(data["key"]["km"])
            payload: dict[str, Any] = {"km": km if correct else km * 3 + 10}
        else:
            right = data["key"]["option"]
            payload = {"option": right if correct else ("b" if right == "a" else "a")}
        return self.do(self.s.active, {"type": "answer", "payload": payload})

    def arrive_and_answer(self, correct: bool = True, category: int = 5) -> list[Event]:
        self.ask(category)
        return self.answer(correct)

    # --- set-up ----------------------------------------------------------------------------
    def turn(self, seat: int, city: str, steps: int, money: int | None = None) -> Game:
        """Seat ``seat`` to walk from ``city`` with ``steps`` left (phase MOVE)."""
        s = self.s.clone()
        s.phase = "MOVE"
        s.active = seat
        s.turn_no = max(1, s.turn_no)
        s.steps = steps
        s.roll = steps
        s.players[seat].pos = Pos("city", city)
        if money is not None:
            self.set_money(seat, money, s)
        self.s = s
        return self

    def set_money(self, seat: int, money: int, s: State | None = None) -> None:
        """Change money keeping the bank ledger balanced (as if paid by or to the bank)."""
        st = s if s is not None else self.s
        delta = money - st.players[seat].money
        st.players[seat].money = money
        if delta > 0:
            st.bank_out += delta
        else:
            st.bank_in -= delta

    def edit(self) -> State:
        """A fresh copy of the state to change in place (then assigned back)."""
        self.s = self.s.clone()
        return self.s

    def give_end_cities(self, seat: int, *cities: str) -> None:
        """Make ``cities`` the seat's end cards (swapping cards with the blue deck / other seats)."""
        s = self.edit()
        for p in s.players:
            for c in list(p.end_cards):
                if c.city in cities:
                    p.end_cards.remove(c)
                    s.blue.append(c.city)
        p = s.players[seat]
        for c in p.end_cards:
            s.blue.append(c.city)
        p.end_cards = []
        for city in cities:
            s.blue.remove(city)
            p.end_cards.append(EndCard(city))

    def own(self, seat: int, *cities: str) -> None:
        s = self.edit()
        for city in cities:
            prev = s.owners.get(city)
            if prev is not None:
                s.players[prev].supply += 1
            s.owners[city] = seat
            s.players[seat].supply -= 1

    def top_green(self, card: str) -> None:
        s = self.edit()
        s.green.remove(card)
        s.green.insert(0, card)

    def top_blue(self, city: str) -> None:
        s = self.edit()
        s.blue.remove(city)
        s.blue.insert(0, city)

    def top_yellow(self, city: str) -> None:
        s = self.edit()
        s.yellow.remove(city)
        s.yellow.insert(0, city)

    def types(self, events: list[Event]) -> list[str]:
        return [str(e["type"]) for e in events]

    def legal(self, seat: int | None = None) -> list[dict[str, Any]]:
        return E.legal_moves(self.s, self.s.active if seat is None else seat)

    def problems(self) -> list[str]:
        return E.invariants(self.s)


def steps_of(edge: str) -> int:
    return WALKS[edge].steps


__all__ = ["CARD_IDS", "CITY_IDS", "E", "Game", "config", "fact", "steps_of"]
