"""The board graph as the engine walks it (cityhopper.md 2.3, data from ``shared.cityhopper``).

Walkable edges leave a city: road (grey squares), dike and boat. Airport squares sit beside their
city and are entered only as part of a flight (CH-26). ``go_to_routes`` answers CH-55.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from shared.cityhopper import catalog

WALK_TYPES = ("road", "dike", "boat")


@dataclass(frozen=True)
class Walk:
    """A walkable edge: id, type, ends a/b, grey squares, steps, fare (boats)."""

    id: str
    type: str
    a: str
    b: str
    squares: int
    steps: int
    fare: int

    def other(self, city: str) -> str:
        return self.b if city == self.a else self.a


def _walks() -> tuple[Walk, ...]:
    out = []
    for e in catalog.board().edges:
        if e.type in WALK_TYPES:
            squares = e.intermediate_squares if e.type == "road" else 0
            out.append(Walk(e.id, e.type, e.a, e.b, squares, squares + 1, int(e.fare_eur or 0)))
    return tuple(out)


WALKS: Mapping[str, Walk] = MappingProxyType({w.id: w for w in _walks()})
CITY_IDS: tuple[str, ...] = tuple(p.id for p in catalog.places())
CITIES: frozenset[str] = frozenset(CITY_IDS)
CAPITALS: frozenset[str] = frozenset(p.id for p in catalog.places() if p.is_capital)
ISLANDS: frozenset[str] = frozenset(p.id for p in catalog.places() if p.is_island)
AIRPORT_OF: Mapping[str, str] = MappingProxyType({a.city: a.id for a in catalog.board().airports})
"""city id -> airport square id"""
CITY_OF_AIRPORT: Mapping[str, str] = MappingProxyType({a.id: a.city for a in catalog.board().airports})
AIRPORT_LINK: Mapping[str, str] = MappingProxyType(
    {e.b if e.a in CITIES else e.a: e.id for e in catalog.board().edges if e.type == "airport_link"}
)
"""airport square id -> airport_link edge id"""


def _edges_of() -> dict[str, tuple[Walk, ...]]:
    out: dict[str, list[Walk]] = {c: [] for c in CITY_IDS}
    for w in WALKS.values():
        out[w.a].append(w)
        out[w.b].append(w)
    return {c: tuple(sorted(ws, key=lambda w: w.id)) for c, ws in out.items()}


EDGES_OF: Mapping[str, tuple[Walk, ...]] = MappingProxyType(_edges_of())
"""city id -> walkable edges touching it, sorted by id"""


def place_name(city: str) -> str:
    return catalog.place(city).name


@cache
def go_to_routes(source: str, target: str) -> tuple[tuple[str, ...], ...]:
    """CH-55: every shortest route in steps from ``source`` to ``target`` (city id lists, both
    ends included), sorted so the first is the default (lexicographically smallest). Road and dike
    edges always count; boat edges only when the target is an island or the pawn stands on one."""
    boats = target in ISLANDS or source in ISLANDS
    dist: dict[str, int] = {source: 0}
    preds: dict[str, list[str]] = {source: []}
    heap: list[tuple[int, str]] = [(0, source)]
    done: set[str] = set()
    while heap:
        d, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        for w in EDGES_OF[node]:
            if w.type == "boat" and not boats:
                continue
            nb = w.other(node)
            nd = d + w.steps
            if nb not in dist or nd < dist[nb]:
                dist[nb] = nd
                preds[nb] = [node]
                heapq.heappush(heap, (nd, nb))
            elif nd == dist[nb] and node not in preds[nb]:
                preds[nb].append(node)
    if target not in dist:
        return ()
    routes: list[tuple[str, ...]] = []

    def back(node: str, tail: tuple[str, ...]) -> None:
        if node == source:
            routes.append((source, *tail))
            return
        for p in preds[node]:
            back(p, (node, *tail))

    back(target, ())
    return tuple(sorted(routes))
