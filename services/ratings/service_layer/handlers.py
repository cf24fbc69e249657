"""Use cases of the ratings service: consume game messages, rebuild, and answer queries.

Ordering: every write takes the ratings lock first, so games are rated one at a time in the order
their GameFinished messages were stored (event position). A rebuild replays that same log in the
same order with the same model, so it reproduces the incremental numbers bit for bit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from services.ratings.domain import pools as pool_catalogue
from services.ratings.domain.chart import ChartPoint, rating_svg
from services.ratings.domain.ports import HistoryRow, RatingsRepository, UnitOfWork
from services.ratings.domain.rating import (
    INITIAL_MU,
    INITIAL_SIGMA,
    PROVISIONAL_SIGMA,
    InvalidResult,
    Ledger,
    Rater,
    Rating,
    replay,
    result_from_finished,
)
from services.ratings.service_layer.errors import InvalidMessage, InvalidRequest, NotFound
from shared.player_names import NAME_MESSAGES, InvalidNameMessage, parse_name_message

log = logging.getLogger(__name__)

CONSUMER = "ratings"
MESSAGE_TYPES = ("GameFinished", "GameAborted", "GameVoided")


# a progress bar around an iterable: (items, what they are, how many or None) -> the same items
Progress = Callable[[Iterable[Any], str, "int | None"], Iterable[Any]]


def _no_progress(items: Iterable[Any], what: str, total: int | None = None) -> Iterable[Any]:
    return items


@dataclass(frozen=True)
class PoolReport:
    pool: str
    games: int
    players: int
    identical: bool
    rewritten: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "games": self.games,
            "players": self.players,
            "identical": self.identical,
            "rewritten": self.rewritten,
        }


def _ledger_state(ledger: Ledger, pool: str) -> tuple[dict[str, Rating], list[HistoryRow]]:
    rows = [
        HistoryRow(
            a.player_id, a.games_after, a.game_id, a.side, a.rank,
            a.mu_before, a.sigma_before, a.mu_after, a.sigma_after, position,
        )
        for position, a in ledger.adjustments.get(pool, [])
    ]
    rows.sort(key=lambda r: (r.player_id, r.seq))
    return dict(ledger.ratings.get(pool, {})), rows


def _rating_dict(rating: Rating) -> dict[str, Any]:
    return {
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "games_played": rating.games,
        "provisional": rating.provisional,
    }


class RatingsService:
    def __init__(self, uow: UnitOfWork, rater: Rater | None = None) -> None:
        self.uow = uow
        self.rater = rater or Rater()

    # ------------------------------------------------------------------ messages
    def handle_message(self, message: Any) -> str:
        """Consume one envelope; returns what happened (rated, duplicate, aborted, voided, ...)."""
        if not isinstance(message, dict):
            raise InvalidMessage("the message must be an envelope object")
        message_id, kind, body = message.get("message_id"), message.get("type"), message.get("body")
        if not isinstance(message_id, str) or not message_id:
            raise InvalidMessage("the envelope has no message_id", field="message_id")
        if kind in NAME_MESSAGES:
            return self._name(message_id, body)
        if kind not in MESSAGE_TYPES:
            raise InvalidMessage(f"the ratings service does not consume {kind!r}", field="type")
        if not isinstance(body, dict) or not isinstance(body.get("game_id"), str) or not body["game_id"]:
            raise InvalidMessage("the body has no game_id", field="body.game_id")
        with self.uow.begin() as repo:
            repo.lock()
            if not repo.consume_once(CONSUMER, message_id):
                return "duplicate"
            if kind == "GameFinished":
                outcome = self._finished(repo, message_id, body)
            elif kind == "GameAborted":
                outcome = self._aborted(repo, message_id, body)
            else:
                outcome = self._voided(repo, message_id, body)
        log.info("%s %s for game %s: %s", kind, message_id, body["game_id"], outcome)
        return outcome

    def _name(self, message_id: str, body: Any) -> str:
        """PlayerRegistered / PlayerRenamed: keep the newest display name (ratings need no lock)."""
        try:
            player_id, name, version = parse_name_message(body)
        except InvalidNameMessage as exc:
            raise InvalidMessage(str(exc), field=exc.field) from None
        with self.uow.begin() as repo:
            if not repo.consume_once(CONSUMER, message_id):
                return "duplicate"
            named = repo.save_name(player_id, name, version)
            level = body.get("bot_level") if isinstance(body, dict) else None
            if isinstance(level, str) and level:
                repo.save_bot_level(player_id, level)  # a bot: rated in the same pools, flagged
            return "named" if named else "older name"

    def _finished(self, repo: RatingsRepository, message_id: str, body: dict[str, Any]) -> str:
        game_id: str = body["game_id"]
        known = repo.game(game_id)
        if known is not None and (known.status != "voided" or known.finished_position is not None):
            return "duplicate"  # the game was rated (or ended) already under another message id
        position = repo.append_received(
            game_id, "GameFinishedReceived", {"message_id": message_id, "body": body}
        )
        try:
            result = result_from_finished(body)
        except InvalidResult as exc:
            if known is not None:
                repo.save_game(game_id, "voided", finished_position=position)
                return "voided"
            repo.save_game(game_id, "rejected", reason=str(exc), finished_position=position,
                           game_type=body.get("game_type") if isinstance(body.get("game_type"), str) else None)
            log.warning("game %s cannot be rated: %s", game_id, exc)
            return "rejected"
        if known is not None:  # voided before its result arrived: logged, never rated
            repo.save_game(game_id, "voided", game_type=result.game_type, pool=result.pool,
                           players=result.players, finished_position=position)
            return "voided"
        before = repo.ratings(result.pool, result.players)
        adjustments = self.rater.rate(result, before)
        repo.record_adjustments(result.pool, adjustments, position)
        repo.save_game(game_id, "rated", game_type=result.game_type, pool=result.pool,
                       players=result.players, finished_position=position, finished_at=_finished_at(body))
        return "rated"

    def _aborted(self, repo: RatingsRepository, message_id: str, body: dict[str, Any]) -> str:
        game_id: str = body["game_id"]
        if repo.game(game_id) is not None:
            return "duplicate"
        repo.append_received(game_id, "GameAbortedReceived", {"message_id": message_id, "body": body})
        players = body.get("players")
        repo.save_game(
            game_id, "aborted",
            game_type=body.get("game_type") if isinstance(body.get("game_type"), str) else None,
            reason=str(body.get("reason") or "aborted")[:500],
            players=[p for p in players if isinstance(p, str)] if isinstance(players, list) else [],
        )
        return "aborted"

    def _voided(self, repo: RatingsRepository, message_id: str, body: dict[str, Any]) -> str:
        game_id: str = body["game_id"]
        reason = str(body.get("reason") or "voided by an organiser")[:500]
        known = repo.game(game_id)
        if known is not None and known.status == "voided":
            return "duplicate"
        repo.append_received(game_id, "GameVoidedReceived", {"message_id": message_id, "body": body})
        repo.save_game(game_id, "voided", reason=reason)
        if known is None or known.status != "rated" or known.pool is None:
            return "voided"
        self._recompute(repo, [known.pool], f"game {game_id} voided: {reason}", game_id)
        return "voided"

    def _recompute(
        self, repo: RatingsRepository, pools: Sequence[str], reason: str, cause: str | None
    ) -> Ledger:
        ledger = replay(repo.finished_log(), repo.voided_games(), self.rater, pools)
        for pool in pools:
            repo.replace_pool(pool, ledger.adjustments.get(pool, []), ledger.games.get(pool, 0), reason, cause)
        return ledger

    # ------------------------------------------------------------------ rebuild
    def rebuild(self, dry_run: bool = False, only: Sequence[str] | None = None,
                progress: Progress = _no_progress) -> dict[str, Any]:
        """Recompute every pool (or ``only`` these) from the GameFinished log and compare it with the
        stored ratings bit for bit; pools that differ are rewritten (unless ``dry_run``). ``progress``
        wraps the games replayed (``"games"``, with their count) and the pools compared (``"pools"``)."""
        with self.uow.begin() as repo:
            repo.lock()
            log = progress(repo.finished_log(), "games", repo.finished_count())
            ledger = replay(log, repo.voided_games(), self.rater)
            names = sorted(set(ledger.ratings) | set(repo.stored_pools()))
            if only is not None:
                names = [n for n in names if n in set(only)]
            reports = []
            for pool in progress(names, "pools", len(names)):
                identical = repo.pool_state(pool) == _ledger_state(ledger, pool)
                rewritten = not identical and not dry_run
                if rewritten:
                    repo.replace_pool(pool, ledger.adjustments.get(pool, []), ledger.games.get(pool, 0),
                                      "rebuild", None)
                reports.append(PoolReport(pool, ledger.games.get(pool, 0), len(ledger.ratings.get(pool, {})),
                                          identical, rewritten))
        return {
            "dry_run": dry_run,
            "games": sum(ledger.games.values()),
            "identical": all(r.identical for r in reports),
            "pools": [r.as_dict() for r in reports],
        }

    # ------------------------------------------------------------------ queries
    def _known_pool(self, repo: RatingsRepository, pool: str) -> None:
        if not pool_catalogue.valid_pool_name(pool):
            raise NotFound(f"no pool {pool!r}: pool names look like 'klapper/4' or 'roparun'", field="pool")
        if pool not in pool_catalogue.KNOWN and pool not in repo.stored_pools():
            raise NotFound(f"no pool {pool!r}; GET /v1/pools lists them", field="pool")

    def pools(self) -> dict[str, Any]:
        with self.uow.read() as repo:
            stats = repo.pool_summaries()
        names = [p.name for p in pool_catalogue.CATALOGUE] + sorted(set(stats) - set(pool_catalogue.KNOWN))
        items = []
        for name in names:
            info = pool_catalogue.describe(name)
            found = stats.get(name, {})
            items.append({
                "pool": name,
                "game_type": info.game_type,
                "mode": info.mode,
                "player_counts": list(info.player_counts),
                "description": info.description,
                "games_rated": int(found.get("games", 0)),
                "players_rated": int(found.get("players", 0)),
            })
        return {
            "items": items,
            "model": "openskill Weng-Lin Plackett-Luce",
            "initial": {"mu": INITIAL_MU, "sigma": INITIAL_SIGMA},
            "ordinal": "mu - 3 * sigma",
            "provisional_sigma": PROVISIONAL_SIGMA,
        }

    def leaderboard(
        self, pool: str, limit: int, offset: int, include_provisional: bool, include_bots: bool = True
    ) -> dict[str, Any]:
        with self.uow.read() as repo:
            self._known_pool(repo, pool)
            rows, total = repo.leaderboard(pool, limit, offset, include_provisional, PROVISIONAL_SIGMA, include_bots)
            names = repo.names([row["player_id"] for row in rows])
            bots = repo.bot_levels([row["player_id"] for row in rows])
        items = []
        for k, row in enumerate(rows):
            rating = Rating(row["mu"], row["sigma"], row["games_played"])
            items.append({"position": offset + k + 1, "player_id": row["player_id"],
                          "display_name": names.get(row["player_id"]), **_rating_dict(rating),
                          "last_game_id": row["last_game_id"], "bot": _bot(bots.get(row["player_id"]))})
        return {"pool": pool, "total": total, "limit": limit, "offset": offset, "items": items}

    def player_ratings(self, player_id: str, with_history: bool) -> dict[str, Any]:
        _check_player(player_id)
        with self.uow.read() as repo:
            rows = repo.player_ratings(player_id)
            history = repo.player_history(player_id) if with_history else []
            name = repo.names([player_id]).get(player_id)
            level = repo.bot_levels([player_id]).get(player_id)
        by_pool: dict[str, list[dict[str, Any]]] = {}
        for item in history:
            by_pool.setdefault(item["pool"], []).append(_history_item(item))
        pools = []
        for row in rows:
            rating = Rating(row["mu"], row["sigma"], row["games_played"])
            entry = {"pool": row["pool"], **_rating_dict(rating), "last_game_id": row["last_game_id"]}
            if with_history:
                entry["history"] = by_pool.get(row["pool"], [])
            pools.append(entry)
        return {"player_id": player_id, "display_name": name, "bot": _bot(level), "pools": pools}

    def player_chart(self, player_id: str, pool: str) -> str:
        _check_player(player_id)
        with self.uow.read() as repo:
            self._known_pool(repo, pool)
            history = repo.player_history(player_id, pool)
            name = repo.names([player_id]).get(player_id)
        if not history:
            raise NotFound(f"player {player_id} has no rated games in {pool}")
        start = ChartPoint(0, history[0]["mu_before"], history[0]["sigma_before"], None)
        points = [start] + [
            ChartPoint(h["seq"], h["mu_after"], h["sigma_after"], h["finished_at"][:10]) for h in history
        ]
        return rating_svg(name or f"player {player_id}", pool, points)

    def predict(self, pool: str, sides: list[list[str]]) -> dict[str, Any]:
        if not pool_catalogue.valid_pool_name(pool):
            raise InvalidRequest(f"{pool!r} is not a pool name", field="pool")
        if len(sides) < 2:
            raise InvalidRequest("at least two sides are needed", field="teams")
        flat = [p for side in sides for p in side]
        if any(not side for side in sides):
            raise InvalidRequest("every team needs at least one player", field="teams")
        if len(set(flat)) != len(flat):
            raise InvalidRequest("a player appears more than once", field="teams")
        with self.uow.read() as repo:
            self._known_pool(repo, pool)
            ratings = repo.ratings(pool, flat)
            names = repo.names(flat)
        table = [[ratings.get(p, Rating()) for p in side] for side in sides]
        prediction = self.rater.predict(table)
        return {
            "pool": pool,
            "draw_probability": prediction.draw,
            "teams": [
                {
                    "players": [{"player_id": p, "display_name": names.get(p), **_rating_dict(r)}
                                for p, r in zip(side, table[i], strict=True)],
                    "win_probability": prediction.win[i],
                    "predicted_rank": prediction.rank[i],
                    "rank_probability": prediction.rank_probability[i],
                }
                for i, side in enumerate(sides)
            ],
        }


def _check_player(player_id: str) -> None:
    if not 1 <= len(player_id) <= 100:
        raise InvalidRequest("a player id has 1-100 characters", field="player_id")


def _history_item(item: dict[str, Any]) -> dict[str, Any]:
    before = Rating(item["mu_before"], item["sigma_before"])
    after = Rating(item["mu_after"], item["sigma_after"])
    return {
        "game": item["seq"],
        "game_id": item["game_id"],
        "rank": item["rank"],
        "side": item["side"],
        "mu_before": before.mu,
        "sigma_before": before.sigma,
        "mu": after.mu,
        "sigma": after.sigma,
        "ordinal": after.ordinal,
        "recorded_at": item["recorded_at"],
        "finished_at": item["finished_at"],
    }


def _finished_at(body: Mapping[str, Any]) -> datetime | None:
    """GameFinished's ``finished_at`` (the games service's time of the last event), None when absent or
    not an ISO 8601 time with an offset (the time the message arrived stands in)."""
    value = body.get("finished_at")
    if not isinstance(value, str):
        return None
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


def _bot(level: str | None) -> dict[str, str] | None:
    """``{"level": ...}`` for a bot (flagged from its PlayerRegistered message), else None."""
    return {"level": level} if level else None
