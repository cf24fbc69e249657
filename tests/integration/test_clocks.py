"""Clocks on real PostgreSQL with an injected clock (explicit times, no sleeping): a seat out of time
forfeits (a Klapper or HopPaa team-mode partnership loses together, named in ``forfeited_seats``), an
auto-played seat lets the game go on (a real-time game is played for move after move to its end), a late
move is refused with the timeout recorded, a timeout can be claimed only once it is due, and the audit (and
``speltafel verify``) flags a forged timeout of either kind (a move accepted after its seat's deadline, a
TimeExpired recorded before it), a forged automatic move and a forged timeout policy."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from services.cli import main as cli_main
from services.games.adapters.postgres import UnitOfWork
from services.games.domain.audit import audit_export
from services.games.domain.clock import auto_move_index
from services.games.engines.registry import default_registry
from services.games.service_layer.errors import Conflict, Forbidden, InvalidRequest
from services.games.service_layer.handlers import GamesService
from shared.auth import Identity, PlayerDirectory
from shared.canonical import GENESIS_HASH, event_hash
from shared.db import make_pool

pytestmark = pytest.mark.integration
REGISTRY = default_registry()
ADMIN = Identity(admin=True)
T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(database_url: str, clock: FakeClock):  # type: ignore[no-untyped-def]
    pool = make_pool(database_url, max_size=4)
    yield GamesService(REGISTRY, UnitOfWork(pool), now=clock)
    pool.close()


@pytest.fixture
def seats(database_url: str) -> list[str]:
    pool = make_pool(database_url, max_size=2)
    ids = [PlayerDirectory(pool).register(f"p{k}")[0] for k in range(4)]
    pool.close()
    return ids


def create(service: GamesService, game_type: str, seats: list[str], clock: dict[str, Any], policy: str) -> dict[str, Any]:
    return service.create_game(
        ADMIN, {"game_type": game_type, "seats": seats, "clock": clock, "timeout_policy": policy}
    )


def events(service: GamesService, game_id: str) -> list[dict[str, Any]]:
    return service.events(game_id, ADMIN, 0, 1000)["events"]


def play_first_legal(service: GamesService, game: dict[str, Any], seats: list[str]) -> dict[str, Any]:
    seat = game["to_move"][0]
    who = Identity(player_id=seats[seat])
    move = service.legal_moves(game["id"], who)["moves"][0]
    service.make_move(who, game["id"], move, game["version"], None)
    return service.game_view(game["id"], ADMIN)


def test_klapper_partnership_out_of_time_forfeits_together(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    """Item 1 (KL-2 partnerships {0,2} v {1,3}): the seat out of time and its partner rank last."""
    game = create(service, "klapper", seats, {"kind": "per_move", "seconds": 30}, "forfeit")
    assert game["clock"]["deadline"] == (T0 + timedelta(seconds=30)).isoformat(timespec="microseconds")
    clock.advance(12)
    game = play_first_legal(service, game, seats)  # in time
    late = game["to_move"][0]
    assert game["clock"]["seats"][late]["remaining_seconds"] == 30.0
    clock.advance(29)
    assert service.tick_clocks().expired == 0  # 29 s of 30: nothing due
    clock.advance(1)
    report = service.tick_clocks()
    assert (report.checked, report.expired) == (1, 1)
    game = service.game_view(game["id"], ADMIN)
    assert game["status"] == "finished"
    # KL-2: two partnerships of two (who partners whom follows the seating option's draw)
    losers = next(team for team in game["outcome"]["teams"] if late in team)
    assert len(losers) == 2 and sorted(len(t) for t in game["outcome"]["teams"]) == [2, 2]
    assert game["outcome"]["ranks"] == [2 if s in losers else 1 for s in range(4)]
    assert game["outcome"]["scores"] == [0.0 if s in losers else 1.0 for s in range(4)]
    assert game["outcome"]["team_ranks"] == [2 if late in team else 1 for team in game["outcome"]["teams"]]
    assert game["outcome"]["reason"] == f"seat {late} ran out of time"
    finished = events(service, game["id"])[-1]
    assert finished["type"] == "GameFinished" and finished["payload"]["forfeited_seats"] == sorted(losers)
    expired = [e for e in events(service, game["id"]) if e["type"] == "TimeExpired"]
    assert [(e["payload"]["seat"], e["payload"]["policy"]) for e in expired] == [(late, "forfeit")]
    audit = service.audit(game["id"])
    assert audit["ok"], audit
    assert next(c for c in audit["checks"] if c["name"] == "clock_times")["status"] == "pass"
    assert service.tick_clocks().checked == 0  # the deadline left the read model with the game


def test_real_time_free_for_all_forfeit_ranks_the_seat_last(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    game = create(service, "paardenkoppen", seats[:3], {"kind": "fischer", "base_seconds": 60, "increment_seconds": 5}, "forfeit")
    first = game["to_move"][0]
    clock.advance(50)
    game = play_first_legal(service, game, seats)
    assert game["clock"]["seats"][first]["remaining_seconds"] == 15.0  # 60 - 50 + 5
    second = game["to_move"][0]
    clock.advance(60)
    game = service.claim_timeout(Identity(player_id=seats[first]), game["id"])
    assert game["status"] == "finished"
    assert game["outcome"]["ranks"] == [2 if s == second else 1 for s in range(3)]
    assert service.audit(game["id"])["ok"]


def test_hoppaa_team_mode_partners_lose_together_on_time(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    """HP-43 team mode (seats 0+2 v 1+3): the seat out of time and its partner rank last together; the
    GameFinished names both as ``forfeited_seats`` (what a league scores by its forfeit rule)."""
    game = service.create_game(ADMIN, {"game_type": "hoppaa", "seats": seats, "options": {"mode": "team"},
                                       "clock": {"kind": "per_move", "seconds": 30}, "timeout_policy": "forfeit"})
    clock.advance(5)
    game = play_first_legal(service, game, seats)  # in time
    late = game["to_move"][0]
    partners = sorted({late, (late + 2) % 4})
    clock.advance(30)
    assert service.tick_clocks().expired == 1
    game = service.game_view(game["id"], ADMIN)
    assert game["status"] == "finished"
    assert game["outcome"]["teams"] == [[0, 2], [1, 3]]
    assert game["outcome"]["ranks"] == [2 if s in partners else 1 for s in range(4)]
    assert game["outcome"]["team_ranks"] == [2 if late in team else 1 for team in ([0, 2], [1, 3])]
    assert game["outcome"]["reason"] == f"seat {late} ran out of time"
    finished = events(service, game["id"])[-1]
    assert finished["type"] == "GameFinished" and finished["payload"]["forfeited_seats"] == partners
    audit = service.audit(game["id"])
    assert audit["ok"], audit
    forged = service.export(game["id"], ADMIN)  # a forger who blames the other partnership
    forged["events"][-1]["payload"]["forfeited_seats"] = [s for s in range(4) if s not in partners]
    rehash(forged)
    assert failing(audit_export(forged, REGISTRY).as_dict()) == {"final_state": finished["version"]}


def auto_played_to_the_end(service: GamesService, clock: FakeClock, seats: list[str]) -> dict[str, Any]:
    """Klapper for two, real time (Fischer 60 s + 2 s) with auto_move and at most one deal (KL-R-LEN): one
    move in time, then nobody moves; the ticker, every 5 s of the injected clock, plays for whichever seat
    is out of time until the game ends."""
    game = service.create_game(ADMIN, {
        "game_type": "klapper", "seats": seats[:2], "options": {"max_deals": 1},
        "clock": {"kind": "fischer", "base_seconds": 60, "increment_seconds": 2}, "timeout_policy": "auto_move"})
    clock.advance(10)
    game = play_first_legal(service, game, seats)
    first_timeout = None
    for _ in range(400):
        if game["status"] != "running":
            break
        clock.advance(5)
        if service.tick_clocks().expired and first_timeout is None:
            first_timeout = service.game_view(game["id"], ADMIN)
        game = service.game_view(game["id"], ADMIN)
    assert game["status"] == "finished", "the auto-played game did not end in 400 ticks"
    assert first_timeout is not None
    return first_timeout


def test_fischer_game_auto_played_through_many_moves_to_its_end(
    service: GamesService, clock: FakeClock, seats: list[str]
) -> None:
    """Real time with auto_move: a seat out of time keeps 0 s plus its increments, so every later turn of it
    is played for, move after move, and the game ends (here by the length guard or by its own rules) with
    an audit that re-derives every automatic move from the revealed seed."""
    first_timeout = auto_played_to_the_end(service, clock, seats)
    log = events(service, first_timeout["id"])
    expiries = [e for e in log if e["type"] == "TimeExpired"]
    late = expiries[0]["payload"]["seat"]
    assert first_timeout["clock"]["seats"][late]["remaining_seconds"] == 2.0  # 0 s left + 2 s after its auto move
    autos = [e for e in log if e["type"] == "MoveMade" and e["payload"].get("auto")]
    assert len(autos) >= 5 and len(autos) == len(expiries)
    assert {e["payload"]["policy"] for e in expiries} == {"auto_move"}
    for expired in expiries:  # each timeout is followed at once by the move played for that seat
        made = log[expired["version"]]  # versions are 1-based: the next event
        assert made["type"] == "MoveMade" and made["payload"]["auto"] is True
        assert made["payload"]["seat"] == expired["payload"]["seat"]
        assert made["payload"]["accepted_at"] == expired["payload"]["accepted_at"]
    assert log[-1]["type"] == "GameFinished" and "forfeited_seats" not in log[-1]["payload"]
    audit = service.audit(first_timeout["id"])
    assert audit["ok"], audit
    assert next(c for c in audit["checks"] if c["name"] == "clock_times")["status"] == "pass"


@pytest.mark.parametrize(("game_type", "players"), [("klapper", 4), ("hoppaa", 4), ("paardenkoppen", 3)])
def test_auto_played_seat_lets_the_game_continue(
    service: GamesService, clock: FakeClock, seats: list[str], game_type: str, players: int
) -> None:
    """auto_move (the card games): the seat's move is chosen from the committed seed; the game goes on
    and audits, the automatic move re-derived from the revealed seed."""
    seats = seats[:players]
    game = create(service, game_type, seats, {"kind": "per_move", "seconds": 20}, "auto_move")
    absent = game["to_move"][0]
    clock.advance(25)
    assert service.tick_clocks().expired >= 1
    after = service.game_view(game["id"], ADMIN)
    assert after["status"] == "running"
    log = events(service, game["id"])
    k = next(i for i, e in enumerate(log) if e["type"] == "TimeExpired")
    assert log[k]["payload"] | {"accepted_at": None} == {
        "seat": absent, "player_id": seats[absent], "policy": "auto_move",
        "deadline": (T0 + timedelta(seconds=20)).isoformat(timespec="microseconds"), "accepted_at": None,
    }
    made = log[k + 1]
    assert made["type"] == "MoveMade" and made["payload"]["seat"] == absent and made["payload"]["auto"] is True
    # the next seat has a whole turn from the automatic move on, and may play
    assert after["clock"]["deadline"] == (T0 + timedelta(seconds=45)).isoformat(timespec="microseconds")
    after = play_first_legal(service, after, seats)
    assert after["status"] == "running"
    service.abort(ADMIN, game["id"], "end of the test")  # reveals the seed: the audit re-derives the move
    audit = service.audit(game["id"])
    assert audit["ok"], audit
    seed = bytes.fromhex(events(service, game["id"])[-1]["payload"]["revealed_seed"])
    engine = REGISTRY.get(game_type)
    table = service._read_table(game["id"], until=log[k]["version"])
    assert table.progress is not None
    choices = engine.selfplay_moves(table.progress.state, absent)
    assert made["payload"]["move"] == choices[auto_move_index(seed, game["id"], log[k]["version"], len(choices))]


def test_a_move_after_the_deadline_is_refused_and_the_timeout_recorded(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    game = create(service, "klapper", seats, {"kind": "per_move", "seconds": 30}, "forfeit")
    seat = game["to_move"][0]
    who = Identity(player_id=seats[seat])
    move = service.legal_moves(game["id"], who)["moves"][0]
    clock.advance(30)  # exactly at the deadline: too late
    with pytest.raises(Conflict) as err:
        service.make_move(who, game["id"], move, game["version"], "k1")
    assert err.value.extra["code"] == "time_expired"
    game = service.game_view(game["id"], ADMIN)
    assert game["status"] == "finished" and game["outcome"]["ranks"][seat] == 2
    assert [e["type"] for e in events(service, game["id"])][-2:] == ["TimeExpired", "GameFinished"]


def test_a_timeout_can_be_claimed_only_once_it_is_due(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    game = create(service, "roparun", seats[:2], {"kind": "correspondence", "days_per_move": 2}, "forfeit")
    waiting = Identity(player_id=seats[1 - game["to_move"][0]])
    clock.advance(2 * 86400 - 1)
    with pytest.raises(Conflict, match="next deadline") as running:
        service.claim_timeout(waiting, game["id"])
    assert running.value.extra["code"] == "clock_running"
    outsider = PlayerDirectory(service.uow.pool).register("kibitzer")[0]
    with pytest.raises(Forbidden):
        service.claim_timeout(Identity(player_id=outsider), game["id"])
    unclocked = service.create_game(ADMIN, {"game_type": "roparun", "seats": seats[:2]})
    assert unclocked["clock"] is None
    with pytest.raises(InvalidRequest) as no_clock:
        service.claim_timeout(waiting, unclocked["id"])
    assert (no_clock.value.field, no_clock.value.extra["code"]) == ("clock", "no_clock")
    clock.advance(1)
    assert service.claim_timeout(waiting, game["id"])["status"] == "finished"
    with pytest.raises(Conflict):
        service.claim_timeout(waiting, game["id"])


def test_auto_move_is_refused_where_a_seat_cannot_be_played_for(service: GamesService, seats: list[str]) -> None:
    with pytest.raises(InvalidRequest) as err:
        create(service, "roparun", seats[:2], {"kind": "per_move", "seconds": 30}, "auto_move")
    assert err.value.field == "timeout_policy"
    with pytest.raises(InvalidRequest) as err:
        create(service, "klapper", seats, {"kind": "fischer", "base_seconds": -5}, "forfeit")
    assert err.value.field == "clock.base_seconds"


# -- forged timeouts ---------------------------------------------------------------------------------
def rehash(document: dict[str, Any]) -> None:
    """What a forger with database access would do: recompute the chain and head after a change."""
    prev = GENESIS_HASH
    for e in document["events"]:
        e["prev_hash"] = prev
        e["hash"] = prev = event_hash(prev, e["stream_id"], e["version"], e["type"], e["payload"], e["metadata"])
    document["head"]["hash"] = prev


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def failing(report: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c["first_failing_event"] for c in report["checks"] if c["status"] == "fail"}


def timed_out_game(service: GamesService, clock: FakeClock, seats: list[str]) -> dict[str, Any]:
    """Klapper, 30 s a move: one move at +10 s, the next seat times out at +45 s (its deadline +40 s)."""
    game = create(service, "klapper", seats, {"kind": "per_move", "seconds": 30}, "forfeit")
    clock.advance(10)
    play_first_legal(service, game, seats)
    clock.advance(35)
    assert service.tick_clocks().expired == 1
    return service.export(game["id"], ADMIN)


def test_audit_flags_a_move_accepted_after_the_clock_had_run_out(service: GamesService, clock: FakeClock, seats: list[str], tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    export = timed_out_game(service, clock, seats)
    assert audit_export(export, REGISTRY).ok
    forged = copy.deepcopy(export)
    move = next(e for e in forged["events"] if e["type"] == "MoveMade")
    move["payload"]["accepted_at"] = at(31)  # the seat's deadline was +30 s
    rehash(forged)
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report) == {"clock_times": move["version"]}, report
    detail = next(c for c in report["checks"] if c["name"] == "clock_times")["detail"]
    assert "after seat" in detail and "deadline" in detail
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert cli_main(["verify", "--json", str(path)]) == 1
    assert json.loads(capsys.readouterr().out) == report


def test_audit_flags_a_timeout_recorded_before_the_deadline(service: GamesService, clock: FakeClock, seats: list[str], tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    export = timed_out_game(service, clock, seats)
    forged = copy.deepcopy(export)
    expired = next(e for e in forged["events"] if e["type"] == "TimeExpired")
    expired["payload"]["accepted_at"] = at(39)  # the deadline was +40 s
    rehash(forged)
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report) == {"clock_times": expired["version"]}, report
    assert "early timeout" in next(c for c in report["checks"] if c["name"] == "clock_times")["detail"]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert cli_main(["verify", str(path)]) == 1
    assert f"fail  clock_times at event {expired['version']}" in capsys.readouterr().out

    moved = copy.deepcopy(export)  # a forger who also moves the deadline is caught by the times too
    expired = next(e for e in moved["events"] if e["type"] == "TimeExpired")
    expired["payload"]["accepted_at"] = expired["payload"]["deadline"] = at(39)
    rehash(moved)
    assert failing(audit_export(moved, REGISTRY).as_dict()) == {"clock_times": expired["version"]}


def test_audit_flags_a_forged_automatic_move_and_a_forged_policy(service: GamesService, clock: FakeClock, seats: list[str], tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A forger who swaps an automatic move for another legal one, or rewrites the table's timeout policy in
    a TimeExpired, is caught by ``clock_times`` in the audit and by ``speltafel verify`` (the hash chain
    recomputed, as a forger with database access would)."""
    game = auto_played_to_the_end(service, clock, seats)
    export = service.export(game["id"], ADMIN)
    assert audit_export(export, REGISTRY).ok
    engine = REGISTRY.get("klapper")

    forged = copy.deepcopy(export)
    k = next(i for i, e in enumerate(forged["events"]) if e["type"] == "MoveMade" and e["payload"].get("auto"))
    made = forged["events"][k]
    table = service._read_table(game["id"], until=made["version"] - 1)
    assert table.progress is not None
    legal = engine.legal_moves(table.progress.state, made["payload"]["seat"])
    made["payload"]["move"] = next(m for m in legal if m != made["payload"]["move"])
    rehash(forged)
    report = audit_export(forged, REGISTRY).as_dict()
    assert failing(report)["clock_times"] == made["version"], report
    assert "is not the one the seed picks" in next(c for c in report["checks"] if c["name"] == "clock_times")["detail"]
    path = tmp_path / "forged-move.json"
    path.write_text(json.dumps(forged))
    assert cli_main(["verify", "--json", str(path)]) == 1
    assert json.loads(capsys.readouterr().out) == report

    policy = copy.deepcopy(export)
    expired = next(e for e in policy["events"] if e["type"] == "TimeExpired")
    expired["payload"]["policy"] = "forfeit"  # as if the seat had lost, while the game went on
    rehash(policy)
    report = audit_export(policy, REGISTRY).as_dict()
    assert failing(report)["clock_times"] == expired["version"], report
    assert "policy" in next(c for c in report["checks"] if c["name"] == "clock_times")["detail"]
    path = tmp_path / "forged-policy.json"
    path.write_text(json.dumps(policy))
    assert cli_main(["verify", str(path)]) == 1
    assert f"fail  clock_times at event {expired['version']}" in capsys.readouterr().out


def test_no_clock_runs_while_the_game_waits_for_a_question(service: GamesService, clock: FakeClock, seats: list[str]) -> None:
    """CityHopper: from the move that asks the questions service until ClockResumed records the answer,
    no seat's time runs and the ticker finds nothing due; then the seat to move has a whole turn."""
    game = create(service, "cityhopper", seats[:2], {"kind": "per_move", "seconds": 30}, "forfeit")
    for _ in range(400):
        if game["waiting_for"] is not None or game["status"] != "running":
            break
        clock.advance(1)
        game = play_first_legal(service, game, seats)
    assert game["waiting_for"] is not None, "no question was asked in 400 moves"
    assert game["clock"]["paused"] is True and game["clock"]["deadline"] is None
    clock.advance(3600)  # the questions service is slow
    assert service.tick_clocks().checked == 0
    engine = REGISTRY.get("cityhopper")
    table = service._read_table(game["id"])
    assert table.progress is not None
    request = engine.external_request(table.progress.state)
    provider = engine.selfplay_provider()
    assert request is not None and provider is not None
    assert service.resolve_external(game["id"], request.kind, request.request_no, provider(request))
    log = events(service, game["id"])
    resumed = next(e for e in log if e["type"] == "ClockResumed")
    assert resumed["payload"] == {"accepted_at": clock.at.isoformat(timespec="microseconds")}
    game = service.game_view(game["id"], ADMIN)
    assert game["clock"]["paused"] is False
    assert game["clock"]["deadline"] == (clock.at + timedelta(seconds=30)).isoformat(timespec="microseconds")
    assert service.audit(game["id"])["ok"]
