"""Issue 17.2: the audit and `speltafel verify` accept a length adjudication only exactly at the table's
maximum: an honest adjudicated game passes both; a `GameAdjudicated` recorded before the maximum, or a log
that runs past the maximum without one, fails the `length_limit` check at that event (HP-R-LEN)."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from services.games.domain.audit import audit_export
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity
from tests.integration import test_audit
from tests.integration.test_audit import REGISTRY, failing, players, rehash, verify_file

pytestmark = pytest.mark.integration
ADMIN = Identity(admin=True)
service = test_audit.service  # the audit tests' fixture: the games service on the test database


def adjudicated_game(service: GamesService, seats: list[str], max_rounds: int) -> dict[str, Any]:
    """A 2-player HopPaa game played with uniformly random legal moves until the guard ends it; its export."""
    game = service.create_game(ADMIN, {"game_type": "hoppaa", "seats": seats, "options": {"max_rounds": max_rounds}})
    game_id, chooser = game["id"], random.Random(max_rounds)
    while (game := service.game_view(game_id, ADMIN))["status"] == "running":
        seat = chooser.choice(game["to_move"])
        who = Identity(player_id=seats[seat])
        move = chooser.choice(service.legal_moves(game_id, who)["moves"])
        service.make_move(who, game_id, move, game["version"], None)
    return service.export(game_id, ADMIN)


def resealed(document: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    for version, event in enumerate(events, start=1):
        event["version"] = version
    rehash(events)
    return {**document, "events": events, "head": {"version": events[-1]["version"], "hash": events[-1]["hash"]}}


def test_honest_adjudication_passes_audit_and_verify(service, database_url, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    document = adjudicated_game(service, players(database_url, 2), 1)
    types = [e["type"] for e in document["events"]]
    assert types[-2:] == ["GameAdjudicated", "GameFinished"]
    adjudicated = document["events"][-2]["payload"]
    assert adjudicated["rule"] == "HP-R-LEN" and adjudicated["limit"] == adjudicated["reached"] == 1
    assert types.count("RoundStarted") == 1  # round 2 never started
    report = service.audit(document["game_id"])
    assert report["ok"], report
    code, offline = verify_file(tmp_path, document, capsys)
    assert code == 0 and {c["name"]: c["status"] for c in offline["checks"]}["length_limit"] == "pass"


def test_early_adjudication_is_flagged(service, database_url, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    document = adjudicated_game(service, players(database_url, 2), 1)
    events = copy.deepcopy(document["events"])
    ending = events[-2:]
    moves = [k for k, e in enumerate(events) if e["type"] == "MoveMade"]
    forged = resealed(document, events[: moves[len(moves) // 2]] + ending)  # stopped mid-round
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report)["length_limit"] == forged["events"][-2]["version"], report
    code, offline = verify_file(tmp_path, forged, capsys)
    assert code == 1 and failing(offline)["length_limit"] == failing(report)["length_limit"]


def test_a_log_past_its_maximum_without_adjudication_is_flagged(service, database_url, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    document = adjudicated_game(service, players(database_url, 2), 2)
    events = copy.deepcopy(document["events"])
    created = events[0]["payload"]
    created["max_length"]["limit"] = created["options"]["max_rounds"] = 1  # as if the table allowed 1 round
    forged = resealed(document, events)
    round_two = next(e["version"] for e in forged["events"] if e["type"] == "RoundStarted" and e["payload"]["round"] == 2)
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report)["length_limit"] == round_two, report
    code, offline = verify_file(tmp_path, forged, capsys)
    assert code == 1 and "length_limit" in failing(offline)
