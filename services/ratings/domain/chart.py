"""A hand-made SVG line chart of one player's rating history in one pool.

x is the game number (0 = the starting rating), y the rating: a shaded band mu +- 2 sigma, the mu
line and the ordinal (mu - 3 sigma) line. Pure: text in, text out; every label is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from services.ratings.domain.rating import ordinal

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 36, 32


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def rating_svg(title: str, points: Sequence[tuple[float, float]]) -> str:
    """``points``: (mu, sigma) after game 0 (start), 1, 2, ..."""
    if not points:
        points = [(25.0, 25.0 / 3.0)]
    upper = [mu + 2 * sigma for mu, sigma in points]
    lower = [mu - 2 * sigma for mu, sigma in points]
    ords = [ordinal(mu, sigma) for mu, sigma in points]
    y_max = max(upper)
    y_min = min(min(lower), min(ords))
    if y_max - y_min < 1e-9:
        y_max, y_min = y_max + 1, y_min - 1
    pad = (y_max - y_min) * 0.05
    y_max, y_min = y_max + pad, y_min - pad
    span_x = max(len(points) - 1, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + plot_w * i / span_x

    def y(v: float) -> float:
        return TOP + plot_h * (y_max - v) / (y_max - y_min)

    def line(values: Sequence[float]) -> str:
        return " ".join(f"{_fmt(x(i))},{_fmt(y(v))}" for i, v in enumerate(values))

    band = line(upper) + " " + " ".join(
        f"{_fmt(x(i))},{_fmt(y(v))}" for i, v in reversed(list(enumerate(lower)))
    )
    ticks = []
    for k in range(5):
        value = y_min + (y_max - y_min) * k / 4
        ticks.append(
            f'<line x1="{LEFT}" y1="{_fmt(y(value))}" x2="{WIDTH - RIGHT}" y2="{_fmt(y(value))}" '
            f'stroke="#e5e5e5"/><text x="{LEFT - 6}" y="{_fmt(y(value) + 4)}" text-anchor="end">'
            f"{value:.1f}</text>"
        )
    mu_now, sigma_now = points[-1]
    caption = (
        f"{len(points) - 1} games; mu {mu_now:.2f}, sigma {sigma_now:.2f}, "
        f"ordinal {ordinal(mu_now, sigma_now):.2f}"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">'
        f"<title>{escape(title)}</title>"
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>'
        f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>'
        f'<text x="{LEFT}" y="30" fill="#555">{escape(caption)}</text>'
        + "".join(ticks)
        + f'<polygon points="{band}" fill="#4c78a8" fill-opacity="0.18" stroke="none">'
        "<title>mu +- 2 sigma</title></polygon>"
        f'<polyline points="{line([mu for mu, _ in points])}" fill="none" stroke="#4c78a8" '
        'stroke-width="2"><title>mu</title></polyline>'
        f'<polyline points="{line(ords)}" fill="none" stroke="#e45756" stroke-width="1.5" '
        'stroke-dasharray="4 3"><title>ordinal (mu - 3 sigma)</title></polyline>'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 10}" text-anchor="end" fill="#555">game</text>'
        f'<text x="{LEFT}" y="{HEIGHT - 10}" fill="#555">0</text>'
        f'<text x="{_fmt(x(len(points) - 1))}" y="{HEIGHT - 20}" text-anchor="end" fill="#555">'
        f"{len(points) - 1}</text>"
        f'<g transform="translate({WIDTH - RIGHT - 190},{TOP + 4})">'
        '<rect width="10" height="10" fill="#4c78a8" fill-opacity="0.18"/>'
        '<text x="14" y="9">mu +- 2 sigma</text>'
        '<line x1="0" y1="22" x2="10" y2="22" stroke="#4c78a8" stroke-width="2"/>'
        '<text x="14" y="26">mu</text>'
        '<line x1="50" y1="22" x2="60" y2="22" stroke="#e45756" stroke-dasharray="4 3"/>'
        '<text x="64" y="26">ordinal</text></g>'
        "</svg>"
    )
