"""The pure clock arithmetic (services/games/domain/clock.py) with explicit times: Fischer increments,
per-move and correspondence allowances, simultaneous turns, clocks standing still while the game waits for
another service, deadlines and the validation of a table's clock settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from jsonschema import Draft202012Validator

from services.games.domain.clock import (
    ClockSettings,
    InvalidClock,
    Situation,
    TableClock,
    auto_move_index,
    json_schema,
    parse_settings,
    policies_for,
)
from services.matchmaking.service_layer.validation import schema_errors

T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def s(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def turn(*seats: int) -> Situation:
    return Situation(tuple(seats))


WAITING = Situation((), waiting=True)


def started(settings: ClockSettings, players: int = 2) -> TableClock:
    return TableClock.start(settings, players).record(T0, None, Situation())  # GameStarted at T0


def left(clock: TableClock, now: Situation, at: datetime) -> list[float]:
    return [r.total_seconds() for r in clock.remaining(now, at)]


def test_fischer_spends_the_movers_time_and_adds_the_increment_after_its_move() -> None:
    clock = started(ClockSettings("fischer", base_seconds=60, increment_seconds=5))
    assert clock.deadlines(turn(0)) == {0: s(60)}
    assert left(clock, turn(0), s(12.5)) == [47.5, 60]
    clock = clock.record(s(10), 0, turn(0))  # seat 0 moves after 10 s: 50 + 5
    assert left(clock, turn(1), s(10)) == [55, 60]
    assert clock.deadlines(turn(1)) == {1: s(70)}
    clock = clock.record(s(40), 1, turn(1))  # seat 1 used 30 s: 30 + 5
    assert left(clock, turn(0), s(40)) == [55, 35]
    assert clock.deadline(turn(0)) == s(95)  # seat 0's 55 s carried over


def test_fischer_time_does_not_reset_on_a_new_turn_and_never_goes_below_zero() -> None:
    clock = started(ClockSettings("fischer", base_seconds=30, increment_seconds=0))
    assert left(clock, turn(0), s(45)) == [0, 30]
    assert clock.expired(turn(0), s(45)) == [0]
    clock = clock.record(s(45), None, turn(0))  # a timeout recorded late: seat 0 keeps 0 s
    clock = clock.record(s(45), 0, turn(0))  # its automatic move
    assert left(clock, turn(0), s(45)) == [0, 30]
    assert clock.expired(turn(0), s(45)) == [0]  # still its turn with no time: played for again


def test_per_move_gives_every_turn_its_own_allowance() -> None:
    clock = started(ClockSettings("per_move", seconds=30))
    assert clock.deadlines(turn(0)) == {0: s(30)}
    clock = clock.record(s(25), 0, turn(0))
    assert clock.deadlines(turn(1)) == {1: s(55)}
    assert left(clock, turn(1), s(25)) == [30, 30]  # unused time is not carried over
    clock = clock.record(s(26), 1, turn(1))
    clock = clock.record(s(27), 0, turn(0))  # seat 0 moves again and stays to move: a fresh turn
    assert clock.deadlines(turn(0)) == {0: s(57)}


def test_correspondence_counts_days_per_move() -> None:
    clock = started(ClockSettings("correspondence", days_per_move=3))
    assert clock.deadline(turn(1)) == T0 + timedelta(days=3)
    clock = clock.record(T0 + timedelta(days=2), 1, turn(1))
    assert clock.deadline(turn(0)) == T0 + timedelta(days=5)


def test_simultaneous_turns_run_side_by_side_and_a_continuing_turn_keeps_its_deadline() -> None:
    clock = started(ClockSettings("per_move", seconds=30), players=3)
    assert clock.deadlines(turn(0, 1, 2)) == {0: s(30), 1: s(30), 2: s(30)}
    clock = clock.record(s(10), 1, turn(0, 1, 2))  # seat 1 discards; 0 and 2 still to move
    assert clock.deadlines(turn(0, 2)) == {0: s(30), 2: s(30)}
    assert clock.expired(turn(0, 2), s(30)) == [0, 2]


def test_no_clock_runs_while_the_game_waits_for_another_service() -> None:
    clock = started(ClockSettings("fischer", base_seconds=60, increment_seconds=5))
    clock = clock.record(s(10), 0, turn(0))  # seat 0's move asks for a question
    assert clock.deadlines(WAITING) == {}
    assert left(clock, WAITING, s(900)) == [55, 60]  # frozen while the question is fetched
    clock = clock.record(s(1000), None, WAITING)  # ClockResumed: the answer is recorded
    assert clock.deadlines(turn(0)) == {0: s(1055)}
    assert left(clock, turn(0), s(1010)) == [45, 60]


def test_per_move_after_an_external_wait_starts_a_fresh_turn() -> None:
    clock = started(ClockSettings("per_move", seconds=30))
    clock = clock.record(s(20), 0, turn(0))
    clock = clock.record(s(500), None, WAITING)
    assert clock.deadlines(turn(0)) == {0: s(530)}


def test_a_move_at_the_deadline_is_too_late() -> None:
    clock = started(ClockSettings("per_move", seconds=30))
    assert clock.in_time(turn(0), 0, s(29.999999))
    assert not clock.in_time(turn(0), 0, s(30))
    assert clock.expired(turn(0), s(29.999999)) == []
    assert clock.in_time(turn(0), 1, s(100))  # a seat whose clock does not run is never late


def test_the_view_shows_each_seats_time_and_the_deadline() -> None:
    clock = started(ClockSettings("fischer", "forfeit", base_seconds=60, increment_seconds=2))
    view = clock.view(turn(0), s(15))
    assert view["kind"] == "fischer" and view["base_seconds"] == 60 and view["increment_seconds"] == 2
    assert view["deadline"] == s(60).isoformat(timespec="microseconds")
    assert [(x["remaining_seconds"], x["running"]) for x in view["seats"]] == [(45.0, True), (60.0, False)]
    assert clock.view(turn(0), None)["as_of"] == T0.isoformat(timespec="microseconds")


@pytest.mark.parametrize(
    ("game_type", "clock", "policy", "field"),
    [
        ("klapper", {"kind": "sand"}, None, "clock.kind"),
        ("klapper", {"kind": "fischer"}, None, "clock.base_seconds"),
        ("klapper", {"kind": "fischer", "base_seconds": 0}, None, "clock.base_seconds"),
        ("klapper", {"kind": "fischer", "base_seconds": 60, "increment_seconds": 1.5}, None, "clock.increment_seconds"),
        ("klapper", {"kind": "per_move", "seconds": True}, None, "clock.seconds"),
        ("klapper", {"kind": "per_move", "seconds": 30, "days_per_move": 1}, None, "clock.days_per_move"),
        ("klapper", {"kind": "correspondence", "days_per_move": 61}, None, "clock.days_per_move"),
        ("klapper", "fischer", None, "clock"),
        ("klapper", {"kind": "per_move", "seconds": 30}, "skip", "timeout_policy"),
        ("klapper", None, "forfeit", "timeout_policy"),
        ("roparun", {"kind": "per_move", "seconds": 30}, "auto_move", "timeout_policy"),
        ("cityhopper", {"kind": "per_move", "seconds": 30}, "auto_move", "timeout_policy"),
    ],
)
def test_invalid_clock_settings_name_the_field(game_type: str, clock: object, policy: object, field: str) -> None:
    with pytest.raises(InvalidClock) as err:
        parse_settings(game_type, clock, policy)
    assert err.value.field == field


CLOCK_SAMPLES: list[tuple[str, object, object]] = [
    ("klapper", {"kind": "sand"}, None),
    ("klapper", {"kind": "fischer"}, None),
    ("klapper", {"kind": "fischer", "base_seconds": 0}, None),
    ("klapper", {"kind": "fischer", "base_seconds": 86_401}, None),
    ("klapper", {"kind": "fischer", "base_seconds": 60, "increment_seconds": 1.5}, None),
    ("klapper", {"kind": "fischer", "base_seconds": 60, "increment_seconds": -1}, None),
    ("klapper", {"kind": "fischer", "base_seconds": 60, "increment_seconds": 3_600}, "auto_move"),
    ("klapper", {"kind": "fischer", "base_seconds": 300}, None),
    ("klapper", {"kind": "per_move", "seconds": True}, None),
    ("klapper", {"kind": "per_move", "seconds": "30"}, None),
    ("klapper", {"kind": "per_move", "seconds": 30, "days_per_move": 1}, None),
    ("klapper", {"kind": "per_move", "seconds": 30}, "forfeit"),
    ("klapper", {"kind": "correspondence", "days_per_move": 61}, None),
    ("klapper", {"kind": "correspondence", "days_per_move": 60}, None),
    ("klapper", {"seconds": 30}, None),
    ("klapper", "fischer", None),
    ("klapper", {"kind": "per_move", "seconds": 30}, "skip"),
    ("klapper", None, "forfeit"),
    ("klapper", None, None),
    ("roparun", {"kind": "per_move", "seconds": 30}, "auto_move"),
    ("roparun", {"kind": "per_move", "seconds": 30}, "forfeit"),
    ("cityhopper", {"kind": "per_move", "seconds": 30}, "auto_move"),
    ("paardenkoppen", {"kind": "correspondence", "days_per_move": 3}, "auto_move"),
]


@pytest.mark.parametrize(("game_type", "clock", "policy"), CLOCK_SAMPLES)
def test_the_published_clock_schema_accepts_exactly_what_the_service_accepts(
    game_type: str, clock: object, policy: object
) -> None:
    """``json_schema`` (GET /v1/game-types ``clock.schema``, what matchmaking checks at its door) and
    ``parse_settings`` (what POST /v1/games accepts) agree, and name the same field when they refuse."""
    instance = {k: v for k, v in (("clock", clock), ("timeout_policy", policy)) if v is not None}
    errors = schema_errors(json_schema(game_type), instance, "")
    try:
        parse_settings(game_type, clock, policy)
    except InvalidClock as refused:
        assert refused.field in errors, (refused.field, errors)
    else:
        assert errors == {}


def test_the_clock_schema_documents_units_bounds_and_defaults() -> None:
    schema = json_schema("roparun")
    Draft202012Validator.check_schema(schema)
    assert schema["properties"]["timeout_policy"]["enum"] == ["forfeit"]  # ROPARUN: forfeit only
    assert json_schema("hoppaa")["properties"]["timeout_policy"]["enum"] == ["forfeit", "auto_move"]
    kinds = {b["if"]["properties"]["kind"]["const"]: b["then"] for b in schema["properties"]["clock"]["allOf"]}
    fischer = kinds["fischer"]["properties"]
    assert fischer["increment_seconds"] | {"description": ""} == {
        "type": "integer", "minimum": 0, "maximum": 3600, "default": 0, "x-unit": "seconds", "description": ""}
    assert fischer["base_seconds"]["minimum"] == 1 and "default" not in fischer["base_seconds"]
    assert kinds["correspondence"]["properties"]["days_per_move"]["x-unit"] == "days"
    assert kinds["per_move"]["required"] == ["seconds"]


def test_valid_settings_are_normalized() -> None:
    assert parse_settings("klapper", None, None) is None
    fischer = parse_settings("hoppaa", {"kind": "fischer", "base_seconds": 300}, "auto_move")
    assert fischer == ClockSettings("fischer", "auto_move", base_seconds=300, increment_seconds=0)
    assert fischer.as_dict() == {"kind": "fischer", "base_seconds": 300, "increment_seconds": 0}
    assert parse_settings("roparun", {"kind": "correspondence", "days_per_move": 2}, None) == ClockSettings(
        "correspondence", "forfeit", days_per_move=2
    )
    assert policies_for("klapper") == ["forfeit", "auto_move"] and policies_for("roparun") == ["forfeit"]


def test_the_automatic_move_follows_from_the_seed_and_the_version() -> None:
    seed = bytes(range(32))
    picks = [auto_move_index(seed, "g", v, 7) for v in range(200)]
    assert picks == [auto_move_index(seed, "g", v, 7) for v in range(200)]  # reproducible
    assert set(picks) == set(range(7))  # every legal move can be chosen
    assert picks != [auto_move_index(bytes(32), "g", v, 7) for v in range(200)]  # and the seed decides
    with pytest.raises(ValueError):
        auto_move_index(seed, "g", 1, 0)
