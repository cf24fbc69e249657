"""Issue 19 item 2: per-viewer copies are derived when read, not written per viewer per event.

Whole games of every game type are played through the service; the old writer (every viewer's copy
redacted at commit, as ``event_views`` rows were) is kept here as the expected side. Every viewer (each
seat, a spectator, an admin) gets exactly those copies from ``events`` (whole log and pages starting
anywhere, while the game runs and after the end) and from the live stream (SSE and NDJSON)."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from services.games.bootstrap import create_app as create_games_app
from services.games.engines.registry import default_registry
from services.games.service_layer.core import SPECTATOR, Committed, _redact
from shared.auth import Identity, PlayerDirectory
from shared.web.closing import close_app
from tests.e2e.conftest import settings_for

pytestmark = pytest.mark.e2e
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")
ADMIN = Identity(admin=True)
GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "paardenkoppen": (3, {"rounds": 1}),
    "hoppaa": (2, {}),
    "roparun": (2, {}),
    "klapper": (2, {}),
    "cityhopper": (2, {}),
    "diceduel": (2, {}),
}
MAX_MOVES = 160  # then the seat to move resigns: the log still has every kind of event up to there


def test_every_game_type_is_covered() -> None:
    assert sorted(GAMES) == sorted(e.game_type for e in REGISTRY.all())


@pytest.fixture
def app(database_url: str, redis_url: str) -> Iterator[Any]:
    made = create_games_app(settings_for(database_url, redis_url), REGISTRY)
    yield made
    close_app(made)


def old_copies(svc: Any, expected: dict[str, dict[int, dict[int, Any]]]) -> None:
    """Wrap ``_commit`` so every commit also records what main's writer stored for each viewer."""
    original = svc._commit

    def commit(repo, engine, table, events, identity, extra_outbox=None) -> Committed:  # type: ignore[no-untyped-def]
        new = table.clone()
        per_version: dict[int, dict[int, Any]] = {}
        for pending in events:
            before_state = new.progress.state if new.progress is not None else None
            new.apply(engine, pending.type, pending.payload)
            after_state = new.progress.state if new.progress is not None else None
            per_version[new.version] = {
                viewer: json.loads(
                    json.dumps(
                        _redact(engine, pending, None if viewer == SPECTATOR else viewer, before_state, after_state)
                    )
                )
                for viewer in range(-1, new.num_players)
            }
        committed = original(repo, engine, table, events, identity, extra_outbox)
        expected.setdefault(table.game_id, {}).update(per_version)
        return committed

    svc._commit = commit


def play(svc: Any, game_type: str, seats: list[str], check: Any) -> str:
    options = GAMES[game_type][1]
    engine = REGISTRY.get(game_type)
    provider = engine.selfplay_provider()
    game = svc.create_game(
        ADMIN,
        {"game_type": game_type, "seats": seats, "options": options, "seed": hashlib.sha256(game_type.encode()).hexdigest()},
    )
    game_id = game["id"]
    chooser = random.Random(game_type)
    for moves in range(2 * MAX_MOVES):
        table = svc._read_table(game_id)
        if table.status != "running":
            break
        if moves % 40 == 5:
            check(game_id)
        state = table.progress.state
        to_move = engine.to_move(state)
        if not to_move:
            wanted = engine.external_request(state)
            assert wanted is not None and provider is not None
            assert svc.resolve_external(game_id, wanted.kind, wanted.request_no, provider(wanted))
            continue
        seat = chooser.choice(to_move)
        if moves >= MAX_MOVES:
            svc.resign(Identity(player_id=seats[seat]), game_id)
            break
        move = chooser.choice(engine.selfplay_moves(state, seat))
        status, _, _ = svc.make_move(Identity(player_id=seats[seat]), game_id, move, table.version, None)
        assert status == 201
    assert svc._read_table(game_id).ended
    return game_id


@pytest.mark.parametrize("game_type", list(GAMES))
def test_every_viewer_reads_the_copies_the_old_writer_stored(app: Any, database_url: str, game_type: str) -> None:
    svc = app.extensions["games_service"]
    directory = PlayerDirectory(svc.uow.pool)
    accounts = [directory.register(f"{game_type[:8]}-{k}") for k in range(GAMES[game_type][0])]
    seats = [player_id for player_id, _ in accounts]
    expected: dict[str, dict[int, dict[int, Any]]] = {}
    old_copies(svc, expected)
    viewers = [Identity(player_id=p) for p in seats] + [Identity(), ADMIN]

    def wanted(game_id: str, identity: Identity, after: int, limit: int) -> list[dict[str, Any]]:
        table = svc._read_table(game_id)
        viewer = svc.viewer_of(table, identity)
        with svc.uow.read() as repo:
            stored = repo.events.read_stream(game_id, after, limit)
        return [
            {
                "version": e.version,
                "type": e.type,
                "payload": e.payload if viewer is None else expected[game_id][e.version][viewer],
                "recorded_at": e.metadata.get("recorded_at"),
            }
            for e in stored
        ]

    def check(game_id: str) -> None:
        version = svc._read_table(game_id).version
        starts = sorted({0, 1, version // 3, version // 2, max(0, version - 1), version})
        for identity in viewers:
            for after in starts:
                for limit in (1000, 7):
                    got = svc.events(game_id, identity, after, limit)["events"]
                    assert got == wanted(game_id, identity, after, limit), (identity, after, limit)

    game_id = play(svc, game_type, seats, check)
    check(game_id)
    assert len(expected[game_id]) == svc._read_table(game_id).version  # every event went through _commit

    client = app.test_client()
    tokens = [token for _, token in accounts]
    for identity, token in [(viewers[0], tokens[0]), (viewers[-2], None), (viewers[-1], "test-admin-token")]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        items = wanted(game_id, identity, 0, 10_000)
        sse = client.get(
            f"/v1/games/{game_id}/events/stream?timeout=5", headers={**headers, "Accept": "text/event-stream"}
        ).get_data(as_text=True)
        blocks = [b for b in sse.split("\n\n") if b and not b.startswith(("retry:", ":"))]
        assert blocks[-1].startswith("event: end")
        got = []
        for block in blocks[:-1]:
            assert block.count("\n") == 2, block[:300]
            id_line, event_line, data_line = block.split("\n")
            item = json.loads(data_line.removeprefix("data: "))
            assert id_line == f"id: {item['version']}" and event_line == f"event: {item['type']}"
            got.append(item)
        assert got == items
        ndjson = client.get(
            f"/v1/games/{game_id}/events/stream?timeout=5", headers={**headers, "Accept": "application/x-ndjson"}
        ).get_data(as_text=True)
        assert [json.loads(line) for line in ndjson.splitlines() if line.strip()] == items
