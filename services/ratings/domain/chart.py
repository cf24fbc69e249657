"""An SVG line chart of one player's rating history in one pool, made to be read by a person.

x: the game number (0 = the starting rating) with point markers, and the date of the first and the
last rated game; y: the rating. The main line is the **rating** (the ordinal, mu - 3 sigma: a cautious
estimate that rises as the system grows surer); the shaded band is the **likely range** of the
player's skill (mu +- 2 sigma), narrowing as games are played. Pure: values in, text out; every label
is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from services.ratings.domain.rating import ordinal

WIDTH, HEIGHT = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 86, 64
RATING_COLOUR, BAND_COLOUR, SKILL_COLOUR = "#c0392b", "#4c78a8", "#4c78a8"
MU, SIGMA, PLUS_MINUS, MINUS, DASH = "\u03bc", "\u03c3", "\u00b1", "\u2212", "\u2014"
BAND_LABEL = f"likely range of skill ({MU} {PLUS_MINUS} 2{SIGMA})"
RATING_LABEL = f"rating ({MU} {MINUS} 3{SIGMA}, a cautious estimate)"
SKILL_LABEL = f"estimated skill ({MU})"


@dataclass(frozen=True)
class ChartPoint:
    game: int  # games played after this point (0 = before the first game)
    mu: float
    sigma: float
    date: str | None = None  # ISO date (YYYY-MM-DD) of the game, None for the start


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 game``, ``2 games``, ``0 games``."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def nice_ticks(low: float, high: float, count: int = 7) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 times a power of ten) covering [low, high]."""
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks: list[float] = []
    value = first
    while value <= high + step * 1e-9 and len(ticks) < 50:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def game_ticks(last: int, count: int = 10) -> list[int]:
    """Whole game numbers from 0 to ``last`` (at most about ``count`` labels, always including ``last``)."""
    if last <= count:
        return list(range(last + 1))
    step = next(m * 10 ** k for k in range(8) for m in (1, 2, 5) if m * 10 ** k * count >= last)
    ticks = list(range(0, last + 1, step))
    if last - ticks[-1] < step / 2 and ticks[-1] != last:
        ticks[-1] = last
    elif ticks[-1] != last:
        ticks.append(last)
    return ticks


def _date(iso: str) -> str:
    months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    try:
        year, month, day = (int(part) for part in iso[:10].split("-"))
        return f"{day} {months[month - 1]} {year}"
    except (ValueError, IndexError):
        return iso[:10]


def _f(value: float) -> str:
    return f"{value:.1f}"


def _num(value: float, digits: int = 1) -> str:
    """A number for people: no "-0.0", a real minus sign."""
    text = f"{value:.{digits}f}"
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def rating_svg(player: str, pool: str, points: Sequence[ChartPoint]) -> str:
    """The chart of ``player`` (a display name) in ``pool``; ``points`` start with game 0."""
    if not points:
        points = [ChartPoint(0, 25.0, 25.0 / 3.0)]
    ratings = [ordinal(p.mu, p.sigma) for p in points]
    upper = [p.mu + 2 * p.sigma for p in points]
    lower = [p.mu - 2 * p.sigma for p in points]
    y_ticks = nice_ticks(min(min(ratings), min(lower)), max(upper))
    y_min, y_max = y_ticks[0], y_ticks[-1]
    last_game = max(points[-1].game, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(game: int) -> float:
        return LEFT + plot_w * game / last_game

    def y(value: float) -> float:
        return TOP + plot_h * (y_max - value) / (y_max - y_min)

    def path(values: Sequence[float]) -> str:
        return " ".join(f"{_f(x(p.game))},{_f(y(v))}" for p, v in zip(points, values, strict=True))

    games = points[-1].game
    now = points[-1]
    title = f"{player} {DASH} rating in {pool}"
    summary = (
        f"after {plural(games, 'game')}: rating {_num(ordinal(now.mu, now.sigma))}; "
        f"likely range of skill {_num(now.mu - 2 * now.sigma)} to {_num(now.mu + 2 * now.sigma)}"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12" '
        f'role="img" aria-label={quoteattr(title + ". " + summary)}>',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(summary)}</desc>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="24" font-size="16" font-weight="bold" fill="#222">{escape(title)}</text>',
        f'<text x="{LEFT}" y="44" fill="#444">{escape(summary)}</text>',
    ]
    # grid and y axis
    for value in y_ticks:
        parts.append(
            f'<line x1="{LEFT}" y1="{_f(y(value))}" x2="{WIDTH - RIGHT}" y2="{_f(y(value))}" stroke="#e6e6e6"/>'
            f'<text x="{LEFT - 8}" y="{_f(y(value) + 4)}" text-anchor="end" fill="#444">{_num(value, 0 if value == int(value) else 1)}</text>'
        )
    parts.append(
        f'<text transform="translate(16,{_f(TOP + plot_h / 2)}) rotate(-90)" text-anchor="middle" '
        f'fill="#222">rating</text>'
    )
    # x axis: game numbers, and the dates of the first and last game
    axis_y = TOP + plot_h
    parts.append(f'<line x1="{LEFT}" y1="{axis_y}" x2="{WIDTH - RIGHT}" y2="{axis_y}" stroke="#888"/>')
    for game in game_ticks(points[-1].game):
        parts.append(
            f'<line x1="{_f(x(game))}" y1="{axis_y}" x2="{_f(x(game))}" y2="{axis_y + 5}" stroke="#888"/>'
            f'<text x="{_f(x(game))}" y="{axis_y + 18}" text-anchor="middle" fill="#444">{game}</text>'
        )
    dated = [p for p in points if p.date]
    if dated:
        first, last = dated[0], dated[-1]
        parts.append(
            f'<text x="{LEFT}" y="{axis_y + 36}" text-anchor="start" fill="#666">'
            f"game {first.game}: {escape(_date(first.date or ''))}</text>"
        )
        if last.game != first.game:
            parts.append(
                f'<text x="{WIDTH - RIGHT}" y="{axis_y + 36}" text-anchor="end" fill="#666">'
                f"game {last.game}: {escape(_date(last.date or ''))}</text>"
            )
    parts.append(
        f'<text x="{_f(LEFT + plot_w / 2)}" y="{HEIGHT - 10}" text-anchor="middle" fill="#222">'
        "games played</text>"
    )
    # band, skill line, rating line with markers
    band = path(upper) + " " + " ".join(
        f"{_f(x(p.game))},{_f(y(v))}" for p, v in reversed(list(zip(points, lower, strict=True)))
    )
    parts.append(
        f'<polygon points="{band}" fill="{BAND_COLOUR}" fill-opacity="0.18" stroke="none">'
        f"<title>{escape(BAND_LABEL)}</title></polygon>"
    )
    parts.append(
        f'<polyline points="{path([p.mu for p in points])}" fill="none" stroke="{SKILL_COLOUR}" '
        f'stroke-width="1.2" stroke-dasharray="5 4"><title>{escape(SKILL_LABEL)}</title></polyline>'
    )
    parts.append(
        f'<polyline points="{path(ratings)}" fill="none" stroke="{RATING_COLOUR}" stroke-width="2.5">'
        f"<title>{escape(RATING_LABEL)}</title></polyline>"
    )
    radius = 4 if len(points) <= 60 else 2
    for p, value in zip(points, ratings, strict=True):
        when = "start" if p.game == 0 else f"after game {p.game}" + (f" ({p.date})" if p.date else "")
        tip = (
            f"{when}: rating {_num(value)}, likely range of skill {_num(p.mu - 2 * p.sigma)} to "
            f"{_num(p.mu + 2 * p.sigma)}"
        )
        parts.append(
            f'<circle cx="{_f(x(p.game))}" cy="{_f(y(value))}" r="{radius}" fill="{RATING_COLOUR}" '
            f'stroke="#ffffff" stroke-width="1"><title>{escape(tip)}</title></circle>'
        )
    # legend, in words
    lx, ly = LEFT, 64
    parts.append(
        f'<g transform="translate({lx},{ly})" fill="#222">'
        f'<line x1="0" y1="0" x2="18" y2="0" stroke="{RATING_COLOUR}" stroke-width="2.5"/>'
        f'<circle cx="9" cy="0" r="3.5" fill="{RATING_COLOUR}"/>'
        f'<text x="24" y="4">{escape(RATING_LABEL)}</text>'
        f'<rect x="262" y="-6" width="18" height="12" fill="{BAND_COLOUR}" fill-opacity="0.18"/>'
        f'<text x="286" y="4">{escape(BAND_LABEL)}</text>'
        f'<line x1="492" y1="0" x2="510" y2="0" stroke="{SKILL_COLOUR}" stroke-dasharray="5 4"/>'
        f'<text x="516" y="4">{escape(SKILL_LABEL)}</text>'
        "</g>"
    )
    parts.append("</svg>")
    return "".join(parts)
