"""CityHopper as a one-player race: how many turns the seat still needs to play away its end cities.

A game is a race (CH-47) in which the players meet only through tolls (CH-31, rare: about one toll in
four games of ``rules`` v ``rules``) and a few chance cards, so ``strong`` judges a move by the turns
its own pawn still needs after it: ``Race.turns`` plays the seat's pawn alone from the position the
move leaves, turn by turn, with the ``rules`` heuristic's choices (the edge towards its targets, the
nearest end city when it can pay one, a flight that saves six steps, a central normal city above the
reserve) until its last end city is played away. Everything it reads is the seat's own view: its
money, tickets, penalty points, barred cities and end cities, and the public owners of the cities;
the opponents' hidden cards and the decks' order are not needed (a chance card is drawn uniformly
from the 50 of ``chance_cards.json``, and only its effect on the seat's money, tickets, penalty
points and end-city price is played; go-to, swap, trade-in and free-city cards are left out).

Chance comes from ``Luck``: the rolls of the turns, the rightness of the answers and the chance cards
by their order of use, drawn once per sample and shared by every candidate move (common random
numbers), so the candidates are compared on the same luck.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

from services.bots.domain.search import OutOfTime, Stop
from services.games.engines.cityhopper.board import (
    AIRPORT_OF,
    CAPITALS,
    CITY_IDS,
    CITY_OF_AIRPORT,
    EDGES_OF,
    ISLANDS,
    Walk,
)
from services.games.engines.cityhopper.state import (
    CARDS,
    PRICE_CITY,
    PRICE_END_CITY,
    PRICE_END_CITY_20,
    PRICE_FLIGHT,
    REWARD,
    REWARD_FINAL,
    TOLL,
)

MONEY_STEPS = 0.4
FLIGHT_COST_STEPS = 3
MAX_TURNS = 40
"""A race not finished by then counts as this many turns (a safety net; races take about 8)."""
P_CORRECT = 0.95
"""An answer in a race is right with this probability (``rules`` answered 96 % right on the bundled
pack, wrong mostly on true/false statements and flags)."""

CARD_IDS: tuple[str, ...] = tuple(CARDS)


def shortest(start: Mapping[str, float], weight: Callable[[Walk, str, str], float]) -> dict[str, float]:
    """Dijkstra over road, dike and boat edges from ``start`` (city -> its cost there):
    ``weight(edge, city, next_city)`` is what crossing ``edge`` from ``city`` to ``next_city`` adds."""
    best = dict(start)
    heap = [(cost, city) for city, cost in best.items()]
    heapq.heapify(heap)
    while heap:
        d, node = heapq.heappop(heap)
        if d > best[node]:
            continue
        for w in EDGES_OF[node]:
            nb = w.other(node)
            nd = d + weight(w, node, nb)
            if nd < best.get(nb, float("inf")):
                best[nb] = nd
                heapq.heappush(heap, (nd, nb))
    return best


@cache
def distances() -> Mapping[str, Mapping[str, int]]:
    """All-pairs shortest routes in steps over road, dike and boat edges (CH-11, CH-22, CH-23)."""
    return {
        source: {city: int(d) for city, d in shortest({source: 0}, lambda w, _a, _b: w.steps).items()}
        for source in CITY_IDS
    }


def dist(a: str, b: str) -> int:
    """Steps of the shortest route from ``a`` to ``b``."""
    return distances()[a].get(b, 999)


@dataclass
class Luck:
    """One sample of the dice, the answers and the chance cards, in their order of use."""

    rng: random.Random
    rolls: list[int] = field(default_factory=list)
    right: list[bool] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)

    def roll(self, k: int) -> int:
        while len(self.rolls) <= k:
            self.rolls.append(self.rng.randint(1, 6))
        return self.rolls[k]

    def answer(self, k: int) -> bool:
        while len(self.right) <= k:
            self.right.append(self.rng.random() < P_CORRECT)
        return self.right[k]

    def card(self, k: int) -> str:
        while len(self.cards) <= k:
            self.cards.append(CARD_IDS[self.rng.randrange(len(CARD_IDS))])
        return self.cards[k]


@dataclass
class Pawn:
    """The seat's race state. ``city`` is where the pawn stands (``ahead`` 0) or the city it walks to,
    ``ahead`` steps away (on an edge's grey squares, CH-12, or an airport square, CH-29)."""

    city: str
    ahead: int
    money: int
    ends: list[str]
    owned: set[str]
    penalty: int
    barred: list[str]
    tickets: list[str]
    houses: int
    done: bool = False
    answers: int = 0
    cards: int = 0

    def copy(self) -> Pawn:
        return Pawn(
            self.city,
            self.ahead,
            self.money,
            list(self.ends),
            set(self.owned),
            self.penalty,
            list(self.barred),
            list(self.tickets),
            self.houses,
            self.done,
            self.answers,
            self.cards,
        )

    def end_price(self) -> int:
        if "END_CITY_20" in self.tickets:
            return PRICE_END_CITY_20
        if "FREE_END_CITY" in self.tickets:
            return 0
        return PRICE_END_CITY

    def owned_ends(self) -> list[str]:
        return [c for c in self.ends if c in self.owned]

    def saving(self) -> bool:
        return bool(self.ends) and not self.owned_ends() and self.money < self.end_price()


@lru_cache(maxsize=8192)
def cost_to_go(tolled: frozenset[str], targets: frozenset[str], free_boat: bool) -> dict[str, float]:
    """The ``rules`` walk's cost from every city to the nearest of ``targets`` (cityhopper.Me): steps
    plus ``MONEY_STEPS`` per euro of fares and tolls; Dijkstra from the targets backwards."""
    cost: dict[str, float] = dict.fromkeys(targets, 0.0)
    heap = [(0.0, t) for t in cost]
    heapq.heapify(heap)
    while heap:
        c, node = heapq.heappop(heap)
        if c > cost[node]:
            continue
        toll = TOLL if node in tolled else 0
        for w in EDGES_OF[node]:
            prev = w.other(node)
            fare = 0 if w.type != "boat" or (node in ISLANDS and free_boat) else w.fare
            nc = c + w.steps + MONEY_STEPS * (fare + toll)
            if nc < cost.get(prev, 1e9):
                cost[prev] = nc
                heapq.heappush(heap, (nc, prev))
    return cost


class Race:
    """The board as the seat sees it at a decision: who owns what (tolls) and its own tickets."""

    def __init__(self, owners: Mapping[str, int], seat: int) -> None:
        self.tolled = frozenset(c for c, o in owners.items() if o != seat)
        self._goals: dict[tuple[frozenset[str], bool], dict[str, float]] = {}

    # --- the rules heuristic's costs (cityhopper.Me, with the pawn's tickets) -------------------

    def fare(self, w: Walk, far: str, pawn: Pawn) -> int:
        if w.type != "boat" or (far in ISLANDS and "FREE_BOAT" in pawn.tickets):
            return 0
        return w.fare

    def goal(self, pawn: Pawn) -> dict[str, float]:
        targets = frozenset(pawn.owned_ends() or pawn.ends)
        key = (targets, "FREE_BOAT" in pawn.tickets)
        cost = self._goals.get(key)
        if cost is None:
            cost = self._goals[key] = cost_to_go(self.tolled, targets, key[1])
        return cost

    def legal_edges(self, pawn: Pawn) -> list[Walk]:
        out = []
        for w in EDGES_OF[pawn.city]:
            far = w.other(pawn.city)
            if far in pawn.barred or self.fare(w, far, pawn) > pawn.money:
                continue
            out.append(w)
        return out

    def choose_edge(self, pawn: Pawn, edges: list[Walk]) -> Walk:
        goal = self.goal(pawn)
        saving = pawn.saving()

        def cost(w: Walk) -> tuple[float, str]:
            far = w.other(pawn.city)
            money = self.fare(w, far, pawn) + (TOLL if far in self.tolled else 0)
            g = goal.get(far, 999.0)
            if saving:
                return w.steps + 0.3 * g + 1.0 * money, w.id
            return w.steps + g + MONEY_STEPS * money, w.id

        return min(edges, key=cost)

    # --- playing a turn -------------------------------------------------------------------------

    def walk_edge(self, pawn: Pawn, w: Walk) -> None:
        far = w.other(pawn.city)
        pawn.money -= self.fare(w, far, pawn)
        if w.type == "boat" and far in ISLANDS and "FREE_BOAT" in pawn.tickets:
            pawn.tickets.remove("FREE_BOAT")
        pawn.city, pawn.ahead = far, w.steps

    def fly(self, pawn: Pawn, to_city: str) -> None:
        pawn.city, pawn.ahead = to_city, 1

    def go(self, pawn: Pawn, steps: int, luck: Luck) -> None:
        """Uses ``steps`` of the current turn from where the pawn is (CH-10 to CH-16)."""
        while steps > 0 and not pawn.done:
            if pawn.ahead > 0:
                d = min(steps, pawn.ahead)
                steps -= d
                pawn.ahead -= d
                if pawn.ahead > 0:
                    return
                if not self.arrive(pawn, steps, luck):
                    return
                steps = self._purchase(pawn, steps)
                continue
            edges = self.legal_edges(pawn)
            if not edges:
                return
            self.walk_edge(pawn, self.choose_edge(pawn, edges))

    def arrive(self, pawn: Pawn, steps: int, luck: Luck) -> bool:
        """CH-14 to CH-17, CH-42, CH-43: False when the turn ends here."""
        city = pawn.city
        if city in self.tolled:
            pawn.money = max(0, pawn.money - TOLL)
        right = luck.answer(pawn.answers)
        pawn.answers += 1
        if not right:
            pawn.barred.append(city)
            pawn.penalty += 1
            if pawn.penalty >= 3:  # CH-17: an extra end city, anywhere
                pawn.penalty = 0
                pawn.ends.append(CITY_IDS[luck.rng.randrange(len(CITY_IDS))])
            return False
        pawn.barred = [city]
        if city in pawn.owned and city in pawn.ends:
            pawn.ends.remove(city)
            pawn.money += REWARD_FINAL
            if not pawn.ends:
                pawn.done = True
                return False
        else:
            pawn.money += REWARD
        if city in CAPITALS:
            self._chance(pawn, luck)
        return True

    def _chance(self, pawn: Pawn, luck: Luck) -> None:
        card = CARDS[luck.card(pawn.cards)]
        pawn.cards += 1
        effect, params = card.effect, card.params
        if effect == "TICKET":
            pawn.tickets.append(str(params["kind"]))
        elif effect == "GAIN":
            pawn.money += int(params["amount"])
        elif effect == "PAY_BANK":
            pawn.money = max(0, pawn.money - int(params["amount"]))
        elif effect == "COLLECT_FROM_EACH":
            pawn.money += int(params["amount"])
        elif effect == "PAY_TO_EACH":
            pawn.money = max(0, pawn.money - int(params["amount"]))
        elif effect == "PAY_PER_HOUSE":
            pawn.money = max(0, pawn.money - int(params.get("amount", 1)) * (pawn.houses + len(pawn.owned)))
        elif effect == "REMOVE_PENALTY":
            pawn.penalty = max(0, pawn.penalty - 1)
        elif effect == "ADD_PENALTY":
            pawn.penalty += 1
            if pawn.penalty >= 3:
                pawn.penalty = 0
                pawn.ends.append(CITY_IDS[luck.rng.randrange(len(CITY_IDS))])

    def _purchase(self, pawn: Pawn, steps: int) -> int:
        """The ``rules`` purchase (cityhopper.purchase); returns the steps left after it."""
        unowned = [c for c in pawn.ends if c not in pawn.owned]
        price = pawn.end_price()
        if unowned and pawn.money >= price:
            self.buy_end(pawn, min(unowned, key=lambda c: (dist(pawn.city, c), c)))
            return steps
        if pawn.city in AIRPORT_OF and steps >= 2 and pawn.owned_ends() and pawn.money >= PRICE_FLIGHT:
            goal = self.goal(pawn)
            dests = [c for c in CITY_OF_AIRPORT.values() if c != pawn.city and c not in pawn.barred]
            if dests:
                best = min(dests, key=lambda c: (goal.get(c, 999.0), c))
                if goal.get(pawn.city, 999.0) - (FLIGHT_COST_STEPS + goal.get(best, 999.0)) >= 6:
                    pawn.money -= PRICE_FLIGHT
                    self.fly(pawn, best)
                    return steps - 2
        reserve = price if len(pawn.owned_ends()) < len(pawn.ends) else TOLL
        if pawn.money - PRICE_CITY >= reserve:
            pawn.money -= PRICE_CITY
            pawn.houses += 1
        return steps

    def buy_end(self, pawn: Pawn, city: str) -> None:
        pawn.money -= pawn.end_price()
        for kind in ("END_CITY_20", "FREE_END_CITY"):  # CH-53
            if kind in pawn.tickets:
                pawn.tickets.remove(kind)
                break
        pawn.owned.add(city)

    def finish(self, pawn: Pawn, luck: Luck, stop: Stop | None = None, turn: int = 0) -> float:
        """Turns still needed after turn ``turn`` (the current one is turn 0) to play the last end city
        away; raises ``OutOfTime`` once ``stop()`` is true (read before every turn)."""
        while not pawn.done:
            if stop is not None and stop():
                raise OutOfTime
            turn += 1
            if turn >= MAX_TURNS:
                return float(MAX_TURNS)
            self.go(pawn, luck.roll(turn), luck)
        return float(turn)
