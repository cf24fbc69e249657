"""A self-contained SVG map of the board: places, links and (optionally) a road route.

Projection: equirectangular, longitudes scaled by ``cos`` of the mean latitude of the places, so
the Netherlands keeps its shape. No external assets (no fonts, images or scripts).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from .catalog import Edge, Place
from .roads import Route

SCALE = 300.0
"""Pixels per degree of latitude."""
MARGIN = 40.0
TITLE_HEIGHT = 50.0
LEGEND_WIDTH = 210.0

EDGE_STYLE: dict[str, str] = {
    "road": 'stroke="#8c8c8c" stroke-width="1.6"',
    "dike": 'stroke="#8b5a2b" stroke-width="3.2"',
    "boat": 'stroke="#1f78b4" stroke-width="1.8" stroke-dasharray="6 4"',
    "flight": 'stroke="#7b3294" stroke-width="1" stroke-dasharray="2 4" stroke-opacity="0.55"',
}
KIND_FILL: dict[str, str] = {
    "capital": "#d7301f",
    "national_capital": "#1a9850",
    "city": "#2c7fb8",
    "island": "#e6ab02",
}
ROUTE_STYLE = 'stroke="#e31a1c" stroke-width="4.5" stroke-opacity="0.85" stroke-linejoin="round"'
LEGEND: tuple[tuple[str, str], ...] = (
    ("road", "Road"),
    ("dike", "Dike (1 step)"),
    ("boat", "Boat"),
    ("flight", "Flight"),
)
KIND_LABEL: dict[str, str] = {
    "capital": "Provincial capital",
    "national_capital": "Amsterdam",
    "city": "City",
    "island": "Wadden island",
}


def escape(text: str) -> str:
    """Text content for XML (``&``, ``<``, ``>``)."""
    return html.escape(text, quote=False)


def quoteattr(text: str) -> str:
    """A double-quoted XML attribute value."""
    return '"' + html.escape(text, quote=True) + '"'


def _fmt(v: float) -> str:
    return f"{v:.1f}"


def render_map(places: Sequence[Place], edges: Sequence[Edge], route: Route | None = None) -> str:
    """An SVG document (text) of the places, the board links styled per type, and ``route``.

    Flights are drawn between the cities of their airports (``airport:<city>``); airport links
    are not drawn. The route is a polyline of its GeoJSON geometry, drawn over the board.
    """
    if not places:
        raise ValueError("render_map needs at least one place")
    lats = [p.lat for p in places]
    lons = [p.lon for p in places]
    kx = math.cos(math.radians(sum(lats) / len(lats)))
    min_lon, max_lat = min(lons), max(lats)
    map_w = (max(lons) - min_lon) * kx * SCALE
    map_h = (max_lat - min(lats)) * SCALE
    width = map_w + 2 * MARGIN + LEGEND_WIDTH
    height = map_h + 2 * MARGIN + TITLE_HEIGHT

    def xy(lon: float, lat: float) -> tuple[float, float]:
        return (MARGIN + (lon - min_lon) * kx * SCALE, TITLE_HEIGHT + MARGIN + (max_lat - lat) * SCALE)

    by_id = {p.id: p for p in places}

    def node(node_id: str) -> Place | None:
        return by_id.get(node_id.removeprefix("airport:"))

    title = "CityHopper board: 82 places of the Netherlands" if len(places) == 82 else "CityHopper board"
    if route is not None:
        names = [by_id[i].name if i in by_id else i for i in (route.from_id, route.to_id)]
        title = f"Road route {names[0]} \u2192 {names[1]}: {route.km:.1f} km"
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(width)}" height="{_fmt(height)}" '
        f'viewBox="0 0 {_fmt(width)} {_fmt(height)}" role="img" aria-label={quoteattr(title)} '
        'font-family="sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{_fmt(width)}" height="{_fmt(height)}" fill="#f4f8fb"/>',
        f'<text x="{_fmt(MARGIN)}" y="32" font-size="20" font-weight="bold" fill="#222">{escape(title)}</text>',
    ]
    if route is not None:
        out.append(
            f'<text x="{_fmt(MARGIN)}" y="{_fmt(TITLE_HEIGHT + 6)}" font-size="11" fill="#444">'
            f"{escape(f'15% bounds {route.lower_km:g}-{route.upper_km:g} km; {route.method}')}</text>"
        )

    out.append('<g id="links" fill="none" stroke-linecap="round">')
    for e in edges:
        style = EDGE_STYLE.get(e.type)
        a, b = node(e.a), node(e.b)
        if style is None or a is None or b is None:
            continue
        (x1, y1), (x2, y2) = xy(a.lon, a.lat), xy(b.lon, b.lat)
        out.append(
            f'<line class="link {e.type}" data-edge={quoteattr(e.id)} x1="{_fmt(x1)}" y1="{_fmt(y1)}" '
            f'x2="{_fmt(x2)}" y2="{_fmt(y2)}" {style}/>'
        )
    out.append("</g>")

    if route is not None:
        coords = route.geometry.get("coordinates", [])
        points = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in (xy(float(c[0]), float(c[1])) for c in coords))
        out.append(
            f'<polyline id="route" class="route" data-km="{route.km}" points="{points}" fill="none" '
            f"{ROUTE_STYLE}/>"
        )

    out.append('<g id="places">')
    on_route = set(route.place_ids) if route is not None else set()
    for p in places:
        x, y = xy(p.lon, p.lat)
        r = 5.5 if p.kind in ("capital", "national_capital") or p.id in on_route else 4.0
        stroke = "#e31a1c" if p.id in on_route else "#ffffff"
        out.append(
            f'<circle class="place {p.kind}" data-place={quoteattr(p.id)} cx="{_fmt(x)}" cy="{_fmt(y)}" '
            f'r="{r}" fill="{KIND_FILL.get(p.kind, "#555")}" stroke="{stroke}" stroke-width="1.5">'
            f"<title>{escape(f'{p.name} ({p.province})')}</title></circle>"
        )
    out.append("</g>")
    out.append(
        '<g id="labels" font-size="10" fill="#1a1a1a" stroke="#ffffff" stroke-width="2.5" '
        'paint-order="stroke" stroke-linejoin="round">'
    )
    for p in places:
        x, y = xy(p.lon, p.lat)
        weight = ' font-weight="bold"' if p.kind in ("capital", "national_capital") else ""
        out.append(
            f'<text class="label" data-place={quoteattr(p.id)} x="{_fmt(x + 7)}" y="{_fmt(y + 3.5)}"{weight}>'
            f"{escape(p.name)}</text>"
        )
    out.append("</g>")

    lx = MARGIN + map_w + 30
    ly = TITLE_HEIGHT + MARGIN
    out.append(f'<g id="legend" font-size="12" fill="#222" transform="translate({_fmt(lx)},{_fmt(ly)})">')
    out.append('<text x="0" y="0" font-weight="bold">Legend</text>')
    row = 22.0
    for etype, label in LEGEND:
        out.append(f'<line x1="0" y1="{_fmt(row - 4)}" x2="30" y2="{_fmt(row - 4)}" {EDGE_STYLE[etype]}/>')
        out.append(f'<text x="40" y="{_fmt(row)}">{escape(label)}</text>')
        row += 20
    if route is not None:
        out.append(f'<line x1="0" y1="{_fmt(row - 4)}" x2="30" y2="{_fmt(row - 4)}" {ROUTE_STYLE}/>')
        out.append(f'<text x="40" y="{_fmt(row)}">Route</text>')
        row += 20
    for kind, label in KIND_LABEL.items():
        out.append(f'<circle cx="15" cy="{_fmt(row - 4)}" r="5" fill="{KIND_FILL[kind]}"/>')
        out.append(f'<text x="40" y="{_fmt(row)}">{escape(label)}</text>')
        row += 20
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
