"""The ratings consumer against real PostgreSQL and Redis: every game type rated through the RQ job,
duplicates ignored, rebuild equal to the incremental path bit for bit, voided games removed."""

from __future__ import annotations

import json
import random
import uuid

import pytest

from services.cli import main as cli_main
from services.ratings.domain.rating import INITIAL_MU, INITIAL_SIGMA, replay
from tests.integration.ratings.conftest import Bus, query
from tests.unit.ratings.factories import aborted, every_game_type, finished, team_game, voided

pytestmark = pytest.mark.integration


def players(n: int = 6) -> list[str]:
    return [str(uuid.uuid4()) for _ in range(n)]


def current(database_url: str) -> dict[tuple[str, str], tuple[float, float, int]]:
    rows = query(database_url, "SELECT pool, player_id, mu, sigma, games_played FROM ratings.current")
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


def history(database_url: str) -> list[tuple]:  # type: ignore[type-arg]
    return query(
        database_url,
        "SELECT pool, player_id, seq, game_id, side, rank, mu_before, sigma_before, mu_after, sigma_after,"
        " finished_position FROM ratings.history ORDER BY pool, player_id, seq",
    )


@pytest.mark.parametrize("index", range(7), ids=[pool for pool, _ in every_game_type(players())])
def test_a_finished_game_of_each_type_rates_its_players(bus: Bus, database_url: str, index: int) -> None:
    people = players()
    pool, body = every_game_type(people)[index]
    bus.send("GameFinished", body)

    ratings = current(database_url)
    seated = body["players"]
    assert {key for key in ratings} == {(pool, p) for p in seated}
    outcome = body["outcome"]
    best = min(outcome["ranks"])
    worst = max(outcome["ranks"])
    for seat, player in enumerate(seated):
        mu, sigma, games = ratings[(pool, player)]
        assert games == 1 and sigma < INITIAL_SIGMA
        if outcome["ranks"][seat] == best:
            assert mu > INITIAL_MU
        if outcome["ranks"][seat] == worst:
            assert mu < INITIAL_MU
    assert query(database_url, "SELECT status, pool FROM ratings.games WHERE game_id = %s", body["game_id"]) == [
        ("rated", pool)
    ]
    # every adjustment is an event with the values before and after
    events = query(
        database_url,
        "SELECT payload FROM ratings.events WHERE type = 'RatingAdjusted' AND stream_id = %s",
        f"pool:{pool}",
    )
    assert sorted(e[0]["player_id"] for e in events) == sorted(seated)
    for (payload,) in events:
        assert payload["game_id"] == body["game_id"] and payload["pool"] == pool
        assert payload["mu_before"] == INITIAL_MU and payload["sigma_before"] == INITIAL_SIGMA
        assert (payload["mu_after"], payload["sigma_after"], 1) == ratings[(pool, payload["player_id"])]
    received = query(database_url, "SELECT payload FROM ratings.events WHERE type = 'GameFinishedReceived'")
    assert received == [({"message_id": f"{body['game_id']}:GameFinished", "body": body},)]


def test_a_duplicate_message_changes_nothing(bus: Bus, database_url: str) -> None:
    people = players(4)
    body = finished("paardenkoppen", people, [1, 2, 2, 4])
    bus.send("GameFinished", body)
    before_ratings, before_history = current(database_url), history(database_url)
    count = query(database_url, "SELECT count(*) FROM ratings.events")

    bus.publish("GameFinished", body)  # the same message again through the outbox
    bus.enqueue("GameFinished", body)  # and redelivered straight onto the queue
    bus.enqueue("GameFinished", body, message_id="another-id-same-game")
    bus.work()

    assert current(database_url) == before_ratings
    assert history(database_url) == before_history
    assert query(database_url, "SELECT count(*) FROM ratings.events") == count


def test_an_aborted_game_is_not_rated(bus: Bus, database_url: str) -> None:
    people = players(3)
    game_id = str(uuid.uuid4())
    bus.send("GameAborted", aborted(game_id, people))
    assert current(database_url) == {}
    assert query(database_url, "SELECT status FROM ratings.games WHERE game_id = %s", game_id) == [("aborted",)]
    # a late GameFinished for the same game does not rate it either
    bus.send("GameFinished", finished("roparun", people, [1, 2, 3], game_id=game_id))
    assert current(database_url) == {}


def play_season(bus: Bus, games: int, seed: int) -> list[dict]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    people = players(8)
    bodies = []
    for k in range(games):
        table = rng.sample(people, 6)
        kind = k % 4
        if kind == 0:
            body = finished("paardenkoppen", table[:5], [rng.randint(1, 5) for _ in range(5)])
        elif kind == 1:
            body = team_game("klapper", table[:4], [[0, 2], [1, 3]], rng.choice([[1, 2], [2, 1]]))
        elif kind == 2:
            body = team_game("klapper", table, [[0, 2, 4], [1, 3, 5]], rng.choice([[1, 2], [2, 1]]))
        else:
            body = finished("hoppaa", table[:3], rng.choice([[1, 2, 2], [2, 1, 2], [2, 2, 1]]))
        bus.publish("GameFinished", body)
        bodies.append(body)
    bus.work()
    return bodies


def test_rebuild_equals_the_incremental_result_bit_for_bit(bus: Bus, database_url: str, service) -> None:  # type: ignore[no-untyped-def]
    bodies = play_season(bus, 24, seed=3)
    incremental_ratings, incremental_history = current(database_url), history(database_url)
    assert len({pool for pool, _ in incremental_ratings}) == 4

    report = service.rebuild(dry_run=True)
    assert report["identical"] and report["games"] == 24
    assert all(not p["rewritten"] for p in report["pools"])

    # the same numbers as an in-memory replay of the bodies in arrival order
    ledger = replay(list(enumerate(bodies, 1)))
    for (pool, player), (mu, sigma, games) in incremental_ratings.items():
        expected = ledger.ratings[pool][player]
        assert (mu, sigma, games) == (expected.mu, expected.sigma, expected.games)

    # wipe the read models: the rebuild restores them exactly from the GameFinished log alone
    query_exec(database_url, "DELETE FROM ratings.current; DELETE FROM ratings.history")
    report = service.rebuild()
    assert not report["identical"] and all(p["rewritten"] for p in report["pools"])
    assert current(database_url) == incremental_ratings
    assert history(database_url) == incremental_history
    assert service.rebuild(dry_run=True)["identical"]


def query_exec(database_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(database_url) as conn:
        conn.execute(sql)


def test_a_voided_game_disappears_and_the_pool_is_recomputed(bus: Bus, database_url: str, service,  # type: ignore[no-untyped-def]
                                                              capsys) -> None:
    people = players(4)
    first = finished("paardenkoppen", people, [1, 2, 3, 4])
    disputed = finished("paardenkoppen", people, [4, 3, 2, 1])
    last = finished("paardenkoppen", people, [2, 1, 4, 3])
    other = finished("roparun", people[:2], [1, 2])
    for body in (first, disputed, last, other):
        bus.publish("GameFinished", body)
    bus.work()
    roparun_before = {k: v for k, v in current(database_url).items() if k[0] == "roparun"}

    bus.send("GameVoided", voided(disputed["game_id"]))

    rows = history(database_url)
    assert disputed["game_id"] not in {r[3] for r in rows}
    assert {r[3] for r in rows if r[0] == "paardenkoppen"} == {first["game_id"], last["game_id"]}
    expected = replay([(1, first), (3, last)])
    for player in people:
        mu, sigma, games = current(database_url)[("paardenkoppen", player)]
        assert (mu, sigma, games) == (
            expected.ratings["paardenkoppen"][player].mu,
            expected.ratings["paardenkoppen"][player].sigma,
            2,
        )
    assert {k: v for k, v in current(database_url).items() if k[0] == "roparun"} == roparun_before
    assert query(database_url, "SELECT status FROM ratings.games WHERE game_id = %s", disputed["game_id"]) == [
        ("voided",)
    ]
    assert query(database_url, "SELECT count(*) FROM ratings.events WHERE type = 'PoolRecomputed'") == [(1,)]

    # the command-line rebuild agrees and finds nothing to rewrite; the voided game stays out
    assert cli_main(["ratings", "rebuild", "--dry-run"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical"] and report["games"] == 3
    assert cli_main(["ratings", "rebuild"]) == 0
    assert disputed["game_id"] not in {r[3] for r in history(database_url)}

    # a repeated void, and the disputed result delivered again, change nothing
    snapshot = current(database_url)
    bus.enqueue("GameVoided", voided(disputed["game_id"]), message_id="second-void")
    bus.enqueue("GameFinished", disputed, message_id="late-redelivery")
    bus.work()
    assert current(database_url) == snapshot


def test_a_game_voided_before_its_result_arrives_is_never_rated(bus: Bus, database_url: str, service) -> None:  # type: ignore[no-untyped-def]
    people = players(2)
    body = finished("cityhopper", people, [1, 2])
    bus.send("GameVoided", voided(body["game_id"]))
    bus.send("GameFinished", body)
    assert current(database_url) == {}
    assert service.rebuild(dry_run=True)["identical"]


def test_a_result_that_cannot_be_rated_is_logged_and_rejected(bus: Bus, database_url: str) -> None:
    body = finished("roparun", ["same", "same", "other"], [1, 2, 3])
    bus.send("GameFinished", body)
    assert current(database_url) == {}
    status = query(database_url, "SELECT status, reason FROM ratings.games WHERE game_id = %s", body["game_id"])
    assert status[0][0] == "rejected" and "players" in status[0][1]
