"""The games service's integrity promises over HTTP (issue 14 items 10-13): who may abort, an export whose
every top-level field is checked by `speltafel verify`, concurrent retries with one Idempotency-Key, and
what the rules never reveal staying hidden after the end (PK R12, HP-R21, RR-13 / R29, KL-44 / KL §4)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
import requests

from services.games.adapters.postgres import GamesRepository
from services.games.bootstrap import create_app as create_games_app
from services.games.domain.table import Table
from services.games.engines.hoppaa.state import HopPaaState
from services.games.engines.klapper.cards import name as klapper_name
from services.games.engines.klapper.state import KlapperState
from services.games.engines.paardenkoppen.cards import card_id as pk_card_id
from services.games.engines.paardenkoppen.state import PKState
from services.games.engines.registry import default_registry
from services.games.engines.roparun.state import RoparunState
from tests.e2e.conftest import ADMIN, Client, Server, register, settings_for

pytestmark = pytest.mark.e2e
REGISTRY = default_registry("")


def speltafel_verify(tmp_path: Path, document: dict[str, Any], extra_engines: str = "") -> tuple[int, dict[str, Any]]:
    """`speltafel verify FILE` as an auditor runs it: a separate process, no database, no network."""
    path = tmp_path / f"export-{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(document))
    env = {**os.environ, "SPELTAFEL_EXTRA_ENGINES": extra_engines}
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", "verify", "--json", str(path)],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    return done.returncode, json.loads(done.stdout)


def diceduel_game(base: str) -> tuple[str, list[Client]]:
    clients = [register(base, f"p{k}") for k in range(2)]
    r = Client(base, ADMIN).post("/v1/games", {"game_type": "diceduel", "seats": [c.player_id for c in clients]})
    assert r.status_code == 201, r.text
    return r.json()["id"], clients


def finish_diceduel(base: str, game_id: str, clients: list[Client]) -> None:
    for _ in range(500):
        game = clients[0].get(f"/v1/games/{game_id}").json()
        if game["status"] != "running":
            return
        player = clients[game["to_move"][0]]
        r = player.post(f"/v1/games/{game_id}/moves", {"move": {"type": "roll"}, "expected_version": game["version"]})
        assert r.status_code == 201, r.text
    raise AssertionError("game did not end")


# ---------------------------------------------------------------------------------------------- item 10
def test_abort_without_a_token_is_401_and_with_a_player_token_403(games_url: str) -> None:
    """No identity is 401 (with WWW-Authenticate); an identity without the admin right is 403."""
    game_id, clients = diceduel_game(games_url)
    anonymous = requests.post(f"{games_url}/v1/games/{game_id}/abort", json={"reason": "x"}, timeout=10)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.headers["Content-Type"] == "application/problem+json"
    assert anonymous.headers.get("WWW-Authenticate", "").startswith("Bearer")
    player = clients[0].post(f"/v1/games/{game_id}/abort", {"reason": "x"})
    assert player.status_code == 403, player.text
    assert Client(games_url, ADMIN).get(f"/v1/games/{game_id}").json()["status"] == "running"  # nothing changed


# ---------------------------------------------------------------------------------------------- item 11
def _tamper(field: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        if field == "revealed_seed":
            doc[field] = "ab" * 32
        elif field == "commitment":
            doc[field] = hashlib.sha256(b"another seed").hexdigest()
        elif field == "status":
            doc[field] = "aborted"
        elif field == "game_type":
            doc[field] = "klapper"
        elif field == "game_id":
            doc[field] = str(uuid.uuid4())
        elif field == "scheme":
            doc[field] = "speltafel-v0"
        elif field == "format":
            doc[field] = "speltafel-game-export/0"
        elif field == "head":
            doc[field] = {"version": doc["head"]["version"], "hash": "0" * 64}
        elif field == "winner":  # a field nothing in the log backs: an auditor would read it unchecked
            doc[field] = "seat 1"
        else:
            raise AssertionError(field)

    return change


TOP_LEVEL = ["revealed_seed", "commitment", "status", "game_type", "game_id", "scheme", "format", "head", "winner"]


def test_untampered_export_verifies(games_url: str, tmp_path: Path) -> None:
    game_id, clients = diceduel_game(games_url)
    finish_diceduel(games_url, game_id, clients)
    export = clients[0].get(f"/v1/games/{game_id}/export").json()
    code, report = speltafel_verify(tmp_path, export, "tests.support.diceduel:DiceDuel")
    assert code == 0 and report["ok"], report
    assert report == requests.get(f"{games_url}/v1/games/{game_id}/audit", timeout=30).json()


@pytest.mark.parametrize("field", TOP_LEVEL)
def test_verify_fails_naming_each_tampered_top_level_field(games_url: str, tmp_path: Path, field: str) -> None:
    """Changing only one top-level field of an export (the log untouched) is ok:false, a non-zero exit of
    `speltafel verify`, and the failing check names the field."""
    game_id, clients = diceduel_game(games_url)
    finish_diceduel(games_url, game_id, clients)
    export = clients[0].get(f"/v1/games/{game_id}/export").json()
    _tamper(field)(export)
    code, report = speltafel_verify(tmp_path, export, "tests.support.diceduel:DiceDuel")
    assert code != 0 and report["ok"] is False, report
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert any(field in c["detail"] for c in failed), failed


def test_verify_fails_when_a_top_level_field_is_missing(games_url: str, tmp_path: Path) -> None:
    game_id, clients = diceduel_game(games_url)
    finish_diceduel(games_url, game_id, clients)
    export = clients[0].get(f"/v1/games/{game_id}/export").json()
    del export["head"]
    code, report = speltafel_verify(tmp_path, export, "tests.support.diceduel:DiceDuel")
    assert code != 0 and not report["ok"]
    assert any("head" in c["detail"] for c in report["checks"] if c["status"] == "fail"), report


# ---------------------------------------------------------------------------------------------- item 12
@pytest.mark.parametrize("n", [4, 8])
def test_concurrent_posts_with_one_idempotency_key_all_get_the_first_answer(
    games_url: str, database_url: str, n: int
) -> None:
    game_id, clients = diceduel_game(games_url)
    game = clients[0].get(f"/v1/games/{game_id}").json()
    mover = clients[game["to_move"][0]]
    body = {"move": {"type": "roll"}, "expected_version": game["version"]}
    start = threading.Barrier(n)

    def send(_: int) -> requests.Response:
        with requests.Session() as http:
            start.wait(timeout=10)
            return http.post(
                f"{games_url}/v1/games/{game_id}/moves",
                json=body,
                headers={"Authorization": f"Bearer {mover.token}", "Idempotency-Key": "one-key"},
                timeout=60,
            )

    with ThreadPoolExecutor(n) as ex:
        answers = list(ex.map(send, range(n)))
    assert [a.status_code for a in answers] == [201] * n, [(a.status_code, a.text) for a in answers]
    assert all(a.json() == answers[0].json() for a in answers)
    replayed = [a.headers.get("Idempotent-Replayed") for a in answers]
    assert replayed.count("true") == n - 1 and replayed.count(None) == 1, replayed
    again = mover.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": "one-key"})
    assert again.status_code == 201 and again.json() == answers[0].json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    with psycopg.connect(database_url) as conn:
        moves = conn.execute(
            "SELECT count(*) FROM games.events WHERE stream_id = %s AND type = 'MoveMade'", (game_id,)
        ).fetchone()
        keys = conn.execute("SELECT count(*) FROM games.idempotency WHERE key = 'one-key'").fetchone()
    assert moves == (1,) and keys == (1,)  # one move written, one answer stored


def test_a_retry_while_the_first_is_still_running_gets_409_in_flight_with_retry_after(
    database_url: str, redis_url: str
) -> None:
    """Past the wait, a same-key request gets 409 `idempotency_in_flight` with Retry-After and writes
    nothing; once the first is done the key is free again."""
    app = create_games_app(settings_for(database_url, redis_url), default_registry("tests.support.diceduel:DiceDuel"))
    app.extensions["games_service"].idempotency_wait = 0.3
    server = Server(app)
    try:
        game_id, clients = diceduel_game(server.url)
        game = clients[0].get(f"/v1/games/{game_id}").json()
        mover = clients[game["to_move"][0]]
        body = {"move": {"type": "roll"}, "expected_version": game["version"]}
        with psycopg.connect(database_url) as conn, conn.transaction():  # a first request holding the key
            GamesRepository(conn).lock_idempotency_key(str(mover.player_id), "slow-key", 1.0)
            busy = mover.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": "slow-key"})
        assert busy.status_code == 409 and busy.headers["Content-Type"] == "application/problem+json"
        assert busy.json()["code"] == "idempotency_in_flight" and int(busy.headers["Retry-After"]) >= 1
        assert "Idempotency-Key" in busy.json()["errors"]
        assert clients[0].get(f"/v1/games/{game_id}").json()["version"] == game["version"]  # nothing written
        done = mover.post(f"/v1/games/{game_id}/moves", body, headers={"Idempotency-Key": "slow-key"})
        assert done.status_code == 201 and "Idempotent-Replayed" not in done.headers
    finally:
        server.stop()


def test_in_flight_conflict_is_documented_in_openapi(games_url: str) -> None:
    spec = requests.get(f"{games_url}/openapi.json", timeout=10).json()
    post = spec["paths"]["/v1/games/{game_id}/moves"]["post"]
    conflict = post["responses"]["409"]
    assert "idempotency_in_flight" in conflict["description"] and "Retry-After" in conflict.get("headers", {})
    assert "Idempotent-Replayed" in post["responses"]["201"].get("headers", {})


# ---------------------------------------------------------------------------------------------- item 13
Secret = Callable[[Any, int | None], set[str]]


def pk_secret(s: PKState, seat: int | None) -> set[str]:
    """PK R12 / §4: cards left in hands when the round ends are never revealed (the owner knows its own)."""
    return {pk_card_id(c) for k, hand in enumerate(s.hands) if k != seat for c in hand}


def hp_secret(s: HopPaaState, seat: int | None) -> set[str]:
    """HP-R21: discards and the 2-player reserve are never shown to other players; hands only to owners."""
    hands = {c for k, hand in enumerate(s.hands) if k != seat for c in hand}
    discards = {c for k, c in enumerate(s.discards) if c is not None and k != seat}
    return hands | discards | set(s.reserve)


def rr_secret(s: RoparunState, seat: int | None) -> set[str]:
    """RR-13 / R29: face-down discards are never revealed; §4: stock order nobody, hands their owner."""
    hands = {c for k, hand in enumerate(s.hands) if k != seat for c in hand}
    return hands | set(s.discard_down) | set(s.stock)


def kl_secret(s: KlapperState, seat: int | None) -> set[str]:
    """KL-44 / §4: dead-hand cards other than the turned card are never revealed; extras and hands hidden."""
    hidden = list(s.dead_hand) + [c for e in s.extras for c in e]
    hidden += [c for k, hand in enumerate(s.hands) if k != seat for c in hand]
    public = {s.turned_card} | {c for _, c in s.omboeren_cards}
    return {klapper_name(c) for c in hidden if c not in public}


GAMES: dict[str, tuple[int, dict[str, Any], Callable[[Any], bool] | None, Secret]] = {
    # game (a label after a space: another run of it): players, options, when to resign (None: played to
    # its natural end; Paardenkoppen's one round ends by the rules, leaving the R12 leftover hands. A game
    # of several deals is not: a card hidden at its end may have been played openly in an earlier deal)
    "paardenkoppen": (3, {"rounds": 1}, None, pk_secret),
    "hoppaa": (2, {}, lambda s: bool(s.discards) and all(d is not None for d in s.discards), hp_secret),
    "roparun": (2, {}, lambda s: len(s.discard_down) >= 2, rr_secret),
    "klapper": (2, {}, lambda s: bool(s.dead_hand) and s.phase == "play", kl_secret),
}


@pytest.fixture
def streams_url(database_url: str, redis_url: str) -> Iterator[str]:
    """The stream gateway (`speltafel streams`) beside the games service, on the same database."""
    from services.games.bootstrap import create_streams
    from tests.support.streams import StreamServer

    server = StreamServer(create_streams(settings_for(database_url, redis_url), REGISTRY))
    yield server.url
    server.stop()


def play(games_url: str, label: str) -> tuple[str, list[Client], Table, set[str]]:
    """A finished game of ``label``'s game type (random legal moves, resigning once hidden places are
    filled, or to its natural end), and every card seat 0 knew at some point (its own hands and discards)."""
    num_players, options, resign_when, secret_of = GAMES[label]
    game_type = label.split(" ")[0]
    known_to_seat0: set[str] = set()
    engine = REGISTRY.get(game_type)
    admin = Client(games_url, ADMIN)
    seats = [register(games_url, f"{game_type}-{k}") for k in range(num_players)]
    r = admin.post(
        "/v1/games",
        {
            "game_type": game_type,
            "seats": [c.player_id for c in seats],
            "options": options,
            "seed": hashlib.sha256(label.encode()).hexdigest(),
        },
    )
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    chooser = random.Random(label)
    mirror, mirrored = Table(game_id), 0
    for _ in range(3000):
        for event in admin.get(f"/v1/games/{game_id}/events", params={"after": mirrored}).json()["events"]:
            mirror.apply(engine, event["type"], event["payload"])
            mirrored = event["version"]
            if mirror.progress is not None:
                state = mirror.progress.state
                known_to_seat0 |= secret_of(state, None) - secret_of(state, 0)
        if mirror.status != "running":
            break
        assert mirror.progress is not None
        if resign_when is not None and resign_when(mirror.progress.state):
            assert seats[0].post(f"/v1/games/{game_id}/resign").status_code == 200
            continue
        seat = chooser.choice(engine.to_move(mirror.progress.state))
        move = chooser.choice(engine.selfplay_moves(mirror.progress.state, seat))
        answer = seats[seat].post(f"/v1/games/{game_id}/moves", {"move": move, "expected_version": mirror.version})
        assert answer.status_code == 201, answer.text
    assert mirror.status == "finished"
    if resign_when is None:  # played to the end: nobody resigned
        assert mirror.progress is not None and not any(
            e["type"] == "PlayerResigned" for e in admin.get(f"/v1/games/{game_id}/events").json()["events"])
    return game_id, seats, mirror, known_to_seat0


def everything_seen_by(client: Client | None, games_url: str, game_id: str, version: int,
                       streams_url: str) -> dict[str, str]:
    """What one caller gets from every endpoint that shows a game (no client: anonymous), the live stream
    from the games service and from the stream gateway, as SSE and as NDJSON."""
    http = client.http if client is not None else requests.Session()
    base = f"{games_url}/v1/games/{game_id}"
    seen = {
        "view": http.get(base, timeout=30).text,
        "events": http.get(f"{base}/events", timeout=30).text,
    }
    for v in range(1, version + 1):
        seen[f"state?version={v}"] = http.get(f"{base}/state", params={"version": v}, timeout=30).text
    for server, url in (("games", base), ("stream gateway", f"{streams_url}/v1/games/{game_id}")):
        for accept in ("text/event-stream", "application/x-ndjson"):
            with http.get(f"{url}/events/stream", params={"timeout": 2}, headers={"Accept": accept}, stream=True,
                          timeout=30) as r:
                assert r.status_code == 200, r.text
                seen[f"stream {accept} ({server})"] = r.raw.read().decode()
    return seen


def leaks(secret: set[str], seen: dict[str, str]) -> dict[str, list[str]]:
    found = {where: sorted(c for c in secret if json.dumps(c) in text) for where, text in seen.items()}
    return {where: cards for where, cards in found.items() if cards}


@pytest.mark.parametrize("label", list(GAMES))
def test_after_the_end_what_the_rules_never_reveal_stays_hidden(
    games_url: str, streams_url: str, tmp_path: Path, label: str
) -> None:
    """PK R12 leftover hands, HP-R21 discards and reserve, RR-13 / R29 face-down discards and stock, KL-44
    dead hand: after the end, anonymous callers and spectators get none of them from the view, the events,
    the live stream or state?version=N; deal shuffles stay redacted; a player of the game sees its own
    cards; the export (players and admins only) still carries everything and verifies."""
    game_id, seats, final, known_to_seat0 = play(games_url, label)
    game_type = label.split(" ")[0]
    secret_of = GAMES[label][3]
    assert final.progress is not None
    secret = secret_of(final.progress.state, None)
    assert secret, "the game left cards in hidden places"
    spectator = register(games_url, "watcher")
    for who, client in (("anonymous", None), ("spectator", spectator)):
        seen = everything_seen_by(client, games_url, game_id, final.version, streams_url)
        assert not leaks(secret, seen), f"{who} sees {leaks(secret, seen)}"
        events = json.loads(seen["events"])["events"]
        deals = [e for e in events if e["type"] == "ChanceResolved" and e["payload"]["purpose"] == "deal"]
        assert deals and all(e["payload"]["values"] == "hidden" for e in deals), f"{who} sees a deal shuffle"
        assert json.loads(seen["view"])["revealed_seed"]  # the seed stays public: deals are verifiable

    # a player of the game: its own cards (also those it discarded), nobody else's
    others = secret_of(final.progress.state, 0) - known_to_seat0
    seen = everything_seen_by(seats[0], games_url, game_id, final.version, streams_url)
    assert not leaks(others, seen), f"seat 0 sees {leaks(others, seen)}"
    own = secret - secret_of(final.progress.state, 0)  # what seat 0 holds (HopPaa: and its discard) now
    assert all(json.dumps(c) in seen["view"] for c in own), "a player sees its own cards after the end"

    # the export: players of the game and admins only, with everything in it
    anonymous = requests.get(f"{games_url}/v1/games/{game_id}/export", timeout=30)
    assert anonymous.status_code == 401 and anonymous.headers["Content-Type"] == "application/problem+json"
    assert spectator.get(f"/v1/games/{game_id}/export").status_code == 403
    engine = REGISTRY.get(game_type)
    for reader in (seats[1], Client(games_url, ADMIN)):
        export = reader.get(f"/v1/games/{game_id}/export")
        assert export.status_code == 200, export.text
        replayed = Table(game_id)
        for event in export.json()["events"]:
            replayed.apply(engine, event["type"], event["payload"])
        assert replayed.progress is not None and secret_of(replayed.progress.state, None) == secret
        code, report = speltafel_verify(tmp_path, export.json())
        assert code == 0 and report["ok"], report
    audit = requests.get(f"{games_url}/v1/games/{game_id}/audit", timeout=60).json()
    assert audit["ok"] and not leaks(secret, {"audit": json.dumps(audit)})

