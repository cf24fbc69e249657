"""Issue 19 item 1: a move costs one round trip to PostgreSQL, one statement (``games.commit_move``:
the token's check, the Idempotency-Key's lock and its answer (inserted first: a stored one is found
there), the events, outbox and read model, its own transaction), with or without an Idempotency-Key;
a conflict that only shows at commit (another instance wrote the version this one had cached) is a 409
``stale_version``, never a 500, and the next try reloads and goes through.

Counted with libpq's protocol trace of the pool's only connection: a round trip is the client sending
and then waiting for the server's answer (a run of frontend messages followed by backend ones)."""

from __future__ import annotations

import re
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

from services.games.adapters.postgres import GamesRepository, UnitOfWork
from services.games.engines.registry import default_registry
from services.games.service_layer.errors import Conflict, IdempotencyInFlight, InvalidRequest
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity, PlayerDirectory, hash_token
from shared.db import make_pool

pytestmark = pytest.mark.integration
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")
ADMIN = Identity(admin=True)


@contextmanager
def traced(pool: Any) -> Iterator[Callable[[], dict[str, int]]]:
    """Traces the protocol of the pool's one connection; the callable counts what went over it."""
    with tempfile.TemporaryFile() as log:
        with pool.connection() as conn:
            pgconn = conn.pgconn
            pgconn.trace(log.fileno())
            pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)

        def counts() -> dict[str, int]:
            pgconn.untrace()
            log.seek(0)
            lines = [line.split("\t") for line in log.read().decode().splitlines() if "\t" in line]
            directions = "".join(line[0] for line in lines if line[0] in "FB")
            return {
                "round_trips": len(re.findall("F+B+", directions)),
                "syncs": sum(1 for line in lines if line[0] == "F" and line[2].startswith("Sync")),
                "executes": sum(1 for line in lines if line[0] == "F" and line[2].startswith("Execute")),
            }

        yield counts


@pytest.fixture
def pool(database_url: str):  # type: ignore[no-untyped-def]
    pool = make_pool(database_url, min_size=1, max_size=1)
    yield pool
    pool.close()


TOKENS: dict[str, str] = {}  # player id -> token hash


def diceduel(service: GamesService, pool: Any) -> tuple[str, list[str]]:
    accounts = [PlayerDirectory(pool).register(f"rt{k}") for k in range(2)]
    TOKENS.update({player_id: hash_token(token) for player_id, token in accounts})
    seats = [player_id for player_id, _ in accounts]
    game = service.create_game(ADMIN, {"game_type": "diceduel", "seats": seats})
    return game["id"], seats


def next_move(service: GamesService, game_id: str, seats: list[str]) -> tuple[Identity, int]:
    game = service.game_view(game_id, ADMIN)
    assert game["status"] == "running"
    return Identity(player_id=seats[game["to_move"][0]]), game["version"]


@pytest.mark.parametrize("with_key", [False, True], ids=["no-key", "idempotency-key"])
def test_a_move_is_one_round_trip_with_one_sync(pool: Any, with_key: bool) -> None:
    service = GamesService(REGISTRY, UnitOfWork(pool))
    game_id, seats = diceduel(service, pool)
    who, version = next_move(service, game_id, seats)
    service.make_move(who, game_id, {"type": "roll"}, version, "warm-up" if with_key else None)  # fills the caches
    who, version = next_move(service, game_id, seats)
    assert who.player_id is not None
    with traced(pool) as counts:  # the bearer token is checked in the same transaction (HTTP does this)
        status, body, replayed = service.make_move(
            who, game_id, {"type": "roll"}, version, "k1" if with_key else None, token_check=TOKENS[who.player_id]
        )
        counted = counts()
    assert (status, replayed, body["version"] > version) == (201, False, True)
    # one statement: games.commit_move (the token, [the key], the events, outbox, read model, [the answer])
    assert counted == {"round_trips": 1, "syncs": 1, "executes": 1}, counted
    assert service.game_view(game_id, ADMIN)["version"] == body["version"]  # it did commit
    if with_key:
        with pool.connection() as conn:
            row = conn.execute("SELECT status FROM games.idempotency WHERE key = 'k1'").fetchone()
        assert row == (201,)
        again = service.make_move(who, game_id, {"type": "roll"}, version, "k1")  # the first answer again
        assert again == (201, body, True)
        assert service.game_view(game_id, ADMIN)["version"] == body["version"]  # and nothing written


@pytest.mark.parametrize("key", [None, "late-key"])
def test_a_conflict_found_at_commit_is_409_and_the_retry_reloads(database_url: str, key: str | None) -> None:
    """Two instances (two processes' caches): B moves at version v; A, whose cache still says v, trusts
    it and sends its write; the unique key on (stream, version) refuses it at commit: 409."""
    pool_a, pool_b = make_pool(database_url, max_size=2), make_pool(database_url, max_size=2)
    try:
        a, b = GamesService(REGISTRY, UnitOfWork(pool_a)), GamesService(REGISTRY, UnitOfWork(pool_b))
        game_id, seats = diceduel(a, pool_a)
        who, version = next_move(a, game_id, seats)  # A's cache now holds version v
        b.make_move(who, game_id, {"type": "roll"}, version, None)
        with pytest.raises(Conflict) as refused:
            a.make_move(who, game_id, {"type": "roll"}, version, key)
        assert refused.value.status == 409 and refused.value.extra["code"] == "stale_version"
        after = b.game_view(game_id, ADMIN)
        with pool_a.connection() as conn:  # nothing of A's refused move was written
            if key:
                assert conn.execute("SELECT count(*) FROM games.idempotency").fetchone() == (0,)
            stored = conn.execute("SELECT max(version) FROM games.events WHERE stream_id = %s", (game_id,))
            assert stored.fetchone() == (after["version"],)
        if after["status"] == "running":
            mover = Identity(player_id=seats[after["to_move"][0]])
            status, body, _ = a.make_move(mover, game_id, {"type": "roll"}, after["version"], key)
            assert status == 201 and body["version"] > after["version"]
    finally:
        pool_a.close()
        pool_b.close()


def test_a_repeated_key_is_answered_by_the_one_statement(database_url: str) -> None:
    """Instance A moved with a key; B, whose cache is still at the version before, gets the same key
    again: its one statement finds A's answer after taking the key's lock and replays it, writing
    nothing (no unique-key failure, no second round trip)."""
    pool_a, pool_b = make_pool(database_url, max_size=1), make_pool(database_url, max_size=1)
    try:
        a, b = GamesService(REGISTRY, UnitOfWork(pool_a)), GamesService(REGISTRY, UnitOfWork(pool_b))
        game_id, seats = diceduel(a, pool_a)
        who, version = next_move(a, game_id, seats)
        next_move(b, game_id, seats)  # B's cache holds version v too
        first = a.make_move(who, game_id, {"type": "roll"}, version, "same-key")
        with traced(pool_b) as counts:
            again = b.make_move(who, game_id, {"type": "roll"}, version, "same-key")
            counted = counts()
        assert again == (first[0], first[1], True)
        assert counted == {"round_trips": 1, "syncs": 1, "executes": 1}, counted
        assert a.game_view(game_id, ADMIN)["version"] == first[1]["version"]  # nothing more written
        with pytest.raises(InvalidRequest) as other:  # the same key for another request: 422, nothing written
            b.make_move(who, game_id, {"type": "roll", "x": 1}, version, "same-key")
        assert other.value.field == "Idempotency-Key"
    finally:
        pool_a.close()
        pool_b.close()


def test_the_key_lock_waits_its_timeout_and_restores_it(pool: Any, database_url: str) -> None:
    """The Idempotency-Key's lock in games.commit_move is GamesRepository.lock_idempotency_key's: a move
    with a key held by a running request waits at most ``idempotency_wait`` (then 409 in flight, nothing
    written); one that gets the lock within its wait goes on, and, called inside a transaction, leaves
    that transaction's lock_timeout as it was (migration 0005 switches it only while it waits)."""
    service = GamesService(REGISTRY, UnitOfWork(pool), idempotency_wait=0.2)
    game_id, seats = diceduel(service, pool)
    who, version = next_move(service, game_id, seats)
    assert who.player_id is not None
    with make_pool(database_url, max_size=1) as other_pool, other_pool.connection() as holder:
        GamesRepository(holder).lock_idempotency_key(who.player_id, "held", 1.0)  # held until `holder` ends
        started = time.monotonic()
        with pytest.raises(IdempotencyInFlight):
            service.make_move(who, game_id, {"type": "roll"}, version, "held")
        assert 0.15 < time.monotonic() - started < 5
        assert service.game_view(game_id, ADMIN)["version"] == version  # nothing written
        status, _, _ = service.make_move(who, game_id, {"type": "roll"}, version, "free")  # another key: no wait
        assert status == 201
        holder.rollback()
        GamesRepository(holder).lock_idempotency_key(who.player_id, "k9", 1.0)  # released 0.3 s from now
        release = threading.Timer(0.3, holder.rollback)
        release.start()
        try:
            with pool.connection() as conn, conn.transaction():
                conn.execute("SET LOCAL lock_timeout = '7s'")
                started = time.monotonic()
                row = conn.execute(
                    "SELECT * FROM games.commit_move(%s, '[]', '[]', '[]', 'running', 0, '', '[]', NULL, NULL, %s,"
                    " NULL, 'k9', '5s', 'h', 201, '{}')",
                    (str(uuid.uuid4()), who.player_id),
                ).fetchone()
                assert row is None and 0.25 < time.monotonic() - started < 5  # it waited, then wrote
                assert conn.execute("SELECT current_setting('lock_timeout')").fetchone() == ("7s",)
                raise psycopg.Rollback()
        finally:
            release.join()
