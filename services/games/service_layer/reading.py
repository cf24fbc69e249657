"""Queries of the games service: game types, views, legal moves, events, export, audit, lists."""

from __future__ import annotations

from typing import Any

from services.games.adapters.postgres import GamesRepository
from services.games.domain import clock
from services.games.domain import length as game_length
from services.games.domain.audit import audit_export, export_document
from services.games.domain.table import Table
from services.games.engines.base import Engine
from services.games.service_layer.core import (
    SPECTATOR,
    Pending,
    Row,
    ServiceCore,
    _redact,
    _seat_items,
    _valid_id,
)
from services.games.service_layer.errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    NotFound,
    Unauthorized,
)
from shared.auth import Identity


class Reading(ServiceCore):
    def game_types(self) -> list[dict[str, Any]]:
        return [
            {
                "id": e.game_type,
                "title": e.title,
                "spec": e.spec,
                "player_counts": list(e.player_counts),
                "card_notation": dict(e.card_notation),
                "options_schema": game_length.options_schema(e),
                "max_length": game_length.describe(e),
                "clock": {
                    "kinds": list(clock.KINDS),
                    "timeout_policies": clock.policies_for(e.game_type),
                    "limits": {k: list(v) for k, v in clock.LIMITS.items()},
                    "schema": clock.json_schema(e.game_type),
                },
                "view_schema": e.view_schema(),
                "variants": [
                    {"num_players": v.num_players, "options": dict(v.options)} for v in e.variants()
                ],
                "moves": [
                    {
                        "type": m.type,
                        "description": m.description,
                        "params": dict(m.params),
                        "example": m.example,
                        "rules": list(m.rules),
                    }
                    for m in e.moves()
                ],
            }
            for e in self.registry.all()
        ]

    def game_view(self, game_id: str, identity: Identity) -> dict[str, Any]:
        table = self._read_table(game_id)
        return self._describe(table, identity)

    def legal_moves(self, game_id: str, identity: Identity) -> dict[str, Any]:
        table = self._read_table(game_id)
        seat = table.seat_of(identity.player_id)
        moves: list[dict[str, Any]] = []
        if seat is not None and table.status == "running" and table.progress is not None:
            engine = self.registry.get(table.game_type)
            if seat in engine.to_move(table.progress.state):
                moves = engine.legal_moves(table.progress.state, seat)
        return {"version": table.version, "seat": seat, "moves": moves}

    def state_at(self, game_id: str, version: int, identity: Identity) -> dict[str, Any]:
        current = self._read_table(game_id)
        if version < 1 or version > current.version:
            raise InvalidRequest(f"version must be between 1 and {current.version}", field="version")
        table = self._read_table(game_id, until=version)
        out = self._describe_as(table, identity, self.viewer_of(current, identity))  # the policy of now
        out["status_now"] = current.status
        out["clock"] = self._clock_view(table, self.registry.get(table.game_type), now=False)  # as it stood then
        return out

    def events(self, game_id: str, identity: Identity, after: int, limit: int) -> dict[str, Any]:
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self.load(repo, game_id)
            viewer = self.viewer_of(table, identity)
            if viewer is None:
                items = [
                    {
                        "version": e.version,
                        "type": e.type,
                        "payload": e.payload,
                        "recorded_at": e.metadata.get("recorded_at"),
                    }
                    for e in repo.events.read_stream(game_id, after, limit)
                ]
            else:
                items = self.copies(repo, game_id, viewer, after, limit)
        return {"game_id": game_id, "version": table.version, "status": table.status, "events": items}

    def live_batch(
        self, game_id: str, identities: list[Identity], after: int, limit: int, clock: bool = False
    ) -> dict[str, Any]:
        """One read for every live viewer of a game (the stream gateway's batch): the stored events after
        ``after`` read once, folded once from the table at ``after`` (the cache's recent versions, else
        snapshot and events), and each viewer class's copies made from them, exactly as ``events`` makes
        them for that caller. ``classes[i]`` is ``identities[i]``'s class (``viewer_of`` on the table as
        of the read's last event: a seat, SPECTATOR, or None for everything), ``pages[cls]`` its items;
        ``clock`` (when asked): ``clock_now`` as of that table."""
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self._table_at(repo, game_id, after)
            stored = repo.events.read_payloads(game_id, after, limit) if table.version >= after else []
            folded = self._fold_stored(table, stored)
        if table.version == 0:
            raise NotFound(f"no game {game_id}")
        return self._live_pages(table, folded, identities, clock)

    def live_batch_known(
        self, game_id: str, identities: list[Identity], after: int, rows: list[Row], clock: bool = False
    ) -> dict[str, Any] | None:
        """``live_batch`` from stored events the caller has in hand (the rows of the notices the writers
        published after their commits, ``adapters/notifications.py``) instead of a read of PostgreSQL:
        ``rows`` are the events ``after + 1 ...`` in order, folded from the cached table at ``after``. The
        same answer as ``live_batch`` (the same fold, classes, copies and clock); None when the cache has
        no table at ``after`` or the rows do not follow on from it (the caller reads instead)."""
        if not rows or any(row[0] != after + 1 + k for k, row in enumerate(rows)):
            return None
        table = self.cache.get_at(game_id, after)
        if table is None or table.version != after:
            return None
        return self._live_pages(table, self._fold_stored(table, rows), identities, clock)

    def _live_pages(
        self, table: Table, folded: list[tuple[int, Pending, Any, Any, Any, Engine[Any]]],
        identities: list[Identity], clock: bool,
    ) -> dict[str, Any]:
        if folded:
            self.cache.put(table)  # ignored when the cache holds a newer version
        classes = [self.viewer_of(table, identity) for identity in identities]
        pages: dict[int | None, list[dict[str, Any]]] = {}
        for viewer in classes:
            if viewer in pages:
                continue
            seat = None if viewer == SPECTATOR else viewer
            pages[viewer] = [
                {
                    "version": version,
                    "type": pending.type,
                    "payload": pending.payload if viewer is None else _redact(rules, pending, seat, before, state),
                    "recorded_at": recorded_at,
                }
                for version, pending, before, state, recorded_at, rules in folded
            ]
        out: dict[str, Any] = {"game_id": table.game_id, "version": table.version, "status": table.status,
                               "classes": classes, "pages": pages}
        if clock and table.game_type:
            view = self._clock_view(table, self.registry.get(table.game_type))
            out["clock"] = None if view is None else {"version": table.version, **view}
        return out

    def export(self, game_id: str, identity: Identity) -> dict[str, Any]:
        if identity.anonymous:
            raise Unauthorized("the export (whole log with the seed) is for the game's players, admins and auditors")
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            table = self.load(repo, game_id)
            if not self.reads_full_log(table, identity):
                raise Forbidden("the export is for the game's players, admins and auditors", code="not_a_player")
            if not table.ended:
                raise Conflict(
                    "a game can be exported once it has finished or been aborted", code="game_running"
                )
            return self._export_document(repo, game_id)

    @staticmethod
    def _export_document(repo: GamesRepository, game_id: str) -> dict[str, Any]:
        row = repo.game_row(game_id)
        if row is None:
            raise NotFound(f"no game {game_id}")
        events = [e.as_dict() for e in repo.events.read_stream(game_id)]
        return export_document(game_id, events, (row["version"], row["head_hash"]))

    def audit(self, game_id: str) -> dict[str, Any]:
        """The report ``speltafel verify`` gives for this game's export (public: it carries no hidden data)."""
        game_id = _valid_id(game_id)
        with self.uow.read() as repo:
            document = self._export_document(repo, game_id)
        return audit_export(document, self.registry).as_dict()

    def list_games(
        self, player: str | None, status: str | None, game_type: str | None, limit: int, offset: int
    ) -> dict[str, Any]:
        with self.uow.read() as repo:
            rows, total = repo.list_games(player, status, game_type, limit, offset)
            players = repo.seat_players([p for row in rows for p in row["seats"]])
        # the same shape as GET /v1/games/{id} without the caller's view (GameSummarySchema)
        keys = ("id", "game_type", "options", "num_players", "status", "version", "to_move", "outcome")
        items = [
            {k: row[k] for k in keys}
            | {"seats": _seat_items(row["seats"], players)}
            | {"deadline": row["clock_deadline"] if row["status"] == "running" else None}
            for row in rows
        ]
        return {"items": items, "total": total, "limit": limit, "offset": offset}
