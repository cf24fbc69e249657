"""The SVG map: parses as XML, has every place, the links and the highlighted route."""

import xml.etree.ElementTree as ET

from shared.cityhopper import catalog
from shared.cityhopper.mapsvg import render_map
from shared.cityhopper.roads import EstimateBackend

NS = {"svg": "http://www.w3.org/2000/svg"}


def test_board_map_has_places_labels_links_title_and_legend() -> None:
    svg = render_map(catalog.places(), catalog.board().edges)
    root = ET.fromstring(svg)
    circles = root.findall(".//svg:g[@id='places']/svg:circle", NS)
    assert len(circles) == 82
    labels = {t.text for t in root.findall(".//svg:g[@id='labels']/svg:text", NS)}
    assert {"Amsterdam", "'s-Hertogenbosch", "Schiermonnikoog"} <= labels
    kinds = {line.get("class") for line in root.findall(".//svg:g[@id='links']/svg:line", NS)}
    assert kinds == {"link road", "link dike", "link boat", "link flight"}
    assert root.find("svg:title", NS) is not None
    assert root.find(".//svg:g[@id='legend']", NS) is not None
    assert root.find(".//svg:polyline", NS) is None
    assert "href" not in svg  # no external assets


def test_route_is_highlighted() -> None:
    route = EstimateBackend().route("den-helder", "leeuwarden")
    root = ET.fromstring(render_map(catalog.places(), catalog.board().edges, route))
    line = root.find(".//svg:polyline[@id='route']", NS)
    assert line is not None
    points = (line.get("points") or "").split()
    assert len(points) == len(route.place_ids) == 3
    title = root.find("svg:title", NS)
    assert title is not None and title.text is not None
    assert "Den Helder" in title.text and f"{route.km:.1f} km" in title.text
    # The projection keeps north up: Leeuwarden (north-east of Den Helder) is right of and above it.
    (x0, y0), (x2, y2) = (tuple(map(float, p.split(","))) for p in (points[0], points[-1]))
    assert x2 > x0 and y2 < y0
