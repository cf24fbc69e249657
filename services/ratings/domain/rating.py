"""Ratings with uncertainty (OpenSkill's Weng-Lin Plackett-Luce model), pure and deterministic.

A finished game becomes a :class:`GameResult`: sides (one player each for free-for-all, the
partners for team games) and the rank of every side (1 best; tied sides share a rank, as in the
games' ``outcome``). :meth:`Rater.rate` turns a result and the players' ratings before it into one
:class:`Adjustment` per player (mu and sigma before and after). Rating the same results in the same
order from the same start gives the same floats bit for bit, which is what lets the service rebuild
any pool from its log of finished games (:func:`replay`) and compare it with the incremental path.

Conventions: a new player starts at mu 25, sigma 25/3. ``ordinal = mu - 3 sigma`` (a conservative
skill estimate; leaderboards sort by it). A rating is *provisional* while sigma is above
:data:`PROVISIONAL_SIGMA`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from services.ratings.domain.pools import FREE_FOR_ALL, GAME_TYPE, TEAMS, pool_for

INITIAL_MU = 25.0
INITIAL_SIGMA = 25.0 / 3.0
ORDINAL_Z = 3.0
PROVISIONAL_SIGMA = 7.0
MAX_PLAYERS = 16
MAX_ID_LENGTH = 100


class InvalidResult(ValueError):
    """A GameFinished body that cannot be rated; ``field`` names the offending part."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class Rating:
    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA


def ordinal(mu: float, sigma: float) -> float:
    return mu - ORDINAL_Z * sigma


@dataclass(frozen=True)
class GameResult:
    """One finished game as the rater sees it: ``sides[i]`` finished at ``ranks[i]``."""

    game_id: str
    game_type: str
    pool: str
    mode: str
    sides: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for side in self.sides for p in side)


@dataclass(frozen=True)
class Adjustment:
    """One player's rating change through one game."""

    player_id: str
    pool: str
    game_id: str
    side: int
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games_after: int

    @property
    def after(self) -> Rating:
        return Rating(self.mu_after, self.sigma_after, self.games_after)

    def as_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "pool": self.pool,
            "game_id": self.game_id,
            "side": self.side,
            "rank": self.rank,
            "mu_before": self.mu_before,
            "sigma_before": self.sigma_before,
            "mu_after": self.mu_after,
            "sigma_after": self.sigma_after,
            "games_after": self.games_after,
        }


@dataclass(frozen=True)
class Prediction:
    """Per side: probability of winning, predicted rank and the probability behind that rank."""

    win: tuple[float, ...]
    rank: tuple[int, ...]
    rank_probability: tuple[float, ...]
    draw: float


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _player_ids(players: object) -> list[str]:
    if not isinstance(players, list) or not 2 <= len(players) <= MAX_PLAYERS:
        raise InvalidResult("players", f"must be a list of 2-{MAX_PLAYERS} player ids")
    for seat, player in enumerate(players):
        if not isinstance(player, str) or not 1 <= len(player) <= MAX_ID_LENGTH:
            raise InvalidResult("players", f"seat {seat} has no player id")
    if len(set(players)) != len(players):
        raise InvalidResult("players", "a player holds more than one seat")
    return list(players)


def _ranks(value: object, count: int, name: str) -> list[int]:
    if not isinstance(value, list) or len(value) != count or not all(_is_int(r) and r >= 1 for r in value):
        raise InvalidResult(name, f"must be {count} ranks (integers >= 1, 1 best)")
    return list(value)


def result_from_finished(body: Mapping[str, Any]) -> GameResult:
    """Validate a GameFinished body and map its outcome to sides and ranks.

    Free-for-all: one side per seat, ranked by ``outcome.ranks`` (ties share a rank). Teams: one
    side per entry of ``outcome.teams`` (seat numbers), ranked by ``outcome.team_ranks`` (or, when
    those are missing, by the members' shared seat rank).
    """
    game_id = body.get("game_id")
    if not isinstance(game_id, str) or not 1 <= len(game_id) <= MAX_ID_LENGTH:
        raise InvalidResult("game_id", "must be a non-empty string")
    game_type = body.get("game_type")
    if not isinstance(game_type, str) or not game_type:
        raise InvalidResult("game_type", "must be a game type id")
    if not GAME_TYPE.match(game_type):
        raise InvalidResult("game_type", "must be a lowercase game type id")
    players = _player_ids(body.get("players"))
    outcome = body.get("outcome")
    if not isinstance(outcome, Mapping):
        raise InvalidResult("outcome", "must be an object")
    seat_ranks = _ranks(outcome.get("ranks"), len(players), "outcome.ranks")
    teams = outcome.get("teams")
    pool = pool_for(game_type, len(players), teams if isinstance(teams, list) else None)
    if not teams:
        return GameResult(
            game_id, game_type, pool, FREE_FOR_ALL, tuple((p,) for p in players), tuple(seat_ranks)
        )
    if not isinstance(teams, list) or len(teams) < 2:
        raise InvalidResult("outcome.teams", "must be null or a list of at least 2 teams")
    seen: list[int] = []
    for team in teams:
        if not isinstance(team, list) or not team or not all(_is_int(s) for s in team):
            raise InvalidResult("outcome.teams", "every team must be a non-empty list of seat numbers")
        seen += team
    if sorted(seen) != list(range(len(players))):
        raise InvalidResult("outcome.teams", "every seat must be in exactly one team")
    team_ranks_raw = outcome.get("team_ranks")
    if team_ranks_raw is None:
        team_ranks = []
        for index, team in enumerate(teams):
            member_ranks = {seat_ranks[s] for s in team}
            if len(member_ranks) != 1:
                raise InvalidResult("outcome.team_ranks", f"missing, and the seats of team {index} differ")
            team_ranks.append(member_ranks.pop())
    else:
        team_ranks = _ranks(team_ranks_raw, len(teams), "outcome.team_ranks")
    sides = tuple(tuple(players[s] for s in team) for team in teams)
    return GameResult(game_id, game_type, pool, TEAMS, sides, tuple(team_ranks))


class Rater:
    """The OpenSkill model with Speltafel's parameters (the library defaults)."""

    def __init__(self) -> None:
        self.model = PlackettLuce(mu=INITIAL_MU, sigma=INITIAL_SIGMA)

    def _os(self, rating: Rating) -> PlackettLuceRating:
        return self.model.rating(mu=rating.mu, sigma=rating.sigma)

    def rate(self, result: GameResult, before: Mapping[str, Rating]) -> list[Adjustment]:
        """Adjustments of every player of ``result``; players missing in ``before`` start fresh."""
        old = [[before.get(p, Rating()) for p in side] for side in result.sides]
        teams = [[self._os(r) for r in side] for side in old]
        new = self.model.rate(teams, ranks=[float(r) for r in result.ranks])
        out: list[Adjustment] = []
        for index, side in enumerate(result.sides):
            for k, player in enumerate(side):
                prev, updated = old[index][k], new[index][k]
                out.append(
                    Adjustment(
                        player, result.pool, result.game_id, index, result.ranks[index],
                        prev.mu, prev.sigma, float(updated.mu), float(updated.sigma), prev.games + 1,
                    )
                )
        return out

    def predict(self, sides: Sequence[Sequence[Rating]]) -> Prediction:
        teams = [[self._os(r) for r in side] for side in sides]
        win = self.model.predict_win(teams)
        ranked = self.model.predict_rank(teams)
        draw = self.model.predict_draw(teams)
        return Prediction(
            tuple(float(w) for w in win),
            tuple(int(r) for r, _ in ranked),
            tuple(float(p) for _, p in ranked),
            float(draw),
        )


@dataclass
class Ledger:
    """Ratings of every pool plus every adjustment, built in memory by :func:`replay`."""

    ratings: dict[str, dict[str, Rating]] = field(default_factory=dict)
    adjustments: dict[str, list[tuple[int, Adjustment]]] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)

    def apply(self, rater: Rater, result: GameResult, position: int = 0) -> list[Adjustment]:
        pool = self.ratings.setdefault(result.pool, {})
        made = rater.rate(result, pool)
        log = self.adjustments.setdefault(result.pool, [])
        for adjustment in made:
            pool[adjustment.player_id] = adjustment.after
            log.append((position, adjustment))
        self.games[result.pool] = self.games.get(result.pool, 0) + 1
        return made


def replay(
    log: Iterable[tuple[int, Mapping[str, Any]]],
    voided: Iterable[str] = (),
    rater: Rater | None = None,
    pools: Iterable[str] | None = None,
) -> Ledger:
    """Rate every GameFinished body of ``log`` (``(position, body)`` in log order) from scratch.

    Skips voided games, bodies that cannot be rated, and repeats of a game already seen, exactly as
    the incremental path does; ``pools`` limits the work to some pools.
    """
    rater = rater or Rater()
    excluded = set(voided)
    wanted = set(pools) if pools is not None else None
    ledger = Ledger()
    seen: set[str] = set()
    for position, body in log:
        game_id = body.get("game_id")
        if not isinstance(game_id, str) or game_id in seen:
            continue
        seen.add(game_id)
        if game_id in excluded:
            continue
        try:
            result = result_from_finished(body)
        except InvalidResult:
            continue
        if wanted is not None and result.pool not in wanted:
            continue
        ledger.apply(rater, result, position)
    return ledger
