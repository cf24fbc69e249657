"""Pure rating domain: outcome mapping (places, ties, teams), direction of changes, replay, pools."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from services.ratings.domain.chart import ChartPoint, rating_svg
from services.ratings.domain.pools import CATALOGUE, pool_for, valid_pool_name
from services.ratings.domain.rating import (
    INITIAL_MU,
    INITIAL_SIGMA,
    InvalidResult,
    Ledger,
    Rater,
    Rating,
    replay,
    result_from_finished,
)
from tests.unit.ratings.factories import every_game_type, finished, team_game

PLAYERS = ["anneke", "bram", "carla", "daan", "eva", "femke"]


def by_player(adjustments):  # type: ignore[no-untyped-def]
    return {a.player_id: a for a in adjustments}


def test_a_table_where_two_players_tie_for_second() -> None:
    body = finished("paardenkoppen", PLAYERS[:4], [2, 1, 4, 2])
    result = result_from_finished(body)
    assert result.pool == "paardenkoppen"
    assert result.mode == "free-for-all"
    assert result.sides == (("anneke",), ("bram",), ("carla",), ("daan",))
    assert result.ranks == (2, 1, 4, 2)

    changes = by_player(Rater().rate(result, {}))
    assert changes["bram"].mu_after > INITIAL_MU  # the winner rises
    assert changes["carla"].mu_after < INITIAL_MU  # the last falls
    # the two tied for second started equal and end equal, with rank 2 recorded for both
    assert changes["anneke"].mu_after == changes["daan"].mu_after
    assert changes["anneke"].rank == changes["daan"].rank == 2
    assert changes["bram"].mu_after > changes["anneke"].mu_after > changes["carla"].mu_after


def test_seat_order_does_not_matter_only_ranks_do() -> None:
    rater = Rater()
    a = by_player(rater.rate(result_from_finished(finished("roparun", ["x", "y", "z"], [3, 1, 2])), {}))
    b = by_player(rater.rate(result_from_finished(finished("roparun", ["y", "z", "x"], [1, 2, 3])), {}))
    for player in "xyz":
        assert a[player].mu_after == pytest.approx(b[player].mu_after, abs=1e-12)
        assert a[player].sigma_after == pytest.approx(b[player].sigma_after, abs=1e-12)
    assert a["y"].mu_after > a["z"].mu_after > a["x"].mu_after


def test_a_team_result_rates_partners_together() -> None:
    body = team_game("klapper", PLAYERS[:4], [[0, 2], [1, 3]], [2, 1])
    result = result_from_finished(body)
    assert result.pool == "klapper/4"
    assert result.mode == "teams"
    assert result.sides == (("anneke", "carla"), ("bram", "daan"))
    assert result.ranks == (2, 1)

    changes = by_player(Rater().rate(result, {}))
    for winner in ("bram", "daan"):
        assert changes[winner].mu_after > INITIAL_MU
        assert changes[winner].rank == 1
        assert changes[winner].side == 1
    for loser in ("anneke", "carla"):
        assert changes[loser].mu_after < INITIAL_MU
        assert changes[loser].rank == 2
    assert changes["bram"].mu_after == changes["daan"].mu_after
    assert all(c.sigma_after < INITIAL_SIGMA for c in changes.values())


def test_team_ranks_fall_back_to_the_members_seat_ranks() -> None:
    body = team_game("hoppaa", PLAYERS[:4], [[0, 2], [1, 3]], [1, 2])
    body["outcome"]["team_ranks"] = None
    result = result_from_finished(body)
    assert result.pool == "hoppaa/team"
    assert result.ranks == (1, 2)


def test_a_winner_rises_and_a_loser_falls_from_any_starting_rating() -> None:
    rater = Rater()
    result = result_from_finished(finished("cityhopper", ["w", "l"], [1, 2]))
    before = {"w": Rating(30.0, 3.0, 40), "l": Rating(18.0, 5.0, 12)}
    changes = by_player(rater.rate(result, before))
    assert changes["w"].mu_before == 30.0 and changes["w"].mu_after > 30.0
    assert changes["l"].mu_before == 18.0 and changes["l"].mu_after < 18.0
    assert changes["w"].games_after == 41 and changes["l"].games_after == 13


@pytest.mark.parametrize(
    ("game_type", "players", "teams", "pool"),
    [
        ("hoppaa", 3, None, "hoppaa/solo"),
        ("hoppaa", 4, [[0, 2], [1, 3]], "hoppaa/team"),
        ("klapper", 2, None, "klapper/2"),
        ("klapper", 3, None, "klapper/3"),
        ("klapper", 4, [[0, 2], [1, 3]], "klapper/4"),
        ("klapper", 6, [[0, 2, 4], [1, 3, 5]], "klapper/6"),
        ("klapper", 4, None, "klapper/4/solo"),
        ("paardenkoppen", 6, None, "paardenkoppen"),
        ("roparun", 4, None, "roparun"),
        ("cityhopper", 2, None, "cityhopper"),
        ("diceduel", 2, None, "diceduel"),
        ("diceduel", 4, [[0, 1], [2, 3]], "diceduel/team"),
    ],
)
def test_pool_mapping(game_type: str, players: int, teams: list[list[int]] | None, pool: str) -> None:
    assert pool_for(game_type, players, teams) == pool
    assert valid_pool_name(pool)


def test_every_catalogue_pool_is_reachable() -> None:
    reached = {pool for pool, _ in every_game_type(PLAYERS)} | {"klapper/2", "klapper/3"}
    assert reached == {info.name for info in CATALOGUE}
    for pool, body in every_game_type(PLAYERS):
        assert result_from_finished(body).pool == pool


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b.update(players=["a", "a", "b"]), "players"),
        (lambda b: b.update(players=["a", None, "b"]), "players"),
        (lambda b: b["outcome"].update(ranks=[1, 2]), "outcome.ranks"),
        (lambda b: b["outcome"].update(ranks=[1, 0, 2]), "outcome.ranks"),
        (lambda b: b["outcome"].update(teams=[[0, 1], [1, 2]]), "outcome.teams"),
        (lambda b: b["outcome"].update(teams=[[0, 1, 2]]), "outcome.teams"),
        (lambda b: b.update(game_type="Bad Type"), "game_type"),
        (lambda b: b.pop("outcome"), "outcome"),
    ],
)
def test_unratable_bodies_name_the_field(change, field: str) -> None:  # type: ignore[no-untyped-def]
    body = finished("roparun", ["a", "b", "c"], [1, 2, 3])
    change(body)
    with pytest.raises(InvalidResult) as caught:
        result_from_finished(body)
    assert caught.value.field == field


def random_log(n: int, seed: int = 7) -> list[tuple[int, dict]]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    people = [f"p{i}" for i in range(12)]
    log = []
    for k in range(n):
        table = rng.sample(people, 4)
        if k % 2:
            body = team_game("klapper", table, [[0, 2], [1, 3]], rng.choice([[1, 2], [2, 1]]))
        else:
            body = finished("paardenkoppen", table, [rng.randint(1, 4) for _ in table])
        log.append((k + 1, body))
    return log


def test_replay_equals_rating_one_game_at_a_time_bit_for_bit() -> None:
    log = random_log(60)
    rater = Rater()
    incremental = Ledger()
    for position, body in log:
        incremental.apply(rater, result_from_finished(body), position)
    rebuilt = replay(log)
    assert rebuilt.ratings == incremental.ratings  # exact float equality
    assert rebuilt.adjustments == incremental.adjustments


def test_replay_skips_voided_repeated_and_unratable_games() -> None:
    log = random_log(10)
    voided = log[3][1]["game_id"]
    noisy = [*log, (99, log[0][1]), (100, {"game_id": "broken", "players": []})]
    rebuilt = replay(noisy, voided=[voided])
    expected = replay([entry for entry in log if entry[1]["game_id"] != voided])
    assert rebuilt.ratings == expected.ratings
    assert sum(rebuilt.games.values()) == 9
    assert all(a.game_id != voided for pool in rebuilt.adjustments.values() for _, a in pool)


def test_prediction_favours_the_stronger_side() -> None:
    rater = Rater()
    strong, weak = Rating(35.0, 2.0), Rating(18.0, 2.0)
    prediction = rater.predict([[weak, weak], [strong, strong]])
    assert prediction.win[1] > 0.9
    assert sum(prediction.win) == pytest.approx(1.0)
    assert prediction.rank == (2, 1)
    assert 0.0 <= prediction.draw <= 1.0
    ffa = rater.predict([[Rating()], [strong], [weak]])
    assert ffa.rank == (2, 1, 3)


def test_chart_is_well_formed_svg_with_escaped_labels() -> None:
    points = [ChartPoint(g, mu, sigma) for g, (mu, sigma) in enumerate([(25.0, 8.3), (27.0, 7.9), (26.1, 7.5)])]
    svg = rating_svg("<script>x</script>", "klapper/4", points)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "<script>" not in svg
    assert svg.count("<polyline") == 2 and "<polygon" in svg
