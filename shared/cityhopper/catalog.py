"""Typed, cached loaders for the bundled data files (``data/*.json``, see ``data/SOURCE.md``).

The files are read once per process with ``importlib.resources`` and cached; every loader returns
immutable values, so callers can share them freely.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal, cast

from .errors import DataError, UnknownPlaceError

PlaceKind = Literal["capital", "national_capital", "city", "island"]
EdgeType = Literal["road", "dike", "boat", "airport_link", "flight"]

PLACE_KINDS: tuple[PlaceKind, ...] = ("capital", "national_capital", "city", "island")
EDGE_TYPES: tuple[EdgeType, ...] = ("road", "dike", "boat", "airport_link", "flight")


@dataclass(frozen=True)
class Place:
    """One of the 82 places (cities and Wadden islands) of ``cities.json``."""

    id: str
    name: str
    province: str
    kind: PlaceKind
    lat: float
    lon: float
    population: int | None
    population_source: str
    airport: bool
    airport_name: str | None
    geonameid: int | None
    note: str | None

    @property
    def is_capital(self) -> bool:
        """A provincial capital (red square). Amsterdam is not one (``national_capital``)."""
        return self.kind == "capital"

    @property
    def is_island(self) -> bool:
        return self.kind == "island"


@dataclass(frozen=True)
class Airport:
    """An airport square (node ``airport:<city>``) beside its city (CH-26)."""

    id: str
    city: str
    name: str


@dataclass(frozen=True)
class Edge:
    """One board edge. ``a``/``b`` are place ids, or airport ids for ``airport_link``/``flight``."""

    id: str
    type: EdgeType
    a: str
    b: str
    straight_km: float | None
    intermediate_squares: int
    steps: int
    fare_eur: int | None
    name: str | None
    corridor: str | None

    def other(self, node: str) -> str:
        """The far end seen from ``node``."""
        if node == self.a:
            return self.b
        if node == self.b:
            return self.a
        raise ValueError(f"{node!r} is not an end of edge {self.id!r}")


@dataclass(frozen=True)
class Board:
    edges: tuple[Edge, ...]
    airports: tuple[Airport, ...]

    def edges_of_type(self, *types: EdgeType) -> tuple[Edge, ...]:
        return tuple(e for e in self.edges if e.type in types)

    def edge(self, edge_id: str) -> Edge:
        for e in self.edges:
            if e.id == edge_id:
                return e
        raise KeyError(edge_id)


@dataclass(frozen=True)
class ChanceCard:
    """A green chance card (cityhopper.md section 5)."""

    id: str
    title: str
    text: str
    effect: str
    params: Mapping[str, Any]
    ticket_symbol: bool


@dataclass(frozen=True)
class ChanceDeck:
    cards: tuple[ChanceCard, ...]
    ticket_stock: Mapping[str, int]


def _read_json(name: str) -> dict[str, Any]:
    try:
        text = resources.files("shared.cityhopper.data").joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError) as exc:  # pragma: no cover - broken install
        raise DataError(f"bundled data file {name!r} is missing") from exc
    data = json.loads(text)
    if not isinstance(data, dict):
        raise DataError(f"{name}: expected a JSON object")
    return data


def _opt_str(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    return None if value is None else str(value)


@cache
def places() -> tuple[Place, ...]:
    """All 82 places in ``cities.json`` order."""
    raw = _read_json("cities.json")
    out: list[Place] = []
    for c in raw["cities"]:
        kind = c["kind"]
        if kind not in PLACE_KINDS:
            raise DataError(f"cities.json: {c['id']}: unknown kind {kind!r}")
        population = c.get("population")
        geonameid = c.get("geonameid")
        out.append(
            Place(
                id=str(c["id"]),
                name=str(c["name"]),
                province=str(c["province"]),
                kind=cast(PlaceKind, kind),
                lat=float(c["lat"]),
                lon=float(c["lon"]),
                population=None if population is None else int(population),
                population_source=str(c.get("population_source", "")),
                airport=bool(c.get("airport", False)),
                airport_name=_opt_str(c, "airport_name"),
                geonameid=None if geonameid is None else int(geonameid),
                note=_opt_str(c, "note"),
            )
        )
    if len({p.id for p in out}) != len(out):
        raise DataError("cities.json: duplicate place ids")
    return tuple(out)


@cache
def place_index() -> Mapping[str, Place]:
    """Places by id (read-only)."""
    return MappingProxyType({p.id: p for p in places()})


def place(place_id: str) -> Place:
    """The place with this id; ``UnknownPlaceError`` otherwise."""
    try:
        return place_index()[place_id]
    except KeyError:
        raise UnknownPlaceError(place_id) from None


@cache
def data_sources() -> Mapping[str, str]:
    """The ``sources`` field of ``cities.json`` (provenance of coordinates and populations)."""
    return MappingProxyType({str(k): str(v) for k, v in _read_json("cities.json")["sources"].items()})


@cache
def board() -> Board:
    """The board graph of ``board.json``."""
    raw = _read_json("board.json")
    airports = tuple(Airport(id=a["id"], city=a["city"], name=a["name"]) for a in raw["airports"])
    edges: list[Edge] = []
    for e in raw["edges"]:
        etype = e["type"]
        if etype not in EDGE_TYPES:
            raise DataError(f"board.json: {e['id']}: unknown edge type {etype!r}")
        straight = e.get("straight_km")
        fare = e.get("fare_eur")
        edges.append(
            Edge(
                id=str(e["id"]),
                type=cast(EdgeType, etype),
                a=str(e["a"]),
                b=str(e["b"]),
                straight_km=None if straight is None else float(straight),
                intermediate_squares=int(e.get("intermediate_squares", 0)),
                steps=int(e.get("steps", 1)),
                fare_eur=None if fare is None else int(fare),
                name=_opt_str(e, "name"),
                corridor=_opt_str(e, "corridor"),
            )
        )
    return Board(edges=tuple(edges), airports=airports)


@cache
def chance_deck() -> ChanceDeck:
    """The 50 green chance cards and the ticket stock of ``chance_cards.json``."""
    raw = _read_json("chance_cards.json")
    cards = tuple(
        ChanceCard(
            id=str(c["id"]),
            title=str(c["title"]),
            text=str(c["text"]),
            effect=str(c["effect"]),
            params=MappingProxyType(dict(c.get("params") or {})),
            ticket_symbol=bool(c.get("ticket_symbol", False)),
        )
        for c in raw["cards"]
    )
    stock = MappingProxyType({str(k): int(v) for k, v in raw["tickets"]["stock"].items()})
    return ChanceDeck(cards=cards, ticket_stock=stock)


def chance_cards() -> tuple[ChanceCard, ...]:
    return chance_deck().cards


@dataclass(frozen=True)
class Constants:
    """The numbers of ``rules_constants.json`` (``raw`` keeps the whole file)."""

    min_players: int
    max_players: int
    starting_money_eur: int
    houses_per_player: int
    reward_correct_eur: int
    reward_final_correct_eur: int
    toll_eur: int
    price_city_eur: int
    price_end_city_eur: int
    price_end_city_with_end_city_20_ticket_eur: int
    price_flight_eur: int
    house_sell_price_eur: int
    penalty_points_limit: int
    flight_steps: int
    dike_steps: int
    boat_steps: int
    distance_margin: float
    die_faces: int
    categories: Mapping[int, str]
    raw: Mapping[str, Any]


@cache
def constants() -> Constants:
    raw = _read_json("rules_constants.json")
    return Constants(
        min_players=int(raw["players"]["min"]),
        max_players=int(raw["players"]["max"]),
        starting_money_eur=int(raw["starting_money_eur"]["default"]),
        houses_per_player=int(raw["houses_per_player"]),
        reward_correct_eur=int(raw["reward_correct_eur"]),
        reward_final_correct_eur=int(raw["reward_final_correct_eur"]),
        toll_eur=int(raw["toll_eur"]),
        price_city_eur=int(raw["price_city_eur"]),
        price_end_city_eur=int(raw["price_end_city_eur"]),
        price_end_city_with_end_city_20_ticket_eur=int(raw["price_end_city_with_END_CITY_20_ticket_eur"]),
        price_flight_eur=int(raw["price_flight_eur"]),
        house_sell_price_eur=int(raw["house_sell_price_eur"]),
        penalty_points_limit=int(raw["penalty_points_limit"]),
        flight_steps=int(raw["flight_steps"]),
        dike_steps=int(raw["dike_steps"]),
        boat_steps=int(raw["boat_steps"]),
        distance_margin=float(raw["distance_margin"]),
        die_faces=int(raw["die_faces"]),
        categories=MappingProxyType({int(k): str(v) for k, v in raw["categories"].items()}),
        raw=MappingProxyType(raw),
    )
