"""The rating chart a person can read (issue 15, item 9): the player's name in the title, game numbers
and dates on the x axis with a marker per game, the rating (ordinal) as the main line, the uncertainty
band named in words, and correct plurals."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from services.ratings.domain.chart import ChartPoint, game_ticks, nice_ticks, plural, rating_svg
from services.ratings.domain.rating import ordinal

SVG = "{http://www.w3.org/2000/svg}"


def history(games: int) -> list[ChartPoint]:
    points = [ChartPoint(0, 25.0, 25.0 / 3)]
    for g in range(1, games + 1):
        points.append(ChartPoint(g, 25.0 + g * 0.7, 25.0 / 3 * 0.93 ** g, f"2026-11-{g:02d}"))
    return points


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_the_chart_parses_and_names_the_player_and_the_pool_in_its_title() -> None:
    root = ET.fromstring(rating_svg("Anneke <&> \"de Vries\"", "klapper/4", history(3)))
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == 'Anneke <&> "de Vries" \u2014 rating in klapper/4'
    assert texts(root)[0] == title.text  # also drawn as the heading
    assert 'Anneke <&> "de Vries"' in (root.get("aria-label") or "")


def test_the_x_axis_has_game_numbers_dates_and_a_label_and_the_y_axis_is_labelled_rating() -> None:
    root = ET.fromstring(rating_svg("Bram", "roparun", history(4)))
    labels = texts(root)
    assert "games played" in labels and "rating" in labels
    assert {"0", "1", "2", "3", "4"} <= set(labels)
    assert "game 1: 1 Nov 2026" in labels and "game 4: 4 Nov 2026" in labels


def test_every_game_has_a_point_marker_on_the_rating_line() -> None:
    points = history(5)
    root = ET.fromstring(rating_svg("Bram", "roparun", points))
    markers = [c for c in root.iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    assert len(markers) == len(points)
    tips = [m.find(f"{SVG}title").text for m in markers]  # type: ignore[union-attr]
    assert tips[0].startswith("start: rating 0.0")  # type: ignore[union-attr]
    assert tips[2].startswith(f"after game 2 (2026-11-02): rating {ordinal(points[2].mu, points[2].sigma):.1f}")  # type: ignore[union-attr]


def test_the_main_line_is_the_ordinal_and_the_band_is_named_in_words() -> None:
    root = ET.fromstring(rating_svg("Bram", "roparun", history(2)))
    lines = {(p.find(f"{SVG}title").text or ""): p for p in root.iter(f"{SVG}polyline")}  # type: ignore[union-attr]
    rating_line = next(p for name, p in lines.items() if name.startswith("rating"))
    assert float(rating_line.get("stroke-width") or 0) > max(
        float(p.get("stroke-width") or 1) for name, p in lines.items() if not name.startswith("rating")
    )
    band = root.find(f"{SVG}polygon")
    assert band is not None and band.find(f"{SVG}title").text == "likely range of skill (\u03bc \u00b1 2\u03c3)"  # type: ignore[union-attr]
    assert "likely range of skill (\u03bc \u00b1 2\u03c3)" in texts(root)  # in the legend too


@pytest.mark.parametrize(("games", "phrase"), [(1, "after 1 game:"), (2, "after 2 games:"), (11, "after 11 games:")])
def test_plurals_are_correct(games: int, phrase: str) -> None:
    svg = rating_svg("Carla", "hoppaa/solo", history(games))
    assert phrase in svg
    assert "1 games" not in svg.replace("11 games", "")


def test_no_negative_zero_and_a_real_minus_sign() -> None:
    svg = rating_svg("Daan", "roparun", [ChartPoint(0, 25.0, 25.0 / 3), ChartPoint(1, 20.0, 8.0, "2026-12-01")])
    assert "-0.0" not in svg and "\u22124.0" in svg  # ordinal 20 - 24 = -4


def test_plural_and_ticks() -> None:
    assert [plural(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert nice_ticks(0.0, 41.6) == [0, 10, 20, 30, 40, 50]
    assert game_ticks(3) == [0, 1, 2, 3]
    ticks = game_ticks(137)
    assert ticks[0] == 0 and ticks[-1] == 137 and len(ticks) <= 12
