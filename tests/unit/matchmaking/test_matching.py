"""The pure matcher: compatibility, rating gaps that widen with waiting, team balance."""

from __future__ import annotations

import pytest

from services.matchmaking.domain.matching import (
    TEAM,
    MatchPolicy,
    Rating,
    Ticket,
    find_tables,
    pool_for,
    split_teams,
    win_probabilities,
)
from tests.unit.matchmaking.fakes import FakeRatings


def ticket(k: int, mu: float = 25.0, counts: tuple[int, ...] = (4,), at: float = 0.0, mode: str = "solo",
           options: dict | None = None, game: str = "paardenkoppen") -> Ticket:  # type: ignore[type-arg]
    return Ticket(f"t{k}", f"p{k}", game, options or {}, counts, mode, at, Rating(mu, 3.0))


def test_four_compatible_tickets_form_one_table_oldest_first() -> None:
    tables = find_tables([ticket(k, 25 + k * 0.1, at=float(k)) for k in range(4)], now=5.0)
    assert len(tables) == 1 and tables[0].seats == ["p0", "p1", "p2", "p3"]


def test_options_game_type_and_mode_keep_tickets_apart() -> None:
    tickets = [ticket(0), ticket(1), ticket(2, options={"x": 1}), ticket(3, game="klapper"), ticket(4, mode=TEAM)]
    assert find_tables(tickets, now=0.0) == []


def test_gap_widens_with_waiting() -> None:
    far = [ticket(0, 20.0, (2,)), ticket(1, 26.0, (2,))]
    policy = MatchPolicy(base_gap=2.0, widen_per_second=0.1, max_gap=20.0, anyone_after=300.0)
    assert find_tables(far, now=10.0, policy=policy) == []  # gap 3 < 6
    assert len(find_tables(far, now=40.0, policy=policy)) == 1  # gap 6
    very_far = [ticket(0, 0.0, (2,)), ticket(1, 50.0, (2,))]
    assert find_tables(very_far, now=299.0, policy=policy) == []
    assert len(find_tables(very_far, now=300.0, policy=policy)) == 1  # anyone after 300 s


def test_prefers_the_closest_ratings() -> None:
    tickets = [ticket(0, 25.0, (2,)), ticket(1, 40.0, (2,), at=1), ticket(2, 25.5, (2,), at=2),
               ticket(3, 40.4, (2,), at=3)]
    tables = find_tables(tickets, now=1000.0)
    assert sorted(sorted(t.seats) for t in tables) == [["p0", "p2"], ["p1", "p3"]]


def test_larger_acceptable_tables_first_and_counts_respected() -> None:
    tickets = [ticket(k, counts=(3, 4)) for k in range(4)] + [ticket(9, counts=(2,))]
    tables = find_tables(tickets, now=0.0)
    assert [len(t.seats) for t in tables] == [4]


def test_one_seat_per_player() -> None:
    dup = Ticket("t9", "p0", "paardenkoppen", {}, (2,), "solo", 1.0, Rating())
    assert find_tables([ticket(0, counts=(2,)), dup], now=0.0) == []


def test_team_tables_are_balanced_by_predicted_win_probability() -> None:
    mus = [35.0, 30.0, 20.0, 15.0]
    tickets = [ticket(k, mu, (4,), mode=TEAM) for k, mu in enumerate(mus)]
    fake = FakeRatings()
    tables = find_tables(tickets, now=10_000.0, predict=lambda pool, teams: fake.predict(
        pool, teams, {t.player_id: t.rating for t in tickets}))
    (table,) = tables
    assert table.teams == ((0, 2), (1, 3))
    teams = [{table.seats[s] for s in team} for team in table.teams]
    assert {"p0", "p3"} in teams and {"p1", "p2"} in teams  # 35+15 v 30+20
    assert fake.predictions and fake.predictions[0][0] == "paardenkoppen/team"


def test_split_teams_and_probabilities() -> None:
    probs = win_probabilities([[Rating(30, 1)], [Rating(20, 1)]])
    assert probs[0] > 0.5 > probs[1] and sum(probs) == pytest.approx(1.0)
    ratings = {"a": Rating(40, 1), "b": Rating(10, 1), "c": Rating(26, 1), "d": Rating(24, 1)}
    teams, chances = split_teams(list(ratings), lambda ts: win_probabilities([[ratings[p] for p in t] for t in ts]))
    assert {frozenset(t) for t in teams} == {frozenset("ab"), frozenset("cd")}
    assert abs(chances[0] - 0.5) < 0.05
    with pytest.raises(ValueError):
        split_teams(["a", "b", "c"], lambda ts: [0.5, 0.5])


def test_pool_names_follow_the_ratings_service() -> None:
    assert pool_for("klapper", 4, TEAM) == "klapper/4"
    assert pool_for("klapper", 4, "solo") == "klapper/4/solo"
    assert pool_for("hoppaa", 4, "solo") == "hoppaa/solo"
    assert pool_for("roparun", 3, "solo") == "roparun"
