"""Seating a league round: round robin where it exists, otherwise Swiss-style multiplayer tables.

Formats
-------
* **Round robin** (``round_robin``) exists when every player can meet every other in the rounds
  given: either all participants fit at one table (everyone plays everyone every round), or tables
  of two with ``rounds <= P - 1`` (``P`` rounded up to even; the circle method, a bye for an odd
  count). ``auto`` picks it whenever it exists.
* **Swiss** (``swiss``) seats tables by standings: the best-placed unseated player heads the next
  table and is joined by the next best players who repeat the fewest earlier table-mates. A greedy
  pass plus swaps between tables gives a first seating; a bounded branch-and-bound search in
  standings order then looks for the seating with the lowest repeat cost (a pair that met ``k``
  times before costs ``k**2``, so new repeats are spread out), preferring standings order among
  equals. When repeats cannot be
  avoided (12 players at three tables of 4 must repeat after round 1), the reason names them and
  says whether the search proved the number minimal.

Table sizes: the first allowed size is preferred; the other sizes absorb the remainder. When no
mix of allowed sizes fits the participant count, the lowest-placed players without an earlier bye
sit out with a bye.

Seat positions: within a table, the player who so far sat nearest the start (seat 0 moves first)
gets the last seat, and so on; the mean earlier seat is measured as a fraction of the table size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ROUND_ROBIN, SWISS, AUTO = "round_robin", "swiss", "auto"


@dataclass(frozen=True)
class SeatedTable:
    seats: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Seating:
    tables: tuple[SeatedTable, ...]
    byes: tuple[str, ...]
    repeats: int  # table-mate pairs that met before (0 when avoidable within the budget)


class SeatingError(ValueError):
    pass


def round_robin_exists(num_players: int, table_sizes: Sequence[int], rounds: int) -> bool:
    if num_players in table_sizes:
        return True
    if tuple(table_sizes) == (2,):
        return rounds <= num_players + (num_players % 2) - 1
    return False


def choose_format(requested: str, num_players: int, table_sizes: Sequence[int], rounds: int) -> str:
    exists = round_robin_exists(num_players, table_sizes, rounds)
    if requested == ROUND_ROBIN and not exists:
        raise SeatingError(
            "a round robin needs everyone at one table, or tables of two with at most P-1 rounds"
        )
    if requested == AUTO:
        return ROUND_ROBIN if exists else SWISS
    return requested


def table_plan(num_players: int, table_sizes: Sequence[int]) -> tuple[list[int], int]:
    """Table sizes to use (largest tables first) and the number of byes (as few as possible)."""
    sizes = sorted(set(table_sizes), reverse=True)
    for byes in range(num_players + 1):
        plan = _decompose(num_players - byes, sizes)
        if plan is not None:
            return plan, byes
    return [], num_players


def _decompose(total: int, sizes: list[int]) -> list[int] | None:
    if total == 0:
        return []
    if not sizes:
        return None
    first, rest = sizes[0], sizes[1:]
    for count in range(total // first, -1, -1):
        tail = _decompose(total - count * first, rest)
        if tail is not None:
            return [first] * count + tail
    return None


def order_seats(
    members: Sequence[str], seat_history: Mapping[str, Sequence[float]], rank: Mapping[str, int]
) -> tuple[str, ...]:
    """Balance seat positions: a larger mean earlier seat fraction gets an earlier seat now."""

    def mean(p: str) -> float:
        h = seat_history.get(p) or ()
        return sum(h) / len(h) if h else 0.5

    return tuple(sorted(members, key=lambda p: (-mean(p), rank.get(p, 0), p)))


def seat_round_robin(
    participants: Sequence[str], table_sizes: Sequence[int], round_no: int,
    seat_history: Mapping[str, Sequence[float]],
) -> Seating:
    rank = {p: i for i, p in enumerate(participants)}
    if len(participants) in table_sizes:
        seats = order_seats(participants, seat_history, rank)
        return Seating((SeatedTable(seats, f"round robin round {round_no}: every participant at one table;"
                                    " seats rotated by earlier seat positions"),), (), 0)
    players: list[str | None] = list(participants)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    fixed, rest = players[0], players[1:]
    shift = (round_no - 1) % (n - 1)
    rotated = rest[-shift:] + rest[:-shift] if shift else rest
    line = [fixed, *rotated]
    tables: list[SeatedTable] = []
    byes: list[str] = []
    for i in range(n // 2):
        a, b = line[i], line[n - 1 - i]
        if a is None or b is None:
            byes.append(b if a is None else a)  # type: ignore[arg-type]
            continue
        seats = order_seats((a, b), seat_history, rank)
        tables.append(SeatedTable(seats, f"round robin round {round_no} (circle method), pairing {i + 1};"
                                  " seats by earlier seat positions"))
    return Seating(tuple(tables), tuple(byes), 0)


def seat_swiss(
    standings: Sequence[str],
    met: Mapping[str, Mapping[str, int]],
    seat_history: Mapping[str, Sequence[float]],
    byes_had: Mapping[str, int],
    table_sizes: Sequence[int],
    round_no: int,
    points: Mapping[str, float] | None = None,
    budget: int = 100_000,
) -> Seating:
    """Seat one Swiss round. ``standings`` lists every participant, best first; ``met[a][b]`` counts
    the earlier tables ``a`` and ``b`` shared."""
    points = points or {}
    plan, num_byes = table_plan(len(standings), table_sizes)
    if not plan:
        raise SeatingError("the allowed table sizes cannot seat these participants")
    order = list(standings)
    bye_players: list[str] = []
    if num_byes:  # the lowest placed, fewest earlier byes first
        bye_players = sorted(reversed(order), key=lambda p: byes_had.get(p, 0))[:num_byes]
    players = [p for p in order if p not in bye_players]
    rank = {p: i for i, p in enumerate(order)}
    groups = _improve(_greedy(players, plan, met), met, rank)
    cost = sum(repeat_cost(g, met) for g in groups)
    searched, exhausted = _search(players, plan, met, cost + 0.5, budget)
    if searched is not None:
        groups, cost = searched, sum(repeat_cost(g, met) for g in searched)
    optimal = cost == 0 or exhausted
    tables = []
    for k, group in enumerate(groups, start=1):
        seats = order_seats(group, seat_history, rank)
        tables.append(SeatedTable(seats, _reason(round_no, k, group, rank, points, met, bool(num_byes), optimal)))
    return Seating(tuple(tables), tuple(bye_players), int(cost))


def repeat_cost(group: Sequence[str], met: Mapping[str, Mapping[str, int]]) -> int:
    """Repeats at a table: a pair that met ``k`` times before costs ``k * k`` (a third meeting is
    worse than two different second meetings)."""
    return sum(met.get(a, {}).get(b, 0) ** 2 for i, a in enumerate(group) for b in group[i + 1 :])


def _search(
    players: list[str], plan: list[int], met: Mapping[str, Mapping[str, int]], bound: float, budget: int
) -> tuple[list[list[str]] | None, bool]:
    """Branch and bound in standings order: the first seating found with fewer repeats than ``bound``,
    improved until no better one exists or ``budget`` nodes are spent. Returns (best, proved optimal)."""
    free = list(players)
    current: list[list[str]] = []
    best: list[list[str]] | None = None
    best_cost = bound
    nodes = 0

    class Stop(Exception):
        pass

    def fill_table(t: int, cost: int) -> None:
        nonlocal best, best_cost
        if t == len(plan):
            best, best_cost = [list(g) for g in current], cost
            if cost == 0:
                raise Stop
            return
        head = free.pop(0)
        extend(t, [head], 0, cost)
        free.insert(0, head)

    def extend(t: int, table: list[str], start: int, cost: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            raise Stop
        if len(table) == plan[t]:
            current.append(list(table))
            fill_table(t + 1, cost)
            current.pop()
            return
        seen_by = [met.get(m, {}) for m in table]
        for i in range(start, len(free)):
            cand = free[i]
            added = sum(seen.get(cand, 0) ** 2 for seen in seen_by)
            if cost + added >= best_cost:
                continue
            free.pop(i)
            table.append(cand)
            extend(t, table, i, cost + added)
            table.pop()
            free.insert(i, cand)

    try:
        fill_table(0, 0)
    except Stop:
        return best, best is not None and best_cost == 0
    return best, True


def _greedy(players: list[str], plan: list[int], met: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    free = list(players)
    groups: list[list[str]] = []
    for size in plan:
        table = [free.pop(0)]
        while len(table) < size:
            window = range(min(len(free), 8 * size))
            best = min(window, key=lambda i: (sum(met.get(m, {}).get(free[i], 0) ** 2 for m in table), i))
            table.append(free.pop(best))
        groups.append(table)
    return groups


def _improve(
    groups: list[list[str]], met: Mapping[str, Mapping[str, int]], rank: Mapping[str, int], passes: int = 4
) -> list[list[str]]:
    """Swap players between tables while that lowers the repeats (then the spread of places)."""

    def cost(g: Sequence[str]) -> tuple[int, int]:
        places = [rank[p] for p in g]
        return repeat_cost(g, met), max(places) - min(places)

    for _ in range(passes):
        improved = False
        for a in range(len(groups)):
            if cost(groups[a])[0] == 0:
                continue
            for b in range(len(groups)):
                if a == b:
                    continue
                for i in range(len(groups[a])):
                    for j in range(len(groups[b])):
                        ga, gb = list(groups[a]), list(groups[b])
                        ga[i], gb[j] = gb[j], ga[i]
                        before = tuple(map(sum, zip(cost(groups[a]), cost(groups[b]), strict=True)))
                        after = tuple(map(sum, zip(cost(ga), cost(gb), strict=True)))
                        if after < before:
                            groups[a], groups[b] = ga, gb
                            improved = True
        if not improved:
            break
    return groups


def _reason(
    round_no: int,
    table_no: int,
    group: Sequence[str],
    rank: Mapping[str, int],
    points: Mapping[str, float],
    met: Mapping[str, Mapping[str, int]],
    byes: bool,
    optimal: bool,
) -> str:
    places = sorted(rank[p] + 1 for p in group)
    pts = ", ".join(f"{points.get(p, 0.0):g}" for p in sorted(group, key=lambda p: rank[p]))
    basis = "seeding order" if round_no == 1 and not any(points.values()) else "standings"
    text = f"Swiss round {round_no}, table {table_no}: {basis} places {', '.join(map(str, places))}"
    text += f" (points {pts})"
    contiguous = places == list(range(places[0], places[0] + len(places)))
    repeats = [
        f"{a}/{b}" for i, a in enumerate(group) for b in group[i + 1 :] if met.get(a, {}).get(b, 0)
    ]
    if repeats:
        text += "; repeat table-mates " + ", ".join(repeats)
        text += " (unavoidable: the round has the fewest repeats possible)" if optimal else (
            " (the fewest repeats the search found)")
    elif not contiguous:
        text += "; places skipped to avoid repeat table-mates"
    else:
        text += "; no earlier table-mates"
    if byes:
        text += "; byes to the lowest placed without an earlier bye"
    return text + "; seats by earlier seat positions (earliest seats move last)"
