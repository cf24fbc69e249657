"""Road distance and route between two places (cityhopper.md section 4, category 1; R-29).

The port is ``RoutingBackend``: ``route(from_id, to_id) -> Route``. Three implementations:

* ``EstimateBackend`` (built in, pure): the shortest path over the board's road, dike and boat
  links (never flights nor airport links). Each link is as long as the great-circle distance
  between its two place points (haversine, R = 6371.0 km) times a circuity factor for its type:

  - road ``ROAD_CIRCUITY = 1.15``. The classic detour index of a road network is 1.2-1.3, but a
    route over the board already zig-zags through the board's cities, which adds its own detour.
    1.15 is the median of (real car distance / straight-line board path) over the 17 reference
    pairs in ``REFERENCE_KM``; with it all 17 lie within 13 % of the real figure, where 1.25 would
    put four of them more than 15 % too long (the long board paths zig-zag the most).
  - dike ``DIKE_CIRCUITY = 1.30``. The town points lie away from the dike heads: Den Helder to the
    Afsluitdijk runs round the Balgzand (N99/A7 via Den Oever), Enkhuizen and Lelystad reach the
    Houtribdijk through their outskirts. About 65 km Den Helder-Harlingen and 32 km
    Enkhuizen-Lelystad, against 50.3 and 25.0 km straight.
  - boat ``FERRY_CIRCUITY = 1.50``. A boat link runs from a town point to an island village: road
    to the harbour, a sailing that follows the winding Wadden channels, and the road on the island.
    Den Helder-Texel: about 3 km to the TESO terminal, the 4.2 km crossing (TESO: "The distance
    between Den Helder and Texel is 4,200 metres"), about 8 km from 't Horntje to Den Burg =
    about 15 km against 10.8 km straight; the longer crossings (Harlingen-Vlieland/Terschelling,
    1.5-2 hours of sailing) bend at least as much.

  Link lengths are whole metres, so sums are exact and ``route(a, b).km == route(b, a).km``.
  Ties between equally long paths go to the lexicographically smallest list of place ids, and
  ``route(b, a)`` is always the reverse of ``route(a, b)``.
* ``OsrmBackend``: a real car route from an OSRM server. The HTTP GET is an injected callable, so
  this package holds no network code.
* ``CachedRouting`` (a memo per ordered pair, section 4) and ``FallbackRouting`` (e.g. OSRM first,
  the estimate when OSRM has no route: Vlieland and Schiermonnikoog are car-free).

Every route carries its ``km`` (rounded to 0.1), the ordered place ids, a GeoJSON LineString
(``[lon, lat]`` positions), the inclusive 15 % bounds and a ``method`` string saying how it was made.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from .catalog import Board, EdgeType, Place, board, place_index
from .errors import RoutingError, UnknownPlaceError
from .geo import haversine_km

ROAD_CIRCUITY = 1.15
DIKE_CIRCUITY = 1.30
FERRY_CIRCUITY = 1.50
CIRCUITY: Mapping[EdgeType, float] = {"road": ROAD_CIRCUITY, "dike": DIKE_CIRCUITY, "boat": FERRY_CIRCUITY}
"""Link types the estimate routes over, with their circuity factors (no flights, no airport links)."""

REFERENCE_KM: Mapping[tuple[str, str], float] = {
    # Car distances centre to centre, rounded. Groningen-Maastricht: 338 km driven by RTV Noord
    # (Grote Markt -> Vrijthof, 2019-11). The others are approximate route-planner figures
    # (ANWB / Google Maps style, fastest route), used to calibrate ROAD_CIRCUITY.
    ("amsterdam", "leiden"): 45,
    ("amsterdam", "utrecht"): 45,
    ("amsterdam", "rotterdam"): 78,
    ("amsterdam", "den-haag"): 60,
    ("amsterdam", "eindhoven"): 123,
    ("amsterdam", "maastricht"): 213,
    ("amsterdam", "groningen"): 183,
    ("amsterdam", "leeuwarden"): 140,
    ("rotterdam", "utrecht"): 57,
    ("utrecht", "arnhem"): 64,
    ("groningen", "maastricht"): 338,
    ("breda", "eindhoven"): 60,
    ("enschede", "zwolle"): 75,
    ("groningen", "leeuwarden"): 62,
    ("rotterdam", "eindhoven"): 110,
    ("utrecht", "zwolle"): 90,
    ("den-haag", "rotterdam"): 26,
}

DISTANCE_MARGIN = Decimal("0.15")
"""Section 4: a guess is right when |guess - exact| <= 0.15 * exact (inclusive, R-29)."""

ESTIMATE_METHOD = (
    "estimate: great-circle x factor over board links "
    f"(road x{ROAD_CIRCUITY:.2f}, dike x{DIKE_CIRCUITY:.2f}, ferry x{FERRY_CIRCUITY:.2f}; no flights)"
)


def decimal_km(km: float | int | Decimal) -> Decimal:
    """The exact decimal a km figure denotes (``45.1`` is 45.1, not the nearest binary float)."""
    if isinstance(km, Decimal):
        return km
    return Decimal(repr(km)) if isinstance(km, float) else Decimal(km)


def distance_bounds(km: float | int | Decimal) -> tuple[float, float]:
    """The inclusive bounds ``exact -/+ 0.15 x exact``, computed in decimal (exact for 0.1 km input)."""
    exact = decimal_km(km)
    delta = exact * DISTANCE_MARGIN
    return float(exact - delta), float(exact + delta)


def round_km(km: float) -> float:
    """Round to 0.1 km, halves away from zero (deterministic, unlike binary ``round`` on .x5)."""
    return float(Decimal(repr(km)).quantize(Decimal("0.1"), rounding="ROUND_HALF_UP"))


@dataclass(frozen=True)
class Route:
    """A road route from ``from_id`` to ``to_id``.

    ``place_ids`` lists the places passed, both ends included (one element when from == to);
    ``geometry`` is a GeoJSON LineString with ``[lon, lat]`` positions (at least two, so a
    same-place route repeats its point); ``edge_ids`` names the board links used (estimate only).
    """

    from_id: str
    to_id: str
    km: float
    place_ids: tuple[str, ...]
    geometry: Mapping[str, Any]
    method: str
    edge_ids: tuple[str, ...] = field(default=())

    @property
    def lower_km(self) -> float:
        return distance_bounds(self.km)[0]

    @property
    def upper_km(self) -> float:
        return distance_bounds(self.km)[1]

    def reversed(self) -> Route:
        coords = list(self.geometry.get("coordinates", []))
        return Route(
            from_id=self.to_id,
            to_id=self.from_id,
            km=self.km,
            place_ids=tuple(reversed(self.place_ids)),
            geometry={"type": "LineString", "coordinates": coords[::-1]},
            method=self.method,
            edge_ids=tuple(reversed(self.edge_ids)),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the fields plus ``lower_km``/``upper_km``."""
        return {
            "from": self.from_id,
            "to": self.to_id,
            "km": self.km,
            "lower_km": self.lower_km,
            "upper_km": self.upper_km,
            "place_ids": list(self.place_ids),
            "edge_ids": list(self.edge_ids),
            "geometry": {
                "type": "LineString",
                "coordinates": [list(c) for c in self.geometry["coordinates"]],
            },
            "method": self.method,
        }


class RoutingBackend(Protocol):
    """The routing port: the road route from one place to another (place ids of ``cities.json``)."""

    def route(self, from_id: str, to_id: str) -> Route: ...


def _line(points: list[Place]) -> dict[str, Any]:
    coords = [[p.lon, p.lat] for p in points]
    if len(coords) == 1:
        coords = coords * 2
    return {"type": "LineString", "coordinates": coords}


def _place(places: Mapping[str, Place], place_id: str) -> Place:
    try:
        return places[place_id]
    except KeyError:
        raise UnknownPlaceError(place_id) from None


def zero_route(p: Place, method: str) -> Route:
    """The 0 km route of a place to itself (section 4: Y = A)."""
    return Route(from_id=p.id, to_id=p.id, km=0.0, place_ids=(p.id,), geometry=_line([p]), method=method)


class EstimateBackend:
    """The built-in estimate: Dijkstra over road/dike/boat links with circuity factors (module doc)."""

    def __init__(
        self,
        places: Mapping[str, Place] | None = None,
        graph: Board | None = None,
        circuity: Mapping[EdgeType, float] | None = None,
    ) -> None:
        self._places = place_index() if places is None else places
        factors = CIRCUITY if circuity is None else circuity
        self.method = ESTIMATE_METHOD if circuity is None else f"estimate: great-circle x {dict(factors)}"
        # node -> sorted list of (neighbour, metres, edge id)
        adj: dict[str, list[tuple[str, int, str]]] = {pid: [] for pid in self._places}
        for e in (board() if graph is None else graph).edges:
            factor = factors.get(e.type)
            if factor is None:
                continue
            a, b = _place(self._places, e.a), _place(self._places, e.b)
            metres = round(haversine_km(a.lat, a.lon, b.lat, b.lon) * factor * 1000)
            adj[a.id].append((b.id, metres, e.id))
            adj[b.id].append((a.id, metres, e.id))
        self._adj = {k: sorted(v) for k, v in adj.items()}

    def link_metres(self, from_id: str, to_id: str) -> int:
        """Length in metres of the direct link between two neighbouring places."""
        for nb, metres, _ in self._adj.get(from_id, []):
            if nb == to_id:
                return metres
        raise RoutingError(f"no road, dike or boat link between {from_id!r} and {to_id!r}")

    def route(self, from_id: str, to_id: str) -> Route:
        start, goal = _place(self._places, from_id), _place(self._places, to_id)
        if start.id == goal.id:
            return zero_route(start, self.method)
        if start.id > goal.id:  # one canonical direction: b -> a is the exact reverse of a -> b
            return self.route(goal.id, start.id).reversed()
        metres, path, edges = self._shortest(start.id, goal.id)
        return Route(
            from_id=start.id,
            to_id=goal.id,
            km=round_km(metres / 1000),
            place_ids=path,
            geometry=_line([self._places[p] for p in path]),
            method=self.method,
            edge_ids=edges,
        )

    def _shortest(self, source: str, target: str) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        # Entries order by (metres, path); the first pop of a node is its shortest path with the
        # lexicographically smallest place-id list (subpaths of such paths are such paths too).
        best: dict[str, tuple[int, tuple[str, ...]]] = {source: (0, (source,))}
        heap: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = [(0, (source,), ())]
        done: set[str] = set()
        while heap:
            dist, path, edges = heapq.heappop(heap)
            node = path[-1]
            if node in done:
                continue
            done.add(node)
            if node == target:
                return dist, path, edges
            for nb, metres, edge_id in self._adj[node]:
                if nb in done:
                    continue
                cand = (dist + metres, (*path, nb))
                if nb not in best or cand < best[nb]:
                    best[nb] = cand
                    heapq.heappush(heap, (cand[0], cand[1], (*edges, edge_id)))
        raise RoutingError(f"no route from {source!r} to {target!r} over road, dike and boat links")


Fetch = Callable[[str], Mapping[str, Any]]
"""An HTTP GET of a URL returning the decoded JSON body (supplied by the service)."""


class OsrmBackend:
    """A car route from an OSRM server; ``fetch`` does the HTTP GET (this package does no I/O).

    ``url(a, b)`` builds from the place points
    ``{base}/route/v1/{profile}/{lon},{lat};{lon},{lat}?overview=full&geometries=geojson``;
    ``parse(a, b, body)`` turns OSRM's JSON into a ``Route`` (``RoutingError``
    when OSRM found no route or the body is malformed). A place to itself is 0 km without a request.
    """

    def __init__(
        self,
        fetch: Fetch,
        base_url: str = "https://router.project-osrm.org",
        profile: str = "driving",
        places: Mapping[str, Place] | None = None,
    ) -> None:
        self._fetch = fetch
        self.base_url = base_url.rstrip("/")
        self.profile = profile
        self._places = place_index() if places is None else places

    @property
    def method(self) -> str:
        return f"osrm: {self.base_url} profile {self.profile}, point to point"

    def url(self, from_id: str, to_id: str) -> str:
        a, b = _place(self._places, from_id), _place(self._places, to_id)
        return (
            f"{self.base_url}/route/v1/{self.profile}/{a.lon!r},{a.lat!r};{b.lon!r},{b.lat!r}"
            "?overview=full&geometries=geojson"
        )

    def route(self, from_id: str, to_id: str) -> Route:
        a = _place(self._places, from_id)
        if from_id == to_id:
            return zero_route(a, self.method)
        return self.parse(from_id, to_id, self._fetch(self.url(from_id, to_id)))

    def parse(self, from_id: str, to_id: str, body: Mapping[str, Any]) -> Route:
        _place(self._places, from_id)
        _place(self._places, to_id)
        code = body.get("code") if isinstance(body, Mapping) else None
        if code != "Ok":
            message = body.get("message", "") if isinstance(body, Mapping) else ""
            raise RoutingError(f"OSRM {from_id}->{to_id}: code {code!r} {message}".strip())
        routes = body.get("routes")
        if not isinstance(routes, list) or not routes or not isinstance(routes[0], Mapping):
            raise RoutingError(f"OSRM {from_id}->{to_id}: no routes in response")
        first = routes[0]
        distance = first.get("distance")
        if isinstance(distance, bool) or not isinstance(distance, int | float) or not math.isfinite(distance):
            raise RoutingError(f"OSRM {from_id}->{to_id}: route has no numeric distance")
        if distance < 0:
            raise RoutingError(f"OSRM {from_id}->{to_id}: negative distance")
        geometry = first.get("geometry")
        if not isinstance(geometry, Mapping) or geometry.get("type") != "LineString":
            raise RoutingError(f"OSRM {from_id}->{to_id}: geometry is not a GeoJSON LineString")
        coords_raw = geometry.get("coordinates")
        if not isinstance(coords_raw, list) or len(coords_raw) < 2:
            raise RoutingError(f"OSRM {from_id}->{to_id}: LineString needs at least two positions")
        coords: list[list[float]] = []
        for pos in coords_raw:
            if not isinstance(pos, list | tuple) or len(pos) < 2:
                raise RoutingError(f"OSRM {from_id}->{to_id}: bad position {pos!r}")
            coords.append([float(pos[0]), float(pos[1])])
        return Route(
            from_id=from_id,
            to_id=to_id,
            km=round_km(float(distance) / 1000),
            place_ids=(from_id, to_id),
            geometry={"type": "LineString", "coordinates": coords},
            method=self.method,
        )


class CachedRouting:
    """Memoises another backend per ordered pair (section 4: "Cache it per ordered pair")."""

    def __init__(self, backend: RoutingBackend) -> None:
        self.backend = backend
        self._memo: dict[tuple[str, str], Route] = {}

    def route(self, from_id: str, to_id: str) -> Route:
        key = (from_id, to_id)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self.backend.route(from_id, to_id)
        return hit

    def __len__(self) -> int:
        return len(self._memo)

    def clear(self) -> None:
        self._memo.clear()


class FallbackRouting:
    """Ask ``primary``; on ``RoutingError`` (e.g. OSRM has no car route to a car-free island) ask
    ``fallback``. Errors of the fallback propagate."""

    def __init__(self, primary: RoutingBackend, fallback: RoutingBackend) -> None:
        self.primary = primary
        self.fallback = fallback

    def route(self, from_id: str, to_id: str) -> Route:
        try:
            return self.primary.route(from_id, to_id)
        except RoutingError:
            return self.fallback.route(from_id, to_id)


_DEFAULT: list[CachedRouting] = []


def default_routing() -> CachedRouting:
    """A process-wide cached ``EstimateBackend`` (pure and deterministic, safe to share)."""
    if not _DEFAULT:
        _DEFAULT.append(CachedRouting(EstimateBackend()))
    return _DEFAULT[0]
