"""Bot levels for CityHopper (rules/cityhopper.md; issue 18 item 3).

- ``random``: a uniformly random legal move.
- ``rules``: a heuristic written from the spec: walk the shortest route (in steps, over the public
  board) towards its own end cities, buy an end city whenever it can (CH-38), buy central normal
  cities only with a reserve left for the next end city (CH-37), fly when that shortens the route
  (CH-27, CH-28), answer from public knowledge (below), decline chance offers that cost it.
- ``strong``: ``rules`` plus a race search for where to walk and what to buy (``strong``): the game
  is a race in which the players meet only through tolls and a few chance cards, so it scores a
  candidate move by the chance that its pawn, playing ``rules`` alone from the position the move
  leaves (``cityhopper_race.Race``), plays its last end city away before every opponent, whose turns
  still needed are sampled the same way from its public state and end cities drawn from those the
  seat has not seen. It leaves the ``rules`` move only for a clear paired gain. Budget: one race
  (of any seat) = one iteration. Measured (bench/bots.py, README footnote 4): earlier flat Monte
  Carlo over engine playouts, cut after one to six turns and scored by a fitted logistic evaluation
  or a hand-made estimate, did not beat ``rules`` clearly (0.535, 0.543 over 400 games).

**Answers.** A bot never sees a question's key. ``rules``/``strong`` answer from public data only:

- a road distance (CH-14, die 1): the built-in road estimate between the two cities' coordinates in
  ``shared/cityhopper/data/cities.json`` (``shared.cityhopper.roads``, public); the listed guess
  nearest to it. When the question service routes with the same estimate this is always right;
  with real routing (OSRM) it is right when the estimate is within 15 %;
- inhabitants (die 3): the option nearest (in ratio) to the population in ``cities.json``;
- a choice with the city's province among the options: that option (province in ``cities.json``);
- a flag (die 4): a fixed prior, the two commonest colours of Dutch municipal flags that are listed;
- any other question (photos, mayors, statements): a uniformly random option from the bot's rng.

In races the questions are not known at all, so correctness is modelled: every answer is right
with probability ``cityhopper_race.P_CORRECT`` (0.95, fixed). ``rules`` answered 96 % right in 100
rules-vs-rules games against self-play's provider (the bundled sample pack, whose missing
categories fall back to generated inhabitants questions; the wrong ones were true/false statements
and flags).
"""

from __future__ import annotations

import bisect
import math
import random
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level, Move, View, uniform
from services.bots.domain.games.cityhopper_race import Luck, Pawn, Race, dist, distances, shortest
from services.bots.domain.search import OutOfTime, Stop, stopper
from services.games.engines.cityhopper.board import (
    CITY_IDS,
    CITY_OF_AIRPORT,
    ISLANDS,
    WALKS,
    Walk,
)
from services.games.engines.cityhopper.state import (
    FLIGHT_STEPS,
    PRICE_CITY,
    PRICE_END_CITY,
    PRICE_FLIGHT,
    SELL_PRICE,
    TOLL,
)
from shared.cityhopper import catalog
from shared.cityhopper.grading import FLAG, INHABITANTS, ROAD_DISTANCE
from shared.cityhopper.roads import default_routing

# --- the public board: shortest routes in steps ---------------------------------------------------

MONEY_STEPS = 0.4
"""A euro of fare (CH-24) or toll (CH-31) weighed as this many steps when choosing a route."""
FLIGHT_COST_STEPS = 3
"""A flight (CH-27): 2 steps to the destination airport square, 1 into its city (CH-29)."""


@cache
def centrality() -> Mapping[str, int]:
    """How many of the shortest routes between two cities pass through each city: a city many routes
    cross collects more tolls (CH-31) when owned."""
    d = distances()
    count = dict.fromkeys(CITY_IDS, 0)
    for a in CITY_IDS:
        for b in CITY_IDS:
            if a >= b:
                continue
            for c in CITY_IDS:
                if c not in (a, b) and d[a][c] + d[c][b] == d[a][b]:
                    count[c] += 1
    return count


_dist = dist


# --- reading a view ------------------------------------------------------------------------------


def game_view(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """The engine view inside the games API's answer (``view``), or the engine view itself."""
    inner = view.get("view")
    return inner if isinstance(inner, Mapping) and "players" in inner else view


def _position(pv: Mapping[str, Any]) -> tuple[str, int]:
    """(the next city the pawn reaches, steps to it): 0 on a city, the squares ahead on an edge (CH-12),
    1 from an airport square (CH-29)."""
    pos = pv["position"]
    if "edge" in pos:
        w = WALKS[str(pos["edge"])]
        heading = str(pos["heading"])
        ahead = w.squares + 1 - int(pos["index"]) if heading == w.b else int(pos["index"])
        return heading, ahead
    if "airport" in pos:
        return str(pos["city"]), 1
    return str(pos["city"]), 0


class Me:
    """What ``rules`` needs of the seat's own player."""

    def __init__(self, v: Mapping[str, Any], seat: int) -> None:
        self.v = v
        self.seat = seat
        self.p = v["players"][seat]
        self.owners: dict[str, int] = {str(c): int(o) for c, o in v["owners"].items()}
        self.ends: list[str] = [str(c["city"]) for c in self.p["end_cities"] if c.get("city")]
        self.owned_ends = [c for c in self.ends if self.owners.get(c) == seat]
        self.money = int(self.p["money"])
        self.tickets: list[str] = list(self.p["tickets"])
        self.barred: list[str] = list(self.p["barred"])
        self.city, self.ahead = _position(self.p)
        self._to_go: dict[str, float] | None = None

    def targets(self) -> list[str]:
        """Where to walk: its owned end cities (entering one is the final question, CH-42); owning
        none, all its end cities (it buys one on the way when it can, CH-36: from anywhere)."""
        return self.owned_ends or self.ends

    def goal_distance(self, city: str) -> float:
        """Cost from ``city`` to the nearest target: steps plus ``MONEY_STEPS`` per euro of fares and
        tolls on the way (a barred target counts: it is free again after the next right answer)."""
        if self._to_go is None:
            self._to_go = self._cost_to_go()
        return self._to_go.get(city, 999.0)

    def _cost_to_go(self) -> dict[str, float]:
        """Dijkstra from the targets backwards. The costs are the ones ``walk`` weighs its first edge
        with, so the greedy walk follows a cheapest route and cannot go round in circles."""
        return shortest(
            {t: 0.0 for t in self.targets()},
            lambda w, node, _prev: w.steps + MONEY_STEPS * (self.fare(w, node) + self.toll_eur(node)),
        )

    def fare(self, w: Walk, far: str) -> int:
        """CH-24 / CH-50: what a trip along ``w`` to ``far`` costs."""
        if w.type != "boat" or (far in ISLANDS and "FREE_BOAT" in self.tickets):
            return 0
        return w.fare

    def toll_eur(self, city: str) -> int:
        """CH-31: EUR 5 for entering an opponent's city."""
        owner = self.owners.get(city)
        return TOLL if owner is not None and owner != self.seat else 0

    def saving(self) -> bool:
        """Owns none of its end cities and cannot pay one yet (CH-38)."""
        return bool(self.ends) and not self.owned_ends and self.money < self.end_price()

    def end_price(self) -> int:
        """CH-38, CH-51 to CH-53."""
        if "END_CITY_20" in self.tickets:
            return 20
        if "FREE_END_CITY" in self.tickets:
            return 0
        return PRICE_END_CITY

    def toll(self, city: str) -> float:
        return MONEY_STEPS * self.toll_eur(city)


# --- rules ---------------------------------------------------------------------------------------


def rules(view: View, moves: list[Move], seat: int, rng: random.Random, budget: Budget) -> Move:
    return rules_move(game_view(view), moves, seat, rng)


def rules_move(v: Mapping[str, Any], moves: list[Move], seat: int, rng: random.Random) -> Move:
    if len(moves) == 1:
        return moves[0]
    kinds = {str(m["type"]) for m in moves}
    me = Me(v, seat)
    if "answer" in kinds:
        return answer(v, moves, rng)
    if "choose_chance" in kinds:
        return chance_choice(v, me, moves, rng)
    if kinds & {"skip_purchase", "buy_city", "buy_end_city", "buy_flight"}:
        return purchase(me, moves, int(v["steps_remaining"]))
    if kinds & {"move", "fly_with_ticket"}:
        return walk(me, moves)
    return moves[0]  # roll_start, roll: the only move


def _edge_cost(me: Me, edge: str) -> float:
    """Steps along ``edge`` plus the route on from its far city, with money weighed in steps.

    While it saves for its first end city (owns none, cannot pay one, CH-38), money is what it needs:
    short edges (more cities, more answers, CH-15 a per turn), no fares (CH-24) or tolls (CH-31),
    and only a mild pull towards its end cities (standing next to a city it cannot buy yet is worth
    little; without this it could ferry between an island and the coast for ever, fare against
    reward). Otherwise the route counts in full and money only a little."""
    w = WALKS[edge]
    far = w.other(me.city)
    money = me.fare(w, far) + me.toll_eur(far)
    if me.saving():
        return w.steps + 0.3 * me.goal_distance(far) + 1.0 * money
    return w.steps + me.goal_distance(far) + MONEY_STEPS * money


def walk(me: Me, moves: list[Move]) -> Move:
    """CH-10/CH-11: the edge on the shortest route to a target; a free flight (CH-28) when it saves at
    least two steps."""

    def cost(m: Move) -> tuple[float, str]:
        if m["type"] == "fly_with_ticket":
            to = CITY_OF_AIRPORT[str(m["to"])]
            return FLIGHT_COST_STEPS + me.goal_distance(to) + me.toll(to) + 2, str(m["to"])
        if "edge" in m:
            return _edge_cost(me, str(m["edge"])), str(m["edge"])
        return 0.0, ""

    return min(moves, key=cost)


def _reserve(me: Me) -> int:
    """Money to keep for the next end city (CH-38) while one is still unowned."""
    if len(me.owned_ends) < len(me.ends):
        return me.end_price()
    return 5  # a toll (CH-31)


def purchase(me: Me, moves: list[Move], steps: int) -> Move:
    """CH-36: at most one purchase. End city first (the nearest; a house to sell is the least central
    one that is no end city, CH-40); then a flight that saves steps towards an owned end city (CH-27);
    then the most central normal city if the reserve for the next end city stays (CH-37); else skip."""
    ends = [m for m in moves if m["type"] == "buy_end_city"]
    if ends:

        def end_key(m: Move) -> tuple[int, float, str]:
            sell = m.get("sell_house")
            sell_rank = 0 if sell is None else (1 if sell in me.ends else 0)
            return (
                sell_rank,
                _dist(me.city, str(m["city"])) + (centrality()[sell] / 1e4 if sell else 0),
                str(sell),
            )

        return min(ends, key=end_key)
    here = me.goal_distance(me.city)
    flights = [m for m in moves if m["type"] == "buy_flight"]
    if flights and me.owned_ends and me.money - PRICE_FLIGHT >= 0:
        best = min(flights, key=lambda m: me.goal_distance(CITY_OF_AIRPORT[str(m["to"])]))
        there = FLIGHT_COST_STEPS + me.goal_distance(CITY_OF_AIRPORT[str(best["to"])])
        if here - there >= 6:
            return best
    cities = [m for m in moves if m["type"] == "buy_city"]
    if cities and me.money - PRICE_CITY >= _reserve(me):
        return max(cities, key=lambda m: (centrality()[str(m["city"])], str(m["city"])))
    return next(m for m in moves if m["type"] == "skip_purchase")


# --- answers ---------------------------------------------------------------------------------------

FLAG_PRIOR: tuple[str, ...] = ("red", "white", "yellow", "blue", "black", "green")
"""Colours of Dutch municipal flags, commonest first (general knowledge, not the question's key)."""

_NUM = re.compile(r"\d[\d.\s]*")


def _number(text: str) -> float | None:
    m = _NUM.search(text)
    if m is None:
        return None
    digits = re.sub(r"\D", "", m.group(0))
    return float(digits) if digits else None


def answer(v: Mapping[str, Any], moves: list[Move], rng: random.Random) -> Move:
    q = (v.get("question") or {}).get("question") or {}
    category = q.get("category")
    city = str(q.get("city") or "")
    payloads = [m.get("payload") or {} for m in moves]
    if category == ROAD_DISTANCE and all("km" in p for p in payloads):
        yellow = str(q.get("yellow_city") or city)
        est = default_routing().route(city, yellow).km
        if est > 0:
            return min(moves, key=lambda m: abs(math.log(float(m["payload"]["km"]) / est)))
    if category == FLAG:
        rank = {c: i for i, c in enumerate(FLAG_PRIOR)}
        return min(
            moves,
            key=lambda m: sum(rank.get(str(c), 99) for c in (m.get("payload") or {}).get("colours", [])),
        )
    options = {str(o["id"]): str(o.get("text") or "") for o in q.get("options") or []}
    place = catalog.place_index().get(city)
    if place is not None and options:
        by_option = {str((m.get("payload") or {}).get("option")): m for m in moves}
        for oid, text in options.items():
            if text.strip() == place.province and oid in by_option:
                return by_option[oid]
        if category == INHABITANTS and place.population:
            pop = float(place.population)
            guesses = {oid: _number(t) for oid, t in options.items()}
            known = [(abs(math.log(g / pop)), oid) for oid, g in guesses.items() if g and oid in by_option]
            if known:
                return by_option[min(known)[1]]
    return rng.choice(moves)


# --- chance cards ----------------------------------------------------------------------------------


def chance_choice(v: Mapping[str, Any], me: Me, moves: list[Move], rng: random.Random) -> Move:
    """Section 5 choices, for the seat asked (not always the drawer)."""
    ch = v.get("chance") or {}
    stage = ch.get("stage")
    payloads = [{k: x for k, x in m.items() if k != "type"} for m in moves]
    decline = next((m for m, p in zip(moves, payloads, strict=True) if p.get("decline")), None)
    if stage == "swap_answer":  # K13-K14: give the end card farthest away and not owned
        return max(
            moves,
            key=lambda m: (
                str(m["city"]) not in me.owned_ends,
                _dist(me.city, str(m["city"])),
                str(m["city"]),
            ),
        )
    if stage == "take":  # K15-K16 (I am the right neighbour): an end city of mine, else the most central
        options = [m for m in moves if "city" in m]
        if options:
            return max(
                options,
                key=lambda m: (str(m["city"]) in me.ends, centrality()[str(m["city"])], str(m["city"])),
            )
    if stage == "take_ticket":  # K17-K18: END_CITY_20 only costs (CH-52)
        want = ["FREE_END_CITY", "FREE_FLIGHT", "FREE_BOAT"]
        if len(me.owned_ends) == len(me.ends):
            want.remove("FREE_END_CITY")
        for kind in want:
            for m in moves:
                if m.get("kind") == kind:
                    return m
    if stage == "free_city":  # K19-K21: a free city is worth taking (sell only for an end city, R-27)
        takes = [m for m in moves if m.get("take")]
        if takes:
            return min(takes, key=lambda m: (str(m.get("sell_house")) in me.ends, str(m.get("sell_house"))))
    if stage == "trade_in":  # K22-K23: trade the farthest unowned end card if it is far
        options = [m for m in moves if "city" in m and str(m["city"]) not in me.owned_ends]
        if options:
            far = max(options, key=lambda m: (_dist(me.city, str(m["city"])), str(m["city"])))
            mean = sum(_dist(me.city, c) for c in CITY_IDS) / len(CITY_IDS)
            if _dist(me.city, str(far["city"])) > mean + 4:
                return far
    if stage == "trade_house":  # keep the house with the end card (it was on an end city)
        return next((m for m in moves if m.get("move_house") is True), moves[0])
    if stage == "route":  # CH-55: the tied route with the fewest tolls
        routes = [m for m in moves if "route" in m]
        if routes:
            return min(routes, key=lambda m: (sum(me.toll(c) for c in m["route"]), m["route"]))
    if decline is not None:
        return decline
    return rng.choice(moves)


# --- strong: a race search ---------------------------------------------------------------------

STRONG_MARGIN_SE = 1.0
"""How sure a paired gain over the ``rules`` move must be (standard errors) to play another move."""


def candidates(v: Mapping[str, Any], moves: list[Move], seat: int) -> list[Move]:
    """The moves ``strong`` compares: all but normal cities and flights, of which the few best."""
    me = Me(v, seat)
    cities = sorted(
        (m for m in moves if m["type"] == "buy_city"), key=lambda m: -centrality()[str(m["city"])]
    )[:3]
    flights = sorted(
        (m for m in moves if m["type"] == "buy_flight"),
        key=lambda m: me.goal_distance(CITY_OF_AIRPORT[str(m["to"])]),
    )[:2]
    sells: dict[str, Move] = {}
    for m in moves:
        if m["type"] == "buy_end_city":
            key = str(m["city"])
            if (
                key not in sells
                or centrality()[str(m.get("sell_house", key))]
                < centrality()[str(sells[key].get("sell_house", key))]
            ):
                sells[key] = m
    rest = [m for m in moves if m["type"] not in ("buy_city", "buy_flight", "buy_end_city")]
    return rest + list(sells.values()) + cities + flights


RACE_KINDS = frozenset({"move", "fly_with_ticket", "skip_purchase", "buy_city", "buy_end_city", "buy_flight"})
"""The decisions ``strong`` searches: where to walk and what to buy (CH-10, CH-27, CH-28, CH-36)."""
OPPONENT_RACES = 30
"""Races sampled per opponent for the distribution of the turns it still needs."""


def own_pawn(me: Me) -> Pawn:
    """The seat's race state from its own view."""
    houses = sum(1 for c, o in me.owners.items() if o == me.seat and c not in me.ends)
    return Pawn(
        me.city,
        me.ahead,
        me.money,
        list(me.ends),
        set(me.owned_ends),
        int(me.p["penalty_points"]),
        list(me.barred),
        list(me.tickets),
        houses,
    )


def race_after(race: Race, pawn: Pawn, move: Move, steps: int, luck: Luck, stop: Stop) -> float:
    """The turns the seat still needs after playing ``move`` with ``steps`` left (0: it finishes in this
    turn), and then ``rules`` in every later choice of its race."""
    kind = move["type"]
    if kind == "move" and "edge" in move:
        race.walk_edge(pawn, WALKS[str(move["edge"])])
    elif kind == "fly_with_ticket":  # CH-28
        pawn.tickets.remove("FREE_FLIGHT")
        race.fly(pawn, CITY_OF_AIRPORT[str(move["to"])])
        steps -= FLIGHT_STEPS
    elif kind == "buy_end_city":  # CH-38 to CH-40
        sell = move.get("sell_house")
        if sell is not None:
            pawn.money += SELL_PRICE
            if sell in pawn.owned:
                pawn.owned.discard(str(sell))
            else:
                pawn.houses = max(0, pawn.houses - 1)
        race.buy_end(pawn, str(move["city"]))
    elif kind == "buy_city":  # CH-37
        pawn.money -= PRICE_CITY
        pawn.houses += 1
    elif kind == "buy_flight":  # CH-27
        pawn.money -= PRICE_FLIGHT
        race.fly(pawn, CITY_OF_AIRPORT[str(move["to"])])
        steps -= FLIGHT_STEPS
    race.go(pawn, steps, luck)
    return race.finish(pawn, luck, stop)


def opponent_turns(
    v: Mapping[str, Any], seat: int, rng: random.Random, races: int, stop: Stop
) -> list[list[float]]:
    """Per opponent, the sorted turns it still needs in ``races`` sampled races from its public state;
    its hidden end cities are drawn from the cities this seat has not seen on an end card (as
    ``CityHopperEngine.determinize`` draws them)."""
    visible = {str(c["city"]) for pv in v["players"] for c in pv["end_cities"] if c.get("city")}
    pool = [c for c in CITY_IDS if c not in visible]
    owners = {str(c): int(o) for c, o in v["owners"].items()}
    out = []
    for pv in v["players"]:
        other = int(pv["seat"])
        if other == seat:
            continue
        race = Race(owners, other)
        city, ahead = _position(pv)
        known = [str(c["city"]) for c in pv["end_cities"] if c.get("city")]
        hidden = len(pv["end_cities"]) - len(known)
        turns = []
        for _ in range(races):
            ends = known + rng.sample(pool, hidden)
            pawn = Pawn(
                city,
                ahead,
                int(pv["money"]),
                ends,
                {c for c in ends if owners.get(c) == other},
                int(pv["penalty_points"]),
                [str(b) for b in pv["barred"]],
                [str(t) for t in pv["tickets"]],
                sum(1 for c, o in owners.items() if o == other and c not in ends),
            )
            turns.append(race.finish(pawn, Luck(random.Random(rng.getrandbits(63))), stop))
        out.append(sorted(turns))
    return out


def win_chance(turns: float, opponents: list[list[float]]) -> float:
    """The chance that every opponent needs more turns than ``turns``: the seat on move finishes in
    its turn ``turns``, before the opponents' turn ``turns + 1`` (turn 0 is the current one)."""
    chance = 1.0
    for sample in opponents:
        chance *= (len(sample) - bisect.bisect_right(sample, turns)) / len(sample)
    return chance


def strong(view: View, moves: list[Move], seat: int, rng: random.Random, budget: Budget) -> Move:
    """Race search over ``candidates`` of a walk or purchase decision (other decisions: ``rules``).

    It samples the turns each opponent still needs (``opponent_turns``), then in rounds plays every
    candidate's race (``race_after``) on one shared sample of luck, and scores a candidate by the
    chance that it finishes before every opponent (``win_chance``). It leaves the ``rules`` move only
    for a candidate whose mean paired gain over it is positive by more than ``STRONG_MARGIN_SE``
    standard errors. A race (the seat's or an opponent's) counts as an iteration of the budget; the
    clock is read before every turn of a race, and a round the time cuts short is dropped."""
    started = budget.start()
    stop = stopper(budget, started)
    v = game_view(view)
    if len(moves) == 1:
        return moves[0]
    if moves[0]["type"] == "answer":  # searching over sampled keys would learn nothing
        return answer(v, moves, rng)
    default = rules_move(v, moves, seat, rng)
    if not {str(m["type"]) for m in moves} <= RACE_KINDS or int(v["active"]) != seat:
        return default
    cands = candidates(v, moves, seat)
    if default not in cands:
        cands.append(default)
    if len(cands) == 1:
        return cands[0]
    d = cands.index(default)
    me = Me(v, seat)
    race, pawn, steps = Race(me.owners, seat), own_pawn(me), int(v["steps_remaining"])
    sampled = min(OPPONENT_RACES, max(2, budget.max_iterations // 3))
    try:
        opponents = opponent_turns(v, seat, rng, sampled, stop)
    except OutOfTime:
        return default
    races = sampled * len(opponents)
    gains: list[list[float]] = [[] for _ in cands]
    while not budget.exhausted(started, races + len(cands) - 1):
        luck = Luck(random.Random(rng.getrandbits(63)))
        try:
            values = [
                win_chance(race_after(race, pawn.copy(), m, steps, luck, stop), opponents) for m in cands
            ]
        except OutOfTime:
            break  # a round the time cut short is dropped (the candidates share its luck)
        for k, value in enumerate(values):
            gains[k].append(value - values[d])
        races += len(cands)
    best, best_z = d, 0.0
    for k, g in enumerate(gains):
        if k == d or len(g) < 2:
            continue
        mean = sum(g) / len(g)
        var = sum((x - mean) ** 2 for x in g) / (len(g) - 1)
        se = math.sqrt(var / len(g)) or 1e-9
        if mean > 0 and mean / se > max(STRONG_MARGIN_SE, best_z):
            best, best_z = k, mean / se
    return cands[best]


LEVELS: dict[str, Level] = {"random": uniform, "rules": rules, "strong": strong}

__all__ = ["LEVELS", "distances", "rules_move", "strong"]
