"""Road distance (section 4, category 1; R-29): the estimate backend, OSRM parsing and the cache."""

from itertools import combinations
from typing import Any

import pytest

from shared.cityhopper import catalog
from shared.cityhopper.errors import RoutingError, UnknownPlaceError
from shared.cityhopper.roads import (
    REFERENCE_KM,
    CachedRouting,
    EstimateBackend,
    FallbackRouting,
    OsrmBackend,
    Route,
    distance_bounds,
    round_km,
)

ESTIMATE = EstimateBackend()


def within_15_percent(km: float, real: float) -> bool:
    return abs(km - real) <= 0.15 * real


def test_every_pair_of_the_82_places_is_routable_and_symmetric() -> None:
    ids = [p.id for p in catalog.places()]
    for a, b in combinations(ids, 2):
        ab, ba = ESTIMATE.route(a, b), ESTIMATE.route(b, a)
        assert ab.km > 0
        assert ab.km == ba.km, (a, b)
        assert ab.place_ids[0] == a and ab.place_ids[-1] == b
        assert ba.place_ids == tuple(reversed(ab.place_ids))


def test_same_city_is_zero_km() -> None:
    r = ESTIMATE.route("assen", "assen")  # E15
    assert r.km == 0.0 and r.lower_km == 0.0 and r.upper_km == 0.0
    assert r.place_ids == ("assen",)
    assert len(r.geometry["coordinates"]) == 2


def test_amsterdam_leiden_plausible() -> None:
    # Real: about 45 km by car centre to centre over the A4 (route planners, e.g. ANWB/Google Maps).
    r = ESTIMATE.route("amsterdam", "leiden")
    assert within_15_percent(r.km, 45.0), r.km
    assert r.place_ids == ("amsterdam", "leiden")


def test_groningen_maastricht_plausible() -> None:
    # Real: 338 km, Grote Markt Groningen -> Vrijthof Maastricht over Dutch motorways, driven by
    # RTV Noord on 2019-11 ("Van Stad naar Maastricht: 100 km/uur is sneller ..."); planners give
    # about 340-350 km.
    r = ESTIMATE.route("groningen", "maastricht")
    assert within_15_percent(r.km, 338.0), r.km
    assert within_15_percent(r.km, 345.0), r.km
    assert all(e.startswith(("road:", "dike:")) for e in r.edge_ids)


def test_calibration_pairs_within_15_percent() -> None:
    # REFERENCE_KM documents where the figures come from (roads.py).
    for (a, b), real in REFERENCE_KM.items():
        km = ESTIMATE.route(a, b).km
        assert within_15_percent(km, real), (a, b, km, real)


def test_den_helder_texel_includes_the_ferry() -> None:
    # Real: about 15 km from the Den Helder point to Den Burg (Texel's point in cities.json):
    # ~3 km to the TESO terminal, the 4.2 km crossing (teso.nl: "The distance between Den Helder
    # and Texel is 4,200 metres"), ~8 km from 't Horntje to Den Burg over the N501.
    r = ESTIMATE.route("den-helder", "texel")
    assert r.edge_ids == ("boat:den-helder--texel",)
    assert within_15_percent(r.km, 15.0), r.km


def test_no_flights_in_estimate_routes() -> None:
    r = ESTIMATE.route("groningen", "maastricht")  # both airports (CH-26), still by road
    assert not any(e.startswith(("flight:", "airport_link:")) for e in r.edge_ids)
    assert r.km > 250


def test_island_routes_take_boats() -> None:
    r = ESTIMATE.route("utrecht", "schiermonnikoog")
    assert r.edge_ids[-1].startswith("boat:")


def test_route_shape_and_geojson() -> None:
    r = ESTIMATE.route("den-haag", "rotterdam")
    geometry = r.geometry
    assert geometry["type"] == "LineString"
    first = geometry["coordinates"][0]
    dh = catalog.place("den-haag")
    assert first == [dh.lon, dh.lat]  # GeoJSON order: [lon, lat]
    assert len(geometry["coordinates"]) == len(r.place_ids)
    assert r.method.startswith("estimate: great-circle x factor over board links")
    d = r.to_dict()
    assert d["lower_km"] == r.lower_km and d["upper_km"] == r.upper_km and d["km"] == r.km


def test_bounds_are_exact_15_percent() -> None:
    assert distance_bounds(100) == (85.0, 115.0)
    assert distance_bounds(45.1) == (38.335, 51.865)
    assert round_km(0.05) == 0.1 and round_km(41.54) == 41.5


def test_unknown_place() -> None:
    with pytest.raises(UnknownPlaceError):
        ESTIMATE.route("amsterdam", "atlantis")


# A response in the shape of OSRM's HTTP API (route service, overview=full&geometries=geojson);
# geometry shortened, numbers of the order OSRM reports for Amsterdam -> Leiden.
OSRM_SAMPLE: dict[str, Any] = {
    "code": "Ok",
    "routes": [
        {
            "geometry": {
                "coordinates": [
                    [4.889713, 52.374057],
                    [4.886421, 52.373198],
                    [4.853317, 52.338671],
                    [4.760236, 52.282146],
                    [4.568722, 52.193204],
                    [4.493025, 52.158361],
                ],
                "type": "LineString",
            },
            "legs": [
                {
                    "steps": [],
                    "summary": "",
                    "weight": 2711.4,
                    "duration": 2654.9,
                    "distance": 44873.6,
                }
            ],
            "weight_name": "routability",
            "weight": 2711.4,
            "duration": 2654.9,
            "distance": 44873.6,
        }
    ],
    "waypoints": [
        {"hint": "x1", "distance": 3.1, "name": "Dam", "location": [4.889713, 52.374057]},
        {"hint": "x2", "distance": 5.2, "name": "Breestraat", "location": [4.493025, 52.158361]},
    ],
}


def test_osrm_url_and_parse() -> None:
    calls: list[str] = []

    def fetch(url: str) -> dict[str, Any]:
        calls.append(url)
        return OSRM_SAMPLE

    osrm = OsrmBackend(fetch, base_url="http://osrm.local:5000/")
    r = osrm.route("amsterdam", "leiden")
    assert calls == [
        "http://osrm.local:5000/route/v1/driving/4.88969,52.37403;4.49306,52.15833"
        "?overview=full&geometries=geojson"
    ]
    assert r.km == 44.9
    assert r.place_ids == ("amsterdam", "leiden")
    assert r.geometry["coordinates"][0] == [4.889713, 52.374057]
    assert r.method.startswith("osrm: http://osrm.local:5000")
    assert osrm.route("leiden", "leiden").km == 0.0 and len(calls) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"code": "NoRoute", "message": "Impossible route between points", "routes": []},
        {"code": "Ok", "routes": []},
        {"code": "Ok", "routes": [{"distance": "far", "geometry": {"type": "LineString"}}]},
        {"code": "Ok", "routes": [{"distance": 1000.0, "geometry": "encodedpolyline"}]},
    ],
)
def test_osrm_bad_responses_raise_routing_error(body: dict[str, Any]) -> None:
    with pytest.raises(RoutingError):
        OsrmBackend(lambda url: body).route("amsterdam", "leiden")


def test_fallback_and_cache_per_ordered_pair() -> None:
    no_route = OsrmBackend(lambda url: {"code": "NoRoute", "routes": []})
    counted: list[tuple[str, str]] = []

    class Counting:
        def route(self, from_id: str, to_id: str) -> Route:
            counted.append((from_id, to_id))
            return FallbackRouting(no_route, ESTIMATE).route(from_id, to_id)

    cache = CachedRouting(Counting())
    a = cache.route("harlingen", "vlieland")
    assert a.method.startswith("estimate")
    assert cache.route("harlingen", "vlieland") is a
    cache.route("vlieland", "harlingen")
    assert counted == [("harlingen", "vlieland"), ("vlieland", "harlingen")]
    assert len(cache) == 2
