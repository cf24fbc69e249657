"""Audit and offline verifier (issue 3): honest games pass; a changed row, a wrong revealed seed, a chance
event that does not match the seed, and an illegal move written straight into the store each fail, naming
the event; `speltafel verify` agrees with the audit endpoint's report."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from services.cli import main as cli_main
from services.games.adapters.postgres import UnitOfWork
from services.games.domain.audit import audit_export
from services.games.engines.registry import default_registry
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity
from shared.canonical import GENESIS_HASH, event_hash
from shared.db import make_pool

pytestmark = pytest.mark.integration
REGISTRY = default_registry("tests.support.diceduel:DiceDuel")
ADMIN = Identity(admin=True)


@pytest.fixture
def service(database_url: str):  # type: ignore[no-untyped-def]
    """The games service on the test database, with every game type and the test game Dice Duel."""
    pool = make_pool(database_url, max_size=4)
    yield GamesService(REGISTRY, UnitOfWork(pool))
    pool.close()


def players(database_url: str, n: int) -> list[str]:
    from shared.auth import PlayerDirectory

    pool = make_pool(database_url, max_size=2)
    ids = [PlayerDirectory(pool).register(f"p{k}")[0] for k in range(n)]
    pool.close()
    return ids


def finished_game(service: GamesService, seats: list[str]) -> str:
    game = service.create_game(ADMIN, {"game_type": "diceduel", "seats": seats})
    game_id = game["id"]
    while (game := service.game_view(game_id, ADMIN))["status"] == "running":
        seat = game["to_move"][0]
        who = Identity(player_id=seats[seat])
        service.make_move(who, game_id, {"type": "roll"}, game["version"], None)
    return game_id


def rehash(events: list[dict[str, Any]]) -> None:
    """What a forger with database access would do: recompute the chain after a change."""
    prev = GENESIS_HASH
    for e in events:
        e["prev_hash"] = prev
        e["hash"] = prev = event_hash(prev, e["stream_id"], e["version"], e["type"], e["payload"], e["metadata"])


def failing(report: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c["first_failing_event"] for c in report["checks"] if c["status"] == "fail"}


def verify_file(tmp_path: Path, document: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document))
    code = cli_main(["verify", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_verify_prints_a_human_summary_unless_asked_for_json(service, database_url, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 15 item 8: a person reading the terminal gets one line per check; `--json` the report."""
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    game_id = finished_game(service, players(database_url, 2))
    export = service.export(game_id, ADMIN)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    assert cli_main(["verify", str(path)]) == 0
    summary = capsys.readouterr().out
    assert summary.splitlines()[0] == f"{path}: game {game_id}: OK"
    assert "pass  hash_chain" in summary and "pass  final_state" in summary
    with pytest.raises(ValueError):
        json.loads(summary)
    export["events"][3]["metadata"] = {**export["events"][3]["metadata"], "actor": "mallory"}
    path.write_text(json.dumps(export))
    assert cli_main(["verify", str(path)]) == 1
    summary = capsys.readouterr().out
    assert "FAILED" in summary.splitlines()[0] and "fail  hash_chain at event 4" in summary, summary
    assert cli_main(["verify", "--json", str(path)]) == 1
    chain = json.loads(capsys.readouterr().out)["checks"][0]
    assert (chain["name"], chain["status"], chain["first_failing_event"]) == ("hash_chain", "fail", 4)
    assert cli_main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().out


def test_honest_game_passes_audit_and_offline_verifier(service, database_url, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    game_id = finished_game(service, players(database_url, 2))
    report = service.audit(game_id)
    assert report["ok"] and all(c["status"] == "pass" for c in report["checks"]), report
    code, offline = verify_file(tmp_path, service.export(game_id, ADMIN), capsys)
    assert code == 0 and offline == report


def test_changed_row_fails_hash_chain_in_both(service, database_url, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    game_id = finished_game(service, players(database_url, 2))
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("UPDATE games.events SET metadata = metadata || '{\"actor\": \"mallory\"}' "
                     "WHERE stream_id = %s AND version = 4", (game_id,))
    report = service.audit(game_id)
    assert failing(report)["hash_chain"] == 4
    service.cache = type(service.cache)()
    code, offline = verify_file(tmp_path, service.export(game_id, ADMIN), capsys)
    assert code == 1 and failing(offline) == failing(report)


def test_wrong_revealed_seed_and_forged_chance_are_named(service, database_url, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    game_id = finished_game(service, players(database_url, 2))
    export = service.export(game_id, ADMIN)

    wrong_seed = copy.deepcopy(export)
    wrong_seed["events"][-1]["payload"]["revealed_seed"] = "ab" * 32
    rehash(wrong_seed["events"])
    wrong_seed["head"]["hash"] = wrong_seed["events"][-1]["hash"]
    report = audit_export(wrong_seed, REGISTRY).as_dict()
    assert "hash_chain" not in failing(report)
    assert failing(report)["seed_commitment"] == len(wrong_seed["events"])
    code, offline = verify_file(tmp_path, wrong_seed, capsys)
    assert code == 1 and offline == report

    forged = copy.deepcopy(export)
    roll = next(e for e in forged["events"] if e["type"] == "ChanceResolved" and e["payload"]["purpose"] == "roll")
    roll["payload"]["values"] = [7 - roll["payload"]["values"][0]]  # a different face
    rehash(forged["events"])
    forged["head"]["hash"] = forged["events"][-1]["hash"]
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report)["chance_events"] == roll["version"]
    code, offline = verify_file(tmp_path, forged, capsys)
    assert code == 1 and failing(offline)["chance_events"] == roll["version"]


def test_illegal_move_written_into_the_store_is_caught(service, database_url, tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SPELTAFEL_EXTRA_ENGINES", "tests.support.diceduel:DiceDuel")
    seats = players(database_url, 2)
    game = service.create_game(ADMIN, {"game_type": "diceduel", "seats": seats})
    game_id = game["id"]
    not_to_move = 1 - game["to_move"][0]
    # forge a move by the seat that is NOT to move, chained correctly, then abort so the seed is revealed
    with psycopg.connect(database_url, autocommit=True) as conn:
        last = conn.execute("SELECT version, hash FROM games.events WHERE stream_id=%s ORDER BY version DESC LIMIT 1",
                            (game_id,)).fetchone()
        assert last is not None
        version, prev = last[0] + 1, last[1]
        payload = {"seat": not_to_move, "player_id": seats[not_to_move], "move": {"type": "stop"}}
        metadata = {"event_id": "00000000-0000-4000-8000-000000000001", "actor": seats[not_to_move]}
        digest = event_hash(prev, game_id, version, "MoveMade", payload, metadata)
        conn.execute(
            "INSERT INTO games.events (stream_id, version, event_id, type, payload, metadata, prev_hash, hash)"
            " VALUES (%s, %s, %s, 'MoveMade', %s, %s, %s, %s)",
            (game_id, version, metadata["event_id"], Jsonb(payload), Jsonb(metadata), prev, digest),
        )
        conn.execute("UPDATE games.games SET version = %s, head_hash = %s WHERE id = %s", (version, digest, game_id))
    service.cache = type(service.cache)()
    service.abort(ADMIN, game_id, "dispute")
    report = service.audit(game_id)
    assert "hash_chain" not in failing(report)
    assert failing(report)["moves_revalidated"] == version
    code, offline = verify_file(tmp_path, service.export(game_id, ADMIN), capsys)
    assert code == 1 and failing(offline) == failing(report)
