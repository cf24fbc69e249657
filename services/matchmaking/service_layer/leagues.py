"""League operations of the organiser (withdrawals, late entries, forfeits, re-seats, pairing
overrides) and the per-round results export. A mixin of :class:`MatchmakingService`: it uses the
service's unit of work, league loading and committing, and its one permission check
(:meth:`_require_organiser`, today the admin token)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from services.matchmaking.domain import league_operations as ops
from services.matchmaking.domain.league import Event, League, LeagueError
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
        from services.matchmaking.service_layer.handlers import _valid_uuid

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
        return self._operate(identity, league_id, lambda lg: ops.reseat(
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
    from services.matchmaking.service_layer.handlers import _valid_uuid

    return _valid_uuid(value, "player", field=field)
