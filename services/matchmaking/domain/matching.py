"""Forming tables from waiting tickets: a pure function of tickets, ratings and "now".

How it works (the idea of Lichess's pools, for tables of any size):

* Tickets only meet tickets of the same game type, the same options and clock (compared as canonical
  JSON) and the same mode (``solo`` free-for-all or ``team``), and a table of ``n`` only takes tickets
  that accept ``n`` players.
* Every ticket carries a rating (``mu``, ``sigma``) fetched from the ratings service when it was
  created. A ticket accepts table-mates within a rating *gap* that widens the longer it waits:
  ``gap(wait) = min(max_gap, base_gap + widen_per_second * wait)``; after ``anyone_after``
  seconds it accepts anyone. A table is valid when its rating spread (max mu - min mu) is within
  the gap of every member.
* Oldest tickets are served first (anchors). For an anchor, the candidates are the compatible
  tickets sorted by rating; every window of ``n`` consecutive candidates that contains the anchor
  is tried and the valid one with the smallest spread wins. Larger acceptable tables are tried
  first (more players seated sooner).
* Team tables are split into two teams whose predicted win probabilities are closest to even
  (``split_teams``); the prediction is injected (the ratings service's ``/v1/predict``, with the
  local Thurstone-Mosteller formula of :func:`win_probabilities` as the fallback).
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
BETA = DEFAULT_SIGMA / 2.0
SOLO, TEAM = "solo", "team"

Predict = Callable[[Sequence[Sequence[str]]], Sequence[float]]


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA


@dataclass(frozen=True)
class Ticket:
    id: str
    player_id: str
    game_type: str
    options: Mapping[str, Any]
    player_counts: tuple[int, ...]
    mode: str
    created_at: float  # seconds (any epoch; only differences to ``now`` matter)
    rating: Rating = field(default_factory=Rating)
    allow_bots: bool = False  # after ``MatchPolicy.bot_fill_after`` the table may be filled with bots
    bot_level: str = "rules"
    clock: Mapping[str, Any] | None = None  # the table's clock as POST /v1/games takes it (normalized); None: none
    timeout_policy: str | None = None

    @property
    def pool_key(self) -> tuple[str, str, str, str]:
        """Tickets meet only tickets with the same game type, options, mode and clock."""
        timing = {"clock": self.clock, "timeout_policy": self.timeout_policy} if self.clock is not None else {}
        return (self.game_type, options_key(self.options), self.mode, options_key(timing))


@dataclass(frozen=True)
class MatchPolicy:
    base_gap: float = 2.0
    widen_per_second: float = 0.1
    max_gap: float = 20.0
    anyone_after: float = 300.0
    bot_fill_after: float = 30.0  # seconds a ticket that allows bots waits before bots fill its table

    def gap(self, waited: float) -> float:
        if waited >= self.anyone_after:
            return math.inf
        return min(self.max_gap, self.base_gap + self.widen_per_second * max(0.0, waited))


@dataclass(frozen=True)
class TableProposal:
    """A table to create: ``tickets[i]`` sits at seat ``i``; ``teams`` lists seat indices per team."""

    game_type: str
    options: Mapping[str, Any]
    mode: str
    tickets: tuple[Ticket, ...]
    teams: tuple[tuple[int, ...], ...] | None
    spread: float
    reason: str
    bots: tuple[tuple[int, str], ...] = ()  # (seat, level) of the seats bots fill, after the tickets' seats

    @property
    def seats(self) -> list[str | None]:
        """Player ids per seat; None where a bot sits (the games service seats a bot account there)."""
        return [t.player_id for t in self.tickets] + [None] * len(self.bots)


def options_key(options: Mapping[str, Any]) -> str:
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def pool_for(game_type: str, num_players: int, mode: str) -> str:
    """The ratings pool a table plays in (mirrors the ratings service's documented pool names)."""
    if game_type == "hoppaa":
        return "hoppaa/team" if mode == TEAM else "hoppaa/solo"
    if game_type == "klapper":
        if mode == TEAM or num_players in (2, 3):
            return f"klapper/{num_players}"
        return f"klapper/{num_players}/solo"
    return f"{game_type}/team" if mode == TEAM else game_type


# ---------------------------------------------------------------------------------- bot fill
def bot_tables(tickets: Iterable[Ticket], now: float, policy: MatchPolicy, taken: set[str]) -> list[TableProposal]:
    """Tables filled with bots: every solo ticket that allows bots and has waited ``bot_fill_after``
    seconds (oldest first, not in ``taken``) gets a table with as many other waiting bot-allowing tickets
    of its pool as fit (any rating, any wait: they chose to play with bots), and bots of the anchor's
    level in the remaining seats. Of the anchor's table sizes the one seating the most people wins, the
    smaller on a tie (fewer bots)."""
    waiting = sorted(
        (t for t in tickets if t.allow_bots and t.mode == SOLO and t.id not in taken),
        key=lambda t: (t.created_at, t.id),
    )
    used: set[str] = set()
    out: list[TableProposal] = []
    for anchor in waiting:
        if anchor.id in used or now - anchor.created_at < policy.bot_fill_after:
            continue
        mates: list[Ticket] = []
        players = {anchor.player_id}
        for t in waiting:
            if t.id in used or t.id == anchor.id or t.pool_key != anchor.pool_key or t.player_id in players:
                continue
            mates.append(t)
            players.add(t.player_id)
        best: tuple[int, int, list[Ticket]] | None = None
        for n in sorted(set(anchor.player_counts)):
            humans = [anchor, *[m for m in mates if n in m.player_counts][: n - 1]]
            if best is None or len(humans) > best[0]:
                best = (len(humans), n, humans)
        if best is None:
            continue
        _, n, humans = best
        used.update(t.id for t in humans)
        bots = tuple((seat, anchor.bot_level) for seat in range(len(humans), n))
        reason = (
            f"{len(humans)} tickets for {anchor.game_type} ({anchor.mode}) and {len(bots)} {anchor.bot_level}"
            f" bots; longest wait {max(0.0, now - anchor.created_at):.0f}s"
        )
        out.append(TableProposal(anchor.game_type, anchor.options, anchor.mode, tuple(humans), None, 0.0, reason, bots))
    return out


# ---------------------------------------------------------------------------------- teams
def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_probabilities(teams: Sequence[Sequence[Rating]]) -> list[float]:
    """Pairwise Thurstone-Mosteller win chances (TrueSkill's formula), averaged per team, normalised."""
    if len(teams) < 2:
        return [1.0] * len(teams)
    raw: list[float] = []
    for i, team in enumerate(teams):
        total = 0.0
        for j, other in enumerate(teams):
            if i == j:
                continue
            mu = sum(r.mu for r in team) - sum(r.mu for r in other)
            var = (len(team) + len(other)) * BETA**2 + sum(r.sigma**2 for r in (*team, *other))
            total += _phi(mu / math.sqrt(var))
        raw.append(total / (len(teams) - 1))
    norm = sum(raw) or 1.0
    return [p / norm for p in raw]


def local_predict(ratings: Mapping[str, Rating]) -> Predict:
    def predict(teams: Sequence[Sequence[str]]) -> list[float]:
        return win_probabilities([[ratings.get(p, Rating()) for p in team] for team in teams])

    return predict


def split_teams(
    players: Sequence[str], predict: Predict, num_teams: int = 2
) -> tuple[tuple[tuple[str, ...], ...], list[float]]:
    """The split into ``num_teams`` equal teams with predicted win chances closest to even.

    Ties are broken by the order of enumeration, so the result is deterministic."""
    n = len(players)
    if num_teams < 2 or n % num_teams:
        raise ValueError(f"{n} players do not split into {num_teams} equal teams")
    size = n // num_teams
    best: tuple[float, tuple[tuple[str, ...], ...], list[float]] | None = None
    for split in _partitions(tuple(players), size):
        probs = list(predict(split))
        fair = 1.0 / num_teams
        unfairness = max(abs(p - fair) for p in probs)
        if best is None or unfairness < best[0] - 1e-12:
            best = (unfairness, split, probs)
    assert best is not None
    return best[1], best[2]


def _partitions(players: tuple[str, ...], size: int) -> Iterable[tuple[tuple[str, ...], ...]]:
    """Unordered partitions into teams of ``size`` (the first player always in the first team)."""
    if not players:
        yield ()
        return
    head, rest = players[0], players[1:]
    for mates in itertools.combinations(rest, size - 1):
        team = (head, *mates)
        remaining = tuple(p for p in rest if p not in mates)
        for others in _partitions(remaining, size):
            yield (team, *others)


def interleave(teams: Sequence[Sequence[str]]) -> tuple[list[str], tuple[tuple[int, ...], ...]]:
    """Seat teams alternately around the table (A B A B ...): seats and the seat indices per team."""
    seats: list[str] = []
    size = len(teams[0])
    for k in range(size):
        for team in teams:
            seats.append(team[k])
    seat_teams = tuple(tuple(k * len(teams) + t for k in range(size)) for t in range(len(teams)))
    return seats, seat_teams


# ---------------------------------------------------------------------------------- matching
def find_tables(
    tickets: Iterable[Ticket],
    now: float,
    policy: MatchPolicy | None = None,
    predict: Callable[[str, Sequence[Sequence[str]]], Sequence[float]] | None = None,
) -> list[TableProposal]:
    """Tables to form now. ``predict(pool, teams)`` gives win chances for team tables (default: local)."""
    policy = policy or MatchPolicy()
    groups: dict[tuple[str, str, str, str], list[Ticket]] = {}
    seen_players: set[str] = set()
    for ticket in sorted(tickets, key=lambda t: (t.created_at, t.id)):
        if ticket.player_id in seen_players:  # one seat per player per run
            continue
        seen_players.add(ticket.player_id)
        groups.setdefault(ticket.pool_key, []).append(ticket)
    proposals: list[TableProposal] = []
    for key in sorted(groups):
        proposals += _match_group(groups[key], now, policy, predict)
    return proposals


def _match_group(
    group: list[Ticket],
    now: float,
    policy: MatchPolicy,
    predict: Callable[[str, Sequence[Sequence[str]]], Sequence[float]] | None,
) -> list[TableProposal]:
    by_rating = sorted(group, key=lambda t: (t.rating.mu, t.created_at, t.id))
    mus = [t.rating.mu for t in by_rating]
    alive = [True] * len(by_rating)
    index = {t.id: i for i, t in enumerate(by_rating)}
    gaps = {t.id: policy.gap(now - t.created_at) for t in by_rating}
    max_gap = max(gaps.values(), default=0.0)
    out: list[TableProposal] = []
    for anchor in group:  # oldest first
        a = index[anchor.id]
        if not alive[a]:
            continue
        gap = gaps[anchor.id]
        lo = bisect.bisect_left(mus, anchor.rating.mu - min(gap, max_gap))
        hi = bisect.bisect_right(mus, anchor.rating.mu + min(gap, max_gap))
        for n in sorted(set(anchor.player_counts), reverse=True):
            if anchor.mode == TEAM and n % 2:
                continue
            chosen = _best_window(by_rating, alive, gaps, a, lo, hi, n)
            if chosen is None:
                continue
            members = [by_rating[i] for i in chosen]
            for i in chosen:
                alive[i] = False
            out.append(_proposal(anchor, members, now, predict))
            break
    return out


def _best_window(
    by_rating: list[Ticket],
    alive: list[bool],
    gaps: dict[str, float],
    a: int,
    lo: int,
    hi: int,
    n: int,
) -> list[int] | None:
    # candidates near the anchor that are free and accept n players; at most 4n each side
    left: list[int] = []
    i = a - 1
    while i >= lo and len(left) < 4 * n:
        if alive[i] and n in by_rating[i].player_counts:
            left.append(i)
        i -= 1
    right: list[int] = []
    i = a + 1
    while i < hi and len(right) < 4 * n:
        if alive[i] and n in by_rating[i].player_counts:
            right.append(i)
        i += 1
    cands = [*reversed(left), a, *right]
    if len(cands) < n:
        return None
    pos = len(left)
    best: tuple[float, list[int]] | None = None
    for start in range(max(0, pos - n + 1), min(pos, len(cands) - n) + 1):
        window = cands[start : start + n]
        spread = by_rating[window[-1]].rating.mu - by_rating[window[0]].rating.mu
        if all(spread <= gaps[by_rating[k].id] for k in window) and (best is None or spread < best[0]):
            best = (spread, window)
    return best[1] if best else None


def _proposal(
    anchor: Ticket,
    members: list[Ticket],
    now: float,
    predict: Callable[[str, Sequence[Sequence[str]]], Sequence[float]] | None,
) -> TableProposal:
    spread = max(t.rating.mu for t in members) - min(t.rating.mu for t in members)
    longest = max(now - t.created_at for t in members)
    members = sorted(members, key=lambda t: (t.created_at, t.id))  # seat order: who waited longest first
    reason = (
        f"{len(members)} tickets for {anchor.game_type} ({anchor.mode}); rating spread {spread:.2f};"
        f" longest wait {max(0.0, longest):.0f}s"
    )
    if anchor.mode != TEAM:
        return TableProposal(anchor.game_type, anchor.options, anchor.mode, tuple(members), None, spread, reason)
    ratings = {t.player_id: t.rating for t in members}
    pool = pool_for(anchor.game_type, len(members), TEAM)

    def chances(teams: Sequence[Sequence[str]]) -> Sequence[float]:
        if predict is None:
            return local_predict(ratings)(teams)
        return predict(pool, teams)

    teams, probs = split_teams([t.player_id for t in members], chances)
    seats, seat_teams = interleave(teams)
    by_player = {t.player_id: t for t in members}
    reason += "; teams " + " v ".join(f"{p:.0%}" for p in probs) + " predicted"
    return TableProposal(
        anchor.game_type,
        anchor.options,
        anchor.mode,
        tuple(by_player[p] for p in seats),
        seat_teams,
        spread,
        reason,
    )
