"""Commands on a running game: moves (with idempotency), resign, abort, another service's answer."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg

from services.games.adapters.postgres import GamesRepository, IdempotencyKeyBusy
from services.games.domain.play import (
    apply_move,
    fold,
    settle_chance,
)
from services.games.domain.table import resign_outcome, table_teams
from services.games.engines.base import (
    IllegalMove,
    external_event,
)
from services.games.service_layer.clocks import Clocks, TimeRanOut
from services.games.service_layer.core import (
    Committed,
    Pending,
    _valid_id,
)
from services.games.service_layer.errors import (
    Conflict,
    Forbidden,
    GameServiceError,
    IdempotencyInFlight,
    InvalidRequest,
    RuleViolation,
    Unauthorized,
)
from services.games.service_layer.length import guarded
from shared.auth import Identity
from shared.canonical import canonical_bytes
from shared.eventstore.model import ConcurrencyConflict


class Moves(Clocks):
    def make_move(
        self,
        identity: Identity,
        game_id: str,
        move: dict[str, Any],
        expected_version: int,
        idempotency_key: str | None,
        token_check: str | None = None,
    ) -> tuple[int, dict[str, Any], bool]:
        """Returns (status, body, replayed). With an ``idempotency_key``, every request with that key gets
        the first one's answer (``replayed`` for all but the first) and only the first writes: concurrent
        ones wait on the key inside their transaction; after ``idempotency_wait`` seconds they get 409
        ``idempotency_in_flight`` (retry later). ``token_check``: the hash of the caller's bearer token,
        not yet checked (``PlayerDirectory.known_token``): checked inside the move's transaction, a
        revoked one makes it a 401 that writes nothing."""
        if identity.player_id is None:
            raise Unauthorized("moves need a player token")
        game_id = _valid_id(game_id)
        request_hash = (
            hashlib.sha256(canonical_bytes({"g": game_id, "m": move, "v": expected_version})).hexdigest()
            if idempotency_key
            else ""
        )
        # One statement, one round trip (issue 19): the token's check, the key's lock and its answer
        # (inserted first: an earlier one is found there), the events, outbox and read model go out
        # as games.commit_move, its own transaction, against the cached table at ``expected_version``. A request that repeats a key gets the
        # stored answer from that statement (nothing written); when its move is refused before that
        # (e.g. stale: the first request's move is cached here) the answer is looked up and replayed.
        try:
            with self.uow.one_statement() as repo:
                if token_check:
                    repo.require_token(token_check, identity.player_id)
                if idempotency_key:
                    repo.stage_idempotency_key(identity.player_id, idempotency_key, self.idempotency_wait)
                committed, body = self._move(repo, identity, game_id, move, expected_version)
                if idempotency_key:
                    repo.save_idempotent_answer(request_hash, 201, body)
            assert repo.staged is not None
            replayed = repo.staged.replayed
        except psycopg.errors.InvalidAuthorizationSpecification:
            raise Unauthorized("the bearer token is not valid", field="Authorization") from None
        except TimeRanOut as exc:  # nothing was written: record the timeout, then refuse the move
            self._check_token(token_check, identity.player_id)
            self.expire_due(game_id)
            raise Conflict(
                f"{exc}; the move came too late and the timeout is recorded", code="time_expired"
            ) from None
        except (IdempotencyKeyBusy, psycopg.errors.LockNotAvailable):
            raise IdempotencyInFlight(
                "a request with this Idempotency-Key is still being processed; retry to get its answer",
                retry_after=1,
            ) from None
        except (psycopg.errors.UniqueViolation, ConcurrencyConflict):
            self.cache.forget(game_id)  # another writer got this version first: reload next time
            self._check_token(token_check, identity.player_id)
            if idempotency_key and (earlier := self._earlier(identity.player_id, idempotency_key)):
                return self._replayed(earlier, request_hash)
            raise Conflict(
                "another move was recorded first; reload and retry", code="stale_version"
            ) from None
        except GameServiceError:
            self._check_token(token_check, identity.player_id)  # a refusal says nothing to a dead token
            if idempotency_key and (earlier := self._earlier(identity.player_id, idempotency_key)):
                return self._replayed(earlier, request_hash)
            raise
        if replayed is not None:  # an earlier request with this key answered: nothing was written
            return self._replayed(replayed, request_hash)
        self._after_commit(committed)
        return 201, body, False

    def forget_idempotent_answers(self) -> int:
        """Delete the answers of Idempotency-Keys older than ``idempotency_ttl`` (the ticker's job, every
        few minutes); returns how many. A request repeating such a key is then a new request: a move
        already made is refused as stale (409), as any move at an old version is."""
        with self.uow.begin() as repo:
            return repo.forget_idempotent_answers(self.idempotency_ttl)

    def _check_token(self, token_check: str | None, player_id: str) -> None:
        if token_check:
            with self.uow.read() as repo:
                if not repo.token_live(token_check, player_id):
                    raise Unauthorized("the bearer token is not valid", field="Authorization")

    def _earlier(self, player_id: str, key: str) -> tuple[str, str, int, dict[str, Any]] | None:
        with self.uow.read() as repo:
            return repo.idempotent_answer(player_id, key)

    @staticmethod
    def _replayed(
        earlier: tuple[str, str, int, dict[str, Any]], request_hash: str
    ) -> tuple[int, dict[str, Any], bool]:
        _, stored_hash, status, body = earlier
        if stored_hash != request_hash:
            raise InvalidRequest(
                "this Idempotency-Key was used for a different request", field="Idempotency-Key"
            )
        return status, body, True

    def _move(
        self,
        repo: GamesRepository,
        identity: Identity,
        game_id: str,
        move: dict[str, Any],
        expected_version: int,
    ) -> tuple[Committed, dict[str, Any]]:
        table = self.load(repo, game_id, trust_cache_at=expected_version)
        engine = self.registry.get(table.game_type)
        seat = table.seat_of(identity.player_id)
        if seat is None:
            raise Forbidden("you have no seat at this table", code="not_seated")
        if table.status != "running" or table.progress is None:
            raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
        if expected_version != table.version:
            raise Conflict(
                f"the game is at version {table.version}, not {expected_version}; reload and retry",
                code="stale_version",
                version=table.version,
            )
        if seat not in engine.to_move(table.progress.state):
            raise Forbidden("it is not your turn", code="not_your_turn", rule="TURN")
        accepted = self._move_accepted_at(table, engine, seat)  # clocked tables: {accepted_at}, or TimeRanOut
        made = Pending("MoveMade", {"seat": seat, "player_id": identity.player_id, "move": move} | accepted)
        scratch = table.clone()
        scratch.apply(engine, made.type, made.payload)
        assert scratch.progress is not None
        seeds = table.seeds(repo.server_seed(game_id))
        try:
            produced = apply_move(engine, scratch.progress, seat, move, seeds)
        except IllegalMove as exc:
            raise RuleViolation(f"{exc.rule}: {exc.message}", rule=exc.rule, code=exc.code) from None
        tail, outcome = guarded(engine, table, produced, scratch.progress)  # the length guard (issue 17.2)
        events = [made, *tail]
        if outcome is not None:
            events.append(self._finished(table, outcome, repo.server_seed(game_id)))
        committed = self._commit(repo, engine, table, events, identity)
        viewer = self.viewer_of(committed.table, identity)  # the mover's seat, or everything at the end
        payloads = [p.payload for p in events] if viewer is None else committed.views[viewer]
        return committed, {
            "version": committed.table.version,
            "status": committed.table.status,
            "events": [
                {
                    "version": committed.before + k + 1,
                    "type": p.type,
                    "payload": payload,
                    "recorded_at": committed.recorded_at[k],
                }
                for k, (p, payload) in enumerate(zip(events, payloads, strict=True))
            ],
        }

    def resign(self, identity: Identity, game_id: str) -> dict[str, Any]:
        if identity.player_id is None:
            raise Unauthorized("resigning needs a player token")
        game_id = _valid_id(game_id)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            seat = table.seat_of(identity.player_id)
            if seat is None:
                raise Forbidden("you have no seat at this table", code="not_seated")
            if table.status != "running":
                raise Conflict(f"the game is {table.status}", code=f"game_{table.status}")
            outcome = resign_outcome(table.num_players, seat, table_teams(engine, table))
            events = [
                Pending("PlayerResigned", {"seat": seat, "player_id": identity.player_id}),
                self._finished(table, outcome, repo.server_seed(game_id)),
            ]
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    def abort(self, identity: Identity, game_id: str, reason: str) -> dict[str, Any]:
        if identity.anonymous:
            raise Unauthorized("aborting a game needs the admin token")
        if not identity.admin:
            raise Forbidden("only an admin may abort a game")
        game_id = _valid_id(game_id)
        with self.uow.begin() as repo:
            table = self.load(repo, game_id)
            engine = self.registry.get(table.game_type)
            if table.ended:
                raise Conflict(f"the game is already {table.status}", code=f"game_{table.status}")
            events = [
                Pending(
                    "GameAborted",
                    {
                        "reason": reason,
                        "players": list(table.seats),
                        "game_type": table.game_type,
                        "revealed_seed": repo.server_seed(game_id).hex(),
                    },
                )
            ]
            committed = self._commit(repo, engine, table, events, identity)
        self._after_commit(committed)
        return self._describe(committed.table, identity)

    def resolve_external(self, game_id: str, kind: str, request_no: int, result: dict[str, Any]) -> bool:
        """Record another service's answer to a request (idempotent: a late or repeated answer is
        ignored). Returns True when it was recorded."""
        game_id = _valid_id(game_id)
        for _ in range(5):
            try:
                with self.uow.begin() as repo:
                    table = self.load(repo, game_id)
                    engine = self.registry.get(table.game_type)
                    if table.status != "running" or table.progress is None:
                        return False
                    pending = engine.external_request(table.progress.state)
                    if pending is None or pending.kind != kind or pending.request_no != request_no:
                        return False
                    scratch = table.clone()
                    assert scratch.progress is not None
                    seeds = table.seeds(repo.server_seed(game_id))
                    produced = fold(engine, scratch.progress, [external_event(pending, result)])
                    produced += settle_chance(engine, scratch.progress, seeds)
                    events, outcome = guarded(engine, table, produced, scratch.progress)  # the length guard (issue 17.2)
                    events = self._clock_resumed(table) + events
                    if outcome is not None:
                        events.append(self._finished(table, outcome, repo.server_seed(game_id)))
                    committed = self._commit(repo, engine, table, events, Identity(admin=True))
                self._after_commit(committed)
                return True
            except Conflict:
                continue  # a move landed meanwhile; reload and try again
        raise Conflict("could not record the answer after 5 attempts", code="busy")
