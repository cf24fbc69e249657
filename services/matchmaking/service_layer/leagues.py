"""League operations of the organiser (withdrawals, late entries, forfeits, re-seats, pairing
overrides) and the per-round results export. A mixin of :class:`MatchmakingService`: it uses the
service's unit of work, league loading and committing, and its one permission check
(:meth:`_require_organiser`, today the admin token)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from services.matchmaking.domain import league_operations as ops
from services.matchmaking.domain.league import Event, League, LeagueError, LeagueTable
from services.matchmaking.domain.results import csv_rows, round_results, trf
from services.matchmaking.service_layer.errors import Conflict, InvalidRequest, NotFound
from services.matchmaking.service_layer.permissions import principal_of
from shared.auth import Identity

if TYPE_CHECKING:
    from services.matchmaking.adapters.postgres import MatchmakingRepository, UnitOfWork


class LeagueOperations:
    """Organiser commands under ``/v1/leagues/{id}/...`` and ``GET .../rounds/{n}/results``."""

    if TYPE_CHECKING:  # provided by MatchmakingService
        uow: UnitOfWork

        def _require_admin(self, identity: Identity) -> None: ...

        def authorize_league(self, identity: Identity, league_id: str | None, player_may: bool = False) -> None: ...

        def _league_change(
            self, repo: MatchmakingRepository, league_id: str, decide: Callable[[League], list[Event]]
        ) -> League: ...

        def _read_league(self, league_id: str) -> tuple[League, dict[str, str]]: ...

        def get_league(self, league_id: str) -> dict[str, Any]: ...

        def _check_game(
            self, game_type: str, counts: Sequence[int], options: dict[str, Any], counts_field: str = ...,
            clock: dict[str, Any] | None = None, timeout_policy: str | None = None,
        ) -> tuple[dict[str, Any] | None, str | None]: ...

    def _require_organiser(self, identity: Identity, league_id: str) -> None:
        """The permission check of every organiser command on a league: the league's organiser or the admin."""
        self.authorize_league(identity, league_id)

    @staticmethod
    def _actor(identity: Identity) -> str:
        return principal_of(identity)

    def _operate(
        self, identity: Identity, league_id: str, decide: Callable[[League], list[Event]],
        *, player_id: str | None = None,
    ) -> dict[str, Any]:
        from services.matchmaking.service_layer.common import _valid_uuid

        league_id = _valid_uuid(league_id, "league")
        self._require_organiser(identity, league_id)
        with self.uow.begin() as repo:
            if player_id is not None and player_id not in repo.existing_players([player_id]):
                raise InvalidRequest(f"no player {player_id}", field="player_id")
            recorded: list[Event] = []

            def decide_and_keep(league: League) -> list[Event]:
                recorded.extend(decide(league))
                return recorded

            self._league_change(repo, league_id, decide_and_keep)
            for kind, payload in recorded:  # mirror forfeits on the table rows (a game may have been created)
                if kind == "ForfeitRecorded" and repo.table(payload["request_id"]) is not None:
                    repo.update_table(payload["request_id"], status="forfeited")
                elif kind == "TableVoided" and repo.table(payload["request_id"]) is not None:
                    repo.update_table(payload["request_id"], status="void")
        return self.get_league(league_id)

    def withdraw_player(self, identity: Identity, league_id: str,
                        body: dict[str, Any]) -> dict[str, Any]:
        player = _player(body["player_id"])
        return self._operate(identity, league_id, lambda lg: ops.withdraw(
            lg, player, body["reason"], self._actor(identity)))

    def enter_player(self, identity: Identity, league_id: str,
                     body: dict[str, Any]) -> dict[str, Any]:
        player = _player(body["player_id"])
        return self._operate(identity, league_id, lambda lg: ops.enter_late(lg, player, self._actor(identity)),
                             player_id=player)

    def record_forfeit(self, identity: Identity, league_id: str, round_no: int,
                       table_no: int, body: dict[str, Any]) -> dict[str, Any]:
        absent = [_player(p, "absent") for p in body["absent"]]
        return self._operate(identity, league_id, lambda lg: ops.record_forfeit(
            lg, round_no, table_no, absent, body["reason"], self._actor(identity)))

    def reseat_table(self, identity: Identity, league_id: str, round_no: int,
                     table_no: int, body: dict[str, Any]) -> dict[str, Any]:
        """A new game at an aborted or failed table; with new ``seats`` and/or ``options``, ``clock``,
        ``timeout_policy`` (what is not given stays the table's), or ``no_clock`` (the new game has none,
        whatever the league's), checked at the door as a new league's are: the game type's schemas and
        the games service's table check (422 naming the field)."""
        seats = [_player(p, "seats") for p in body["seats"]] if body.get("seats") is not None else None
        settings = None
        if seats is not None or body.get("no_clock") or any(
                body.get(k) is not None for k in ("options", "clock", "timeout_policy")):
            league, _ = self._read_league(league_id)
            self._require_organiser(identity, league.league_id)
            table = league.current_table(round_no, table_no)
            if table is not None:  # else the command below answers 422 naming table_no
                settings = self._reseat_settings(league, table, seats, body)
        return self._operate(identity, league_id, lambda lg: ops.reseat(
            lg, round_no, table_no, body["reason"], self._actor(identity), seats, settings))

    def _reseat_settings(
        self, league: League, table: LeagueTable, seats: list[str] | None, body: dict[str, Any]
    ) -> dict[str, Any]:
        """The new table's own settings (only those given), checked with its size at the door."""
        options, clock, policy = league.table_settings(table)
        options = body["options"] if body.get("options") is not None else options
        clock = body["clock"] if body.get("clock") is not None else clock
        policy = body["timeout_policy"] if body.get("timeout_policy") is not None else policy
        if body.get("no_clock"):
            clock, policy = None, None
        size = len(seats) if seats is not None else len(table.seats)
        clock, policy = self._check_game(league.game_type, [size], options, "seats", clock, policy)
        timing_given = body.get("clock") is not None or body.get("timeout_policy") is not None
        return {"options": body.get("options"), "clock": clock if timing_given else None,
                "timeout_policy": policy if timing_given else None, "no_clock": bool(body.get("no_clock"))}

    def void_table(self, identity: Identity, league_id: str, round_no: int,
                   table_no: int, body: dict[str, Any]) -> dict[str, Any]:
        return self._operate(identity, league_id, lambda lg: ops.void_table(
            lg, round_no, table_no, body["reason"], self._actor(identity)))

    def override_pairing(self, identity: Identity, league_id: str, round_no: int,
                         body: dict[str, Any]) -> dict[str, Any]:
        tables = [[_player(p, "tables") for p in seats] for seats in body["tables"]]
        byes = [_player(p, "byes") for p in body.get("byes") or []]
        return self._operate(identity, league_id, lambda lg: ops.override_pairing(
            lg, round_no, tables, byes, body["reason"], self._actor(identity)))

    def round_export(self, league_id: str, round_no: int, fmt: str) -> tuple[str, str]:
        """(media type, document) of one round's games and the standings after it."""
        league, names = self._read_league(league_id)
        try:
            if fmt == "trf":
                return "text/plain", trf(league, _seated(league, round_no), names)
            doc = round_results(league, round_no, names)
        except LeagueError as exc:
            raise (Conflict if exc.conflict else NotFound if exc.field == "round" else InvalidRequest)(
                str(exc), field=exc.field) from None
        if fmt == "csv":
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows(csv_rows(doc))
            return "text/csv", out.getvalue()
        return "application/json", json.dumps(doc)


def _seated(league: League, round_no: int) -> int:
    if not 1 <= round_no <= league.seated_rounds:
        raise LeagueError(f"round {round_no} is not seated (rounds seated: {league.seated_rounds})", "round",
                          conflict=False)
    return round_no


def _player(value: str, field: str = "player_id") -> str:
    from services.matchmaking.service_layer.common import _valid_uuid

    return _valid_uuid(value, "player", field=field)
