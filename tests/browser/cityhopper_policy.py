"""A CityHopper player that heads for the end: it reads the admin's full view (the answer key, its own
end cities) as only a test may, answers right, buys its end cities and walks to them. Random play runs
for a thousand moves and more; this one ends a 2-player game in a few dozen (CH-36, CH-38, CH-42, CH-47)."""

from __future__ import annotations

import heapq
from functools import cache
from typing import Any

from services.games.engines.cityhopper.board import EDGES_OF, WALKS
from services.games.engines.cityhopper.legal import _answers


@cache
def distances(target: str) -> dict[str, int]:
    """Steps from every city to ``target`` over roads, dikes and boats."""
    dist = {target: 0}
    heap = [(0, target)]
    while heap:
        d, city = heapq.heappop(heap)
        if d > dist.get(city, 1 << 30):
            continue
        for w in EDGES_OF[city]:
            other = w.b if w.a == city else w.a
            if d + w.steps < dist.get(other, 1 << 30):
                dist[other] = d + w.steps
                heapq.heappush(heap, (d + w.steps, other))
    return dist


def targets(view: dict[str, Any], seat: int) -> tuple[list[str], list[str]]:
    """(own end cities still to play away that the seat owns, those it does not own yet)."""
    me = view["players"][seat]
    owners = view.get("owners") or {}
    left = [e["city"] for e in me["end_cities"] if e.get("city") and e["city"] not in (me.get("played_away") or [])]
    owned = [c for c in left if str(owners.get(c)) == str(seat)]
    return owned, [c for c in left if c not in owned]


def choose(view: dict[str, Any], seat: int, legal: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = {m["type"] for m in legal}
    if "answer" in kinds:
        question = view["question"]["question"]
        right, _ = _answers(question)
        for m in legal:
            if m.get("payload") in right:
                return m
        if question.get("category") is not None and "key" in question and "km" in (question["key"] or {}):
            km = float(question["key"]["km"])
            return min(legal, key=lambda m: abs(float(m["payload"].get("km", 0)) - km))
        return legal[0]
    if "buy_end_city" in kinds:
        return next(m for m in legal if m["type"] == "buy_end_city")
    if "skip_purchase" in kinds:
        return next(m for m in legal if m["type"] == "skip_purchase")
    walks = [m for m in legal if m["type"] == "move" and "edge" in m]
    if walks:
        owned, not_owned = targets(view, seat)
        goals = owned or not_owned
        here = view["players"][seat]["position"].get("city")

        def cost(m: dict[str, Any]) -> int:
            w = WALKS[m["edge"]]
            other = w.b if w.a == here else w.a
            return w.steps + min(distances(g).get(other, 1 << 20) for g in goals) if goals else 0
        return min(walks, key=lambda m: (cost(m), m["edge"]))
    return sorted(legal, key=lambda m: str(sorted(m.items())))[0]


def near_end(game: dict[str, Any]) -> bool:
    """Some seat owns its last end city: a few moves from the end (its walk there and the final question)."""
    view = game["view"]
    for seat in range(len(view["players"])):
        owned, not_owned = targets(view, seat)
        if len(owned) == 1 and not not_owned:
            return True
    return False
