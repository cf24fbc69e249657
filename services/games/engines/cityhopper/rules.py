"""Read-only rule queries shared by ``decide``, ``legal_moves`` and ``evolve``."""

from __future__ import annotations

from .board import AIRPORT_OF, CITY_OF_AIRPORT, EDGES_OF, ISLANDS, Walk
from .state import (
    FLIGHT_STEPS,
    PRICE_END_CITY,
    PRICE_END_CITY_20,
    Player,
    Pos,
    State,
)


def boat_free(p: Player, w: Walk, far: str) -> bool:
    """CH-50 / R-16: a FREE_BOAT ticket pays a boat trip whose destination is an island."""
    return w.type == "boat" and far in ISLANDS and "FREE_BOAT" in p.tickets


def edge_problem(s: State, seat: int, w: Walk) -> tuple[str, str, str] | None:
    """Why pawn ``seat`` (on a city) may not start along ``w``: (rule, code, message) or None."""
    p = s.players[seat]
    city = p.pos.at
    if p.pos.kind != "city" or city not in (w.a, w.b):
        return ("CH-11", "edge_not_here", f"edge {w.id} does not leave {city}")
    far = w.other(city)
    if far in p.barred:
        return ("CH-20", "barred", f"you may not go towards {far}: answer correctly elsewhere first")
    if w.type == "boat" and not boat_free(p, w, far) and p.money < w.fare:
        return ("CH-24", "fare", f"the boat to {far} costs EUR {w.fare} and you have EUR {p.money}")
    return None


def walk_options(s: State, seat: int) -> list[Walk]:
    p = s.players[seat]
    if p.pos.kind != "city":
        return []
    return [w for w in EDGES_OF[p.pos.at] if edge_problem(s, seat, w) is None]


def flight_problem(s: State, seat: int, to: str) -> tuple[str, str, str] | None:
    """CH-27 conditions shared by buying and ticket flights (money and ticket checked by callers)."""
    p = s.players[seat]
    if p.pos.kind != "city" or p.pos.at not in AIRPORT_OF:
        return ("CH-27", "not_at_airport_city", "you can fly only from a city with an airport")
    if to not in CITY_OF_AIRPORT:
        return ("CH-26", "unknown_airport", f"{to!r} is not an airport square")
    if to == AIRPORT_OF[p.pos.at]:
        return ("CH-26", "same_airport", "a flight goes to another airport")
    if s.steps < FLIGHT_STEPS:
        return ("CH-27", "steps", f"a flight needs 2 steps; you have {s.steps}")
    if CITY_OF_AIRPORT[to] in p.barred:
        return ("CH-20", "barred", f"{CITY_OF_AIRPORT[to]} is barred for you")
    return None


def flight_options(s: State, seat: int) -> list[str]:
    p = s.players[seat]
    if p.pos.kind != "city" or p.pos.at not in AIRPORT_OF:
        return []
    return [a for a in sorted(CITY_OF_AIRPORT) if flight_problem(s, seat, a) is None]


def ticket_flights(s: State, seat: int) -> list[str]:
    """CH-28: free flights open to a ticket holder now."""
    if "FREE_FLIGHT" not in s.players[seat].tickets:
        return []
    return flight_options(s, seat)


def has_legal_step(s: State, seat: int) -> bool:
    """CH-10 / CH-21: is there any legal next step (a walk, the airport exit, a ticket flight)?"""
    p = s.players[seat]
    if p.pos.kind != "city":
        return True
    return bool(walk_options(s, seat)) or bool(ticket_flights(s, seat))


def is_final(s: State, seat: int, city: str) -> bool:
    """CH-42: entering an end city the player owns."""
    return s.owners.get(city) == seat and city in s.players[seat].end_cities()


def end_city_price(p: Player) -> tuple[int, str | None]:
    """CH-38, CH-51 to CH-53: (price, ticket spent)."""
    if "END_CITY_20" in p.tickets:
        return PRICE_END_CITY_20, "END_CITY_20"
    if "FREE_END_CITY" in p.tickets:
        return 0, "FREE_END_CITY"
    return PRICE_END_CITY, None


def edge_target(pos: Pos) -> str:
    """The city a pawn on an edge square walks to."""
    return pos.heading


def next_seat(s: State, seat: int) -> int:
    return (seat + 1) % s.num_players


def right_neighbour(s: State, seat: int) -> int:
    """R-24: the player seated just before you."""
    return (seat - 1) % s.num_players
