"""The OSRM adapter (issue item 3) against a local stub server speaking OSRM's /route/v1 JSON, the
fallback to the estimate, and the route caches (in process and Redis, keyed by backend + pair)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from redis import Redis

from services.questions.adapters.routing import (
    RedisRouteCache,
    backend_key,
    build_routing,
    requests_fetch,
)
from services.questions.bootstrap import create_app
from services.questions.config import RoutingConfig
from shared.cityhopper import catalog
from shared.cityhopper.errors import RoutingError
from shared.cityhopper.roads import OsrmBackend
from shared.web.closing import close_app
from tests.integration.questions.conftest import settings_for

pytestmark = pytest.mark.integration

CAR_FREE = {"vlieland", "schiermonnikoog"}


class StubOsrm:
    """A tiny OSRM: ``GET /route/v1/{profile}/{lon},{lat};{lon},{lat}`` -> 1.2 x straight metres."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.broken = False
        by_point = {(repr(p.lon), repr(p.lat)): p.id for p in catalog.places()}
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: Any, content_type: str = "application/json") -> None:
                data = (json.dumps(body) if content_type == "application/json" else body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                stub.requests.append(self.path)
                if stub.broken:
                    self._send(502, "<html>bad gateway</html>", "text/html")
                    return
                url = urlsplit(self.path)
                parts = url.path.split("/")
                if parts[1:4] != ["route", "v1", "driving"] or parse_qs(url.query).get("geometries") != ["geojson"]:
                    self._send(400, {"code": "InvalidUrl", "message": f"URL string malformed: {self.path}"})
                    return
                points = [tuple(pt.split(",")) for pt in parts[4].split(";")]
                ids = [by_point.get(p) for p in points]
                if None in ids or len(ids) != 2:
                    self._send(400, {"code": "InvalidQuery", "message": "Query string malformed"})
                    return
                if CAR_FREE & set(ids):
                    self._send(400, {"code": "NoRoute", "message": "Impossible route between points"})
                    return
                a, b = (catalog.place(i) for i in ids)  # type: ignore[arg-type]
                from shared.cityhopper.geo import haversine_km

                metres = haversine_km(a.lat, a.lon, b.lat, b.lon) * 1200
                coords = [[a.lon, a.lat], [(a.lon + b.lon) / 2, (a.lat + b.lat) / 2 + 0.01], [b.lon, b.lat]]
                self._send(
                    200,
                    {
                        "code": "Ok",
                        "routes": [
                            {
                                "distance": metres,
                                "duration": metres / 25,
                                "weight": metres / 25,
                                "weight_name": "routability",
                                "geometry": {"type": "LineString", "coordinates": coords},
                                "legs": [],
                            }
                        ],
                        "waypoints": [{"name": "", "location": [a.lon, a.lat]}, {"name": "", "location": [b.lon, b.lat]}],
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def osrm() -> Iterator[StubOsrm]:
    stub = StubOsrm()
    yield stub
    stub.stop()


def config(url: str) -> RoutingConfig:
    return RoutingConfig(backend="osrm", osrm_url=url, osrm_timeout=2.0)


def test_osrm_backend_over_http(osrm: StubOsrm) -> None:
    backend = OsrmBackend(requests_fetch(2.0), osrm.url)
    route = backend.route("amsterdam", "leiden")
    assert route.method.startswith("osrm:") and route.place_ids == ("amsterdam", "leiden")
    assert route.geometry["type"] == "LineString" and len(route.geometry["coordinates"]) == 3
    a, b = catalog.place("amsterdam"), catalog.place("leiden")
    assert osrm.requests == [
        f"/route/v1/driving/{a.lon!r},{a.lat!r};{b.lon!r},{b.lat!r}?overview=full&geometries=geojson"
    ]
    assert 40 < route.km < 50 and route.lower_km < route.km < route.upper_km
    assert backend.route("assen", "assen").km == 0 and len(osrm.requests) == 1  # no request for A = A


def test_osrm_errors_become_routing_errors(osrm: StubOsrm) -> None:
    backend = OsrmBackend(requests_fetch(2.0), osrm.url)
    with pytest.raises(RoutingError, match="NoRoute"):
        backend.route("harlingen", "vlieland")
    osrm.broken = True
    with pytest.raises(RoutingError, match="502 without JSON"):
        backend.route("amsterdam", "leiden")
    osrm.stop()
    with pytest.raises(RoutingError, match="request failed"):
        backend.route("amsterdam", "utrecht")


def test_fallback_to_the_estimate_for_car_free_islands_and_outages(osrm: StubOsrm) -> None:
    routing, name = build_routing(config(osrm.url), None)
    assert name == "osrm"
    island = routing.route("harlingen", "vlieland")
    assert island.method.startswith("estimate") and any(e.startswith("boat:") for e in island.edge_ids)
    assert routing.route("amsterdam", "leiden").method.startswith("osrm")
    osrm.broken = True
    assert routing.route("amsterdam", "leiden").method.startswith("osrm")  # memoised in process
    assert routing.route("amsterdam", "utrecht").method.startswith("estimate")  # outage: estimate
    osrm.broken = False
    assert routing.route("amsterdam", "utrecht").method.startswith("osrm")  # failures are not cached


def test_routes_are_cached_in_process_and_in_redis_per_backend_and_pair(osrm: StubOsrm, redis_client: Redis) -> None:
    cfg = config(osrm.url)
    first, _ = build_routing(cfg, redis_client)
    r1 = first.route("utrecht", "arnhem")
    first.route("utrecht", "arnhem")
    assert len(osrm.requests) == 1
    key = f"questions:route:{backend_key(cfg)}:utrecht:arnhem"
    assert redis_client.exists(key) and redis_client.ttl(key) > 0
    second, _ = build_routing(cfg, redis_client)  # another process, same Redis
    r2 = second.route("utrecht", "arnhem")
    assert r2 == r1 and len(osrm.requests) == 1
    second.route("arnhem", "utrecht")  # the other ordered pair is its own entry
    assert len(osrm.requests) == 2
    other_profile, _ = build_routing(RoutingConfig("osrm", osrm.url, "bike"), redis_client)
    assert backend_key(RoutingConfig("osrm", osrm.url, "bike")) != backend_key(cfg)
    with pytest.raises(RoutingError):  # the stub knows only "driving"; nothing shared with it
        RedisRouteCache(OsrmBackend(requests_fetch(), osrm.url, "bike"), redis_client, "x", 60).route(
            "utrecht", "arnhem"
        )
    assert other_profile.route("utrecht", "arnhem").method.startswith("estimate")


def test_app_with_routing_backend_osrm(osrm: StubOsrm, database_url: str, redis_url: str) -> None:
    app = create_app(settings_for(database_url, redis_url), config(osrm.url))
    try:
        client = app.test_client()
        d = client.get("/v1/distance?from=amsterdam&to=leiden").json
        assert d["estimate"] is False and d["method"].startswith("osrm") and d["place_ids"] == ["amsterdam", "leiden"]
        island = client.get("/v1/distance?from=harlingen&to=vlieland").json
        assert island["estimate"] is True
        drawn = client.post("/v1/questions/draw", json={"city": "amsterdam", "category": 1, "yellow_city": "leiden"})
        r = client.post(f"/v1/questions/{drawn.json['question_id']}/answer", json={"answer": {"km": d["km"]}}).json
        assert r["correct"] is True and r["reveal"]["km"] == d["km"]
        assert len(osrm.requests) == 2  # amsterdam-leiden once (the draw used the cache), the island once
    finally:
        close_app(app)


def test_routing_config_from_env() -> None:
    assert RoutingConfig.from_env({}).backend == "estimate"
    cfg = RoutingConfig.from_env({"ROUTING_BACKEND": "OSRM", "OSRM_URL": "http://127.0.0.1:5000"})
    assert (cfg.backend, cfg.osrm_url, cfg.osrm_profile) == ("osrm", "http://127.0.0.1:5000", "driving")
    with pytest.raises(ValueError, match="OSRM_URL"):
        RoutingConfig.from_env({"ROUTING_BACKEND": "osrm"})
    with pytest.raises(ValueError, match="ROUTING_BACKEND"):
        RoutingConfig.from_env({"ROUTING_BACKEND": "google"})
