"""The messages the matchmaking service consumes (a mixin of :class:`MatchmakingService`): display
names, and the games service's answers about tables (created, refused, finished, aborted), each applied
once in effect (``processed_messages`` in the same transaction)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from services.matchmaking.adapters.postgres import MatchmakingRepository
from services.matchmaking.domain.league import Event, League
from shared.player_names import NAME_MESSAGES, parse_name_message

if TYPE_CHECKING:
    from services.matchmaking.adapters.postgres import UnitOfWork

log = logging.getLogger(__name__)
CONSUMER = "matchmaking"


class MessageHandlers:
    """``handle_message`` (the matchmaking queue's job calls it)."""

    if TYPE_CHECKING:  # provided by MatchmakingService
        uow: UnitOfWork

        def _league_change(
            self, repo: MatchmakingRepository, league_id: str, decide: Callable[[League], list[Event]]
        ) -> League: ...

    def handle_message(self, message: dict[str, Any]) -> None:
        kind, body, message_id = message["type"], message["body"], str(message["message_id"])
        if kind in NAME_MESSAGES:
            self._on_name(message_id, body)
            return
        handlers = {
            "GameCreatedForTable": self._on_game_created,
            "GameCreationRefused": self._on_game_refused,
            "GameFinished": self._on_game_finished,
            "GameAborted": self._on_game_aborted,
        }
        if kind not in handlers:
            raise ValueError(f"the matchmaking queue does not handle {kind!r}")
        with self.uow.begin() as repo:
            if not repo.first_time(CONSUMER, message_id):
                log.info("message %s seen before", message_id)
                return
            handlers[kind](repo, body)

    def _on_name(self, message_id: str, body: Any) -> None:
        """PlayerRegistered / PlayerRenamed: keep the newest display name for leagues and standings."""
        player_id, name, version = parse_name_message(body)
        with self.uow.begin() as repo:
            if repo.first_time(CONSUMER, message_id):
                repo.save_name(player_id, name, version)

    def _on_game_created(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table(str(body["request_id"]), lock=True)
        if table is None:
            log.warning("GameCreatedForTable for unknown request %s", body["request_id"])
            return
        game_id = str(body["game_id"])
        if table["status"] in {"open", "requested"}:
            repo.update_table(table["request_id"], status="created", game_id=game_id)
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: [
                ("TableGameCreated", {"request_id": table["request_id"], "game_id": game_id})
            ] if lg.tables[table["request_id"]].game_id is None else [])
        else:
            repo.set_table_tickets(table["request_id"], "ready", game_id)

    def _on_game_refused(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        """GameCreationRefused: the table (and its tickets, or the league's table) is ``failed`` with the
        games service's reason; a league table then waits for its organiser to re-seat it."""
        table = repo.table(str(body["request_id"]), lock=True)
        if table is None:
            log.warning("GameCreationRefused for unknown request %s", body["request_id"])
            return
        if table["status"] not in {"open", "requested"}:
            return
        failure = {"reason": str(body.get("reason") or "refused by the games service"),
                   "field": body.get("field"), "rule": body.get("rule")}
        repo.update_table(table["request_id"], status="failed", failure=failure)
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: [
                ("TableCreationFailed", {"request_id": table["request_id"], **failure})
            ] if lg.tables[table["request_id"]].status == "requested" else [])
        else:
            repo.set_table_tickets(table["request_id"], "failed")

    def _on_game_finished(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table_by_game(str(body["game_id"]))
        if table is None:
            log.info("GameFinished for game %s not seated here", body["game_id"])
            return
        outcome = body.get("outcome") or {}
        forfeited = body.get("forfeited_seats")  # a seat ran out of time under the forfeit policy
        if table["kind"] == "league" and forfeited:
            repo.update_table(table["request_id"], status="forfeited")
            self._league_change(repo, str(table["league_id"]), lambda lg: lg.record_time_forfeit(
                str(body["game_id"]), list(body["players"]), [int(s) for s in forfeited],
                str(outcome.get("reason", "")),
            ))
            return
        repo.update_table(table["request_id"], status="finished")
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: lg.record_result(
                str(body["game_id"]), list(body["players"]), list(outcome["ranks"]),
                list(outcome.get("scores") or [0.0] * len(outcome["ranks"])), str(outcome.get("reason", "")),
            ))
        else:
            repo.set_table_tickets(table["request_id"], "finished")

    def _on_game_aborted(self, repo: MatchmakingRepository, body: dict[str, Any]) -> None:
        table = repo.table_by_game(str(body["game_id"]))
        if table is None:
            return
        repo.update_table(table["request_id"], status="aborted")
        if table["kind"] == "league":
            self._league_change(repo, str(table["league_id"]), lambda lg: lg.record_abort(
                str(body["game_id"]), str(body.get("reason", "aborted"))))
        else:
            repo.set_table_tickets(table["request_id"], "aborted")
