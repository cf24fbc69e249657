"""The audit of one game, from its stored events alone (used by the endpoint and the offline verifier).

Checks: the hash chain; the revealed seed against its commitment; every chance event re-derived from
the seed; every move re-validated by the engine in order (and the events it caused compared with the
recorded ones); the final outcome reproduced; the length guard (``length_limit``: a game never passes
its recorded maximum, and ``GameAdjudicated`` comes exactly there, with the replayed adjudication); and every top-level field of an export against the log
(``export_fields``), so nothing an auditor reads outside the hash-chained events goes unchecked.
On a clocked table (``clock_times``) every recorded time is re-checked: no move accepted at or after its
seat's deadline, no ``TimeExpired`` before the deadline or with another policy than the table's, times
that never go backwards, and each automatic move the one the seed picks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.games.domain import length
from services.games.domain.clock import TIMED_EVENTS, auto_move_index, iso, parse_time
from services.games.domain.play import Progress, SeedMaterial
from services.games.domain.table import (
    SERVICE_EVENTS,
    Table,
    forfeited_seats,
    resign_outcome,
    table_teams,
    timeout_outcome,
)
from services.games.engines.base import CHANCE_EVENT, EXTERNAL_EVENT, Engine, EngineError, IllegalMove
from services.games.engines.registry import Registry, UnknownGameType
from shared.eventstore.chain import verify_chain
from shared.fairness import commitment

EXPORT_FIELDS = ("format", "game_id", "game_type", "status", "scheme", "commitment", "revealed_seed", "head", "events")

EXPORT_FORMAT = "speltafel-game-export/1"


@dataclass
class Check:
    name: str
    status: str = "pass"  # pass | fail | skipped
    first_failing_event: int | None = None
    detail: str = ""

    def fail(self, version: int | None, detail: str) -> None:
        if self.status != "fail":
            self.status, self.first_failing_event, self.detail = "fail", version, detail

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "first_failing_event": self.first_failing_event,
            "detail": self.detail,
        }


@dataclass
class AuditReport:
    game_id: str
    checks: list[Check]
    flags: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "ok": self.ok,
            "checks": [c.as_dict() for c in self.checks],
            "flags": self.flags,
        }


def _strip(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "type"}


def audit_events(
    game_id: str,
    events: Sequence[dict[str, Any]],
    registry: Registry,
    head: tuple[int, str] | None = None,
    replayed: Callable[[int], None] | None = None,
) -> AuditReport:
    """``replayed``: called with each event's version as the replay passes it (a progress bar's tick)."""
    chain, seed_check = Check("hash_chain"), Check("seed_commitment")
    chance, moves, final = Check("chance_events"), Check("moves_revalidated"), Check("final_state")
    clock, limit = Check("clock_times"), Check("length_limit")
    report = AuditReport(game_id, [chain, seed_check, chance, moves, final, limit, clock])

    result = verify_chain(events, head)
    if not result.ok:
        chain.fail(result.first_bad_version, result.problem or "hash chain broken")
    if not events or events[0]["type"] != "GameCreated":
        for check in (seed_check, chance, moves, final, limit, clock):
            check.fail(1, "the log does not start with GameCreated")
        return report
    created = events[0]["payload"]
    try:
        engine = registry.get(created["game_type"])
    except UnknownGameType:
        for check in (chance, moves, final, limit, clock):
            check.fail(1, f"unknown game type {created['game_type']!r}")
        return report

    revealed = next(
        (e["payload"].get("revealed_seed") for e in events if e["type"] in {"GameFinished", "GameAborted"}),
        None,
    )
    server_seed: bytes | None = None
    if revealed is None:
        seed_check.status, seed_check.detail = "skipped", "the seed is revealed when the game ends"
        chance.status, chance.detail = "skipped", "needs the revealed seed"
    else:
        try:
            server_seed = bytes.fromhex(revealed)
        except ValueError:
            seed_check.fail(len(events), "the revealed seed is not hex")
        if server_seed is not None and commitment(server_seed) != created["commitment"]:
            seed_check.fail(len(events), "the revealed seed does not match the commitment made at creation")
            server_seed = None
    if created.get("seed_fixed"):
        report.flags.append("the server seed was fixed by an admin at creation (test or replayed table)")
    setup = created.get("setup") or []
    if setup:
        report.flags.append(f"chance events 0..{len(setup) - 1} were prescribed by an admin (recorded setup)")

    timer = ClockAudit(clock, server_seed, game_id)
    if not created.get("max_length"):
        limit.detail = "no maximum length was recorded at creation (the game type has none): nothing to pass"
    _replay_and_compare(engine, events, moves, final, chance, server_seed, game_id, setup, timer, limit, replayed)
    if not created.get("clock") and clock.status == "pass":
        clock.detail = "the table has no clock: no time to re-check, and no timeout was recorded"
    return report


@dataclass
class ClockAudit:
    """Re-checks a clocked table's recorded times while the log is replayed (``observe`` before each
    event is applied to the table)."""

    check: Check
    server_seed: bytes | None
    game_id: str
    auto: tuple[int, str, int] | None = None  # (seat, accepted_at, version of TimeExpired) owed a move

    def observe(self, engine: Engine[Any], table: Table, version: int, type_: str, payload: dict[str, Any]) -> None:
        check = self.check
        if table.clock is None:
            if type_ == "TimeExpired" or (type_ == "MoveMade" and payload.get("auto")):
                check.fail(version, f"{type_} on a table without a clock")
            return
        if self.auto is not None and type_ != "MoveMade":
            check.fail(version, f"seat {self.auto[0]}'s timeout (auto_move) is not followed by its move")
            self.auto = None
        if type_ not in TIMED_EVENTS:
            return
        try:
            at = parse_time(payload.get("accepted_at"))
        except (ValueError, TypeError):
            check.fail(version, f"{type_} on a clocked table has no valid accepted_at")
            return
        last = table.clock.last_at
        if last is not None and at < last:
            check.fail(version, f"accepted_at {iso(at)} is before the previous recorded time {iso(last)}")
        situation = table.situation(engine)
        deadlines = table.clock.deadlines(situation)
        seat = payload.get("seat")
        if type_ == "MoveMade":
            self._move(engine, table, version, payload, at, deadlines)
        elif type_ == "TimeExpired":
            deadline = deadlines.get(seat) if isinstance(seat, int) else None
            if deadline is None:
                check.fail(version, f"TimeExpired for seat {seat}, whose clock was not running")
            elif at < deadline:
                check.fail(
                    version,
                    f"TimeExpired recorded at {iso(at)}, before seat {seat}'s deadline {iso(deadline)} (early timeout)",
                )
            elif payload.get("deadline") != iso(deadline):
                check.fail(version, f"TimeExpired names deadline {payload.get('deadline')}, the times give {iso(deadline)}")
            if payload.get("policy") != table.clock.settings.timeout_policy:
                check.fail(version, f"TimeExpired with policy {payload.get('policy')!r}, the table's is "
                           f"{table.clock.settings.timeout_policy!r}")
            if payload.get("policy") == "auto_move" and isinstance(seat, int):
                self.auto = (seat, iso(at), version)

    def _move(
        self,
        engine: Engine[Any],
        table: Table,
        version: int,
        payload: dict[str, Any],
        at: Any,
        deadlines: dict[int, Any],
    ) -> None:
        check, seat, owed = self.check, payload.get("seat"), self.auto
        self.auto = None
        if owed is not None:
            if seat != owed[0] or not payload.get("auto") or payload.get("accepted_at") != owed[1]:
                check.fail(version, f"the move after seat {owed[0]}'s timeout is not its automatic move")
                return
            if self.server_seed is not None and table.progress is not None and isinstance(seat, int):
                state = table.progress.state
                choices = engine.selfplay_moves(state, seat) or engine.legal_moves(state, seat)
                want = choices[auto_move_index(self.server_seed, self.game_id, owed[2], len(choices))] if choices else None
                if payload.get("move") != want:
                    check.fail(version, f"automatic move {payload.get('move')} is not the one the seed picks ({want})")
            return
        if payload.get("auto"):
            check.fail(version, "an automatic move with no timeout before it")
            return
        deadline = deadlines.get(seat) if isinstance(seat, int) else None
        if deadline is not None and at >= deadline:
            check.fail(
                version,
                f"move accepted at {iso(at)}, at or after seat {seat}'s deadline {iso(deadline)} (its time had run out)",
            )


def _replay_and_compare(
    engine: Engine[Any],
    events: Sequence[dict[str, Any]],
    moves: Check,
    final: Check,
    chance: Check,
    server_seed: bytes | None,
    game_id: str,
    setup: list[list[int]],
    timer: ClockAudit,
    limit: Check,
    replayed: Callable[[int], None] | None = None,
) -> None:
    table = Table(game_id)
    expected: list[dict[str, Any]] = []  # engine events the last move/start must be followed by
    adjudicated: dict[str, Any] | None = None  # the outcome a GameAdjudicated settled
    previous = ""
    for event in events:
        version, type_, payload = int(event["version"]), event["type"], event["payload"]
        if replayed is not None:
            replayed(version)
        if previous == length.ADJUDICATED and type_ != "GameFinished":
            limit.fail(version, "GameAdjudicated is not followed by GameFinished")
        previous = type_
        if type_ == CHANCE_EVENT:
            counter = int(payload.get("counter", -1))
            if table.progress is None or counter != table.progress.chance_count:
                chance.fail(version, "chance events are out of sequence")
            elif counter < len(setup):
                if payload.get("values") != setup[counter]:
                    chance.fail(version, "a prescribed chance event differs from the recorded setup")
            elif server_seed is not None:
                seeds = SeedMaterial(server_seed, game_id, tuple(table.client_seeds))
                want = seeds.values(counter, payload["kind"], int(payload["n"]), int(payload.get("sides", 6)))
                if want != payload.get("values"):
                    chance.fail(version, f"chance event {counter} does not match the seed")
            if table.progress is not None:
                request = engine.chance_request(table.progress.state)
                if request is None or any(payload.get(k) != v for k, v in request.as_dict().items()):
                    moves.fail(version, "a chance event the game was not waiting for")
        elif type_ == EXTERNAL_EVENT:
            pending = engine.external_request(table.progress.state) if table.progress is not None else None
            if expected:
                moves.fail(version, "an external answer arrived before the events of the last move")
            wanted = pending.as_dict() if pending is not None else None
            if wanted != {k: payload.get(k) for k in ("kind", "request_no", "params")}:
                moves.fail(version, "an external answer the game was not waiting for")
        elif type_ not in SERVICE_EVENTS:
            if not expected:
                moves.fail(version, f"{type_} was caused by no move")
            elif expected[0] != payload:
                moves.fail(version, f"{type_} is not what the engine derives from the preceding move")
            if expected:
                expected.pop(0)
        elif type_ == "MoveMade":
            if expected:
                moves.fail(version, "a move was recorded before the previous one's events")
            expected = _decide(engine, table, payload, version, moves)
        elif type_ == length.ADJUDICATED:
            adjudicated = _check_adjudication(engine, table, payload, version, limit, expected, server_seed)
            expected = []  # the guard records none of the move's events past the maximum
        elif type_ == "GameFinished":
            _check_finish(engine, table, payload, version, final, events, adjudicated)
        timer.observe(engine, table, version, type_, payload)
        try:
            table.apply(engine, type_, payload)
        except (EngineError, KeyError, ValueError, TypeError, IndexError) as exc:
            moves.fail(version, f"the event cannot be applied: {exc}")
            return
        if type_ == "GameStarted" and table.progress is not None:
            expected = list(engine.opening_events(table.config))
        if type_ not in SERVICE_EVENTS and table.progress is not None and length.over(
            engine, table.max_length, table.progress.state
        ):
            assert table.max_length is not None
            limit.fail(
                version,
                f"the game passed its maximum of {table.max_length['limit']} {table.max_length['unit']} "
                f"({table.max_length['rule']}) without GameAdjudicated",
            )
    if expected:
        moves.fail(len(events), "the log ends before the events of its last move")
    if timer.auto is not None:
        timer.check.fail(len(events), f"the log ends before seat {timer.auto[0]}'s automatic move")
    if table.status == "running" and table.progress is not None and engine.outcome(table.progress.state):
        final.fail(len(events), "the game is over by the rules but no GameFinished was recorded")
    if table.status != "finished" and final.status == "pass":
        final.status, final.detail = "skipped", f"the game is {table.status}"


def _decide(
    engine: Engine[Any], table: Table, payload: dict[str, Any], version: int, moves: Check
) -> list[dict[str, Any]]:
    if table.progress is None or table.status != "running":
        moves.fail(version, "a move outside a running game")
        return []
    seat, move = payload.get("seat"), payload.get("move")
    if not isinstance(seat, int) or not isinstance(move, dict) or not 0 <= seat < table.num_players:
        moves.fail(version, "a malformed move record")
        return []
    if table.seats[seat] != payload.get("player_id"):
        moves.fail(version, f"seat {seat} does not belong to the recorded player")
    if seat not in engine.to_move(table.progress.state):
        moves.fail(version, f"seat {seat} was not to move")
        return []
    try:
        return engine.decide(table.progress.state, seat, move)
    except IllegalMove as exc:
        moves.fail(version, f"illegal move: {exc.rule} {exc.message}")
    except EngineError as exc:
        moves.fail(version, f"illegal move: {exc}")
    return []


def _check_adjudication(
    engine: Engine[Any],
    table: Table,
    payload: dict[str, Any],
    version: int,
    limit: Check,
    pending: list[dict[str, Any]],
    server_seed: bytes | None,
) -> dict[str, Any] | None:
    """A ``GameAdjudicated`` is right only exactly at the table's maximum (the next event the game would
    record takes it past) and with the outcome the engine's ``adjudicate`` gives there."""
    if table.max_length is None or table.progress is None or table.status != "running":
        limit.fail(version, "GameAdjudicated in a game without a recorded maximum, or not running")
        return None
    values = table.seeds(server_seed).values if server_seed is not None else None
    if not length.crosses(engine, table.max_length, table.progress, pending, values):
        limit.fail(
            version,
            f"GameAdjudicated before the game reached its maximum of {table.max_length['limit']} "
            f"{table.max_length['unit']} ({table.max_length['rule']})",
        )
        return None
    want, outcome = length.adjudication(engine, table.max_length, table.progress.state)
    if payload != want:
        limit.fail(version, "the recorded adjudication differs from the replayed one")
    return outcome.as_dict()


def _check_finish(
    engine: Engine[Any],
    table: Table,
    payload: dict[str, Any],
    version: int,
    final: Check,
    events: Sequence[dict[str, Any]],
    adjudicated: dict[str, Any] | None = None,
) -> None:
    ended_by = [
        e for e in events
        if e["type"] == "PlayerResigned" or (e["type"] == "TimeExpired" and e["payload"].get("policy") == "forfeit")
    ]
    if adjudicated is not None:
        want = adjudicated
    elif ended_by:
        seat, teams = ended_by[0]["payload"].get("seat"), table_teams(engine, table)
        if not isinstance(seat, int) or not 0 <= seat < table.num_players:
            final.fail(version, f"the game ended by {ended_by[0]['type']} of no seat ({seat!r})")
            return
        if ended_by[0]["type"] == "PlayerResigned":
            want = resign_outcome(table.num_players, seat, teams).as_dict()
        else:
            want = timeout_outcome(table.num_players, seat, teams).as_dict()
            forfeited = payload.get("forfeited_seats")  # absent in logs recorded before the field existed
            if forfeited is not None and forfeited != forfeited_seats(seat, teams):
                final.fail(version, f"forfeited_seats {forfeited} are not seat {seat} and its partners")
                return
    else:
        outcome = engine.outcome(table.progress.state) if table.progress else None
        if outcome is None:
            final.fail(version, "GameFinished was recorded but the game is not over by the rules")
            return
        want = outcome.as_dict()
    if payload.get("outcome") != want:
        final.fail(version, "the recorded outcome differs from the replayed one")
    elif "forfeited_seats" in payload and not (ended_by and ended_by[0]["type"] == "TimeExpired"
                                               and adjudicated is None):
        final.fail(version, "forfeited_seats recorded, but no seat lost by forfeit")


def log_status(events: Sequence[dict[str, Any]]) -> str:
    """The game's status as its log tells it (what ``Table.status`` folds to)."""
    types = {e.get("type") for e in events}
    if "GameAborted" in types:
        return "aborted"
    if "GameFinished" in types:
        return "finished"
    return "running" if "GameStarted" in types else "open"


def log_fields(game_id: str, events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The export's top-level fields besides ``head`` and ``events``, each derived from the log alone."""
    created = events[0].get("payload", {}) if events and events[0].get("type") == "GameCreated" else {}
    revealed = next(
        (e["payload"].get("revealed_seed") for e in events if e.get("type") in {"GameFinished", "GameAborted"}),
        None,
    )
    return {
        "format": EXPORT_FORMAT,
        "game_id": game_id,
        "game_type": created.get("game_type"),
        "status": log_status(events),
        "scheme": created.get("scheme"),
        "commitment": created.get("commitment"),
        "revealed_seed": revealed,
    }


def export_document(game_id: str, events: list[dict[str, Any]], head: tuple[int, str]) -> dict[str, Any]:
    """The export of one game: its log with hashes, the head the games table records, and top-level
    fields that are all derived from the log (so ``audit_export`` can re-derive and compare each)."""
    return {
        **log_fields(game_id, events),
        "head": {"version": head[0], "hash": head[1]},
        "events": events,
    }


def _head(document: dict[str, Any]) -> tuple[int, str] | None:
    head = document.get("head")
    try:
        return (int(head["version"]), str(head["hash"])) if isinstance(head, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _fields_not_backed(document: dict[str, Any], events: list[dict[str, Any]]) -> list[str]:
    """Top-level fields of ``document`` that differ from what the log says (or that nothing checks)."""
    game_id = str(document.get("game_id"))
    bad = [k for k, v in log_fields(game_id, events).items() if k not in document or document[k] != v]
    if "game_id" not in bad and any(e.get("stream_id") != game_id for e in events):
        bad.append("game_id")
    last = (events[-1].get("version"), events[-1].get("hash")) if events else (0, "")
    if _head(document) != last:
        bad.append("head")
    if not isinstance(document.get("events"), list):
        bad.append("events")
    return bad + [f"{k} (unknown field)" for k in sorted(document) if k not in EXPORT_FIELDS]


def audit_export(document: dict[str, Any], registry: Registry,
                 replayed: Callable[[int], None] | None = None) -> AuditReport:
    """Audit an exported game (``GET /v1/games/{id}/export``) with no database and no network: the log
    as ``audit_events`` does, and every top-level field of the document against that log."""
    raw = document.get("events")
    events: list[dict[str, Any]] = raw if isinstance(raw, list) else []
    report = audit_events(str(document.get("game_id")), events, registry, _head(document), replayed)
    fields = Check("export_fields")
    bad = _fields_not_backed(document, events)
    if bad:
        fields.fail(None, "top-level field(s) not backed by the log: " + ", ".join(bad))
    report.checks.append(fields)
    return report


__all__ = [
    "EXPORT_FORMAT",
    "AuditReport",
    "Check",
    "Progress",
    "audit_events",
    "audit_export",
    "export_document",
    "log_fields",
]
