"""Issue 14: fairness. Over 300 games of each game created through the API, the first chance outcome
(the first deal, draw or pick) is uniform per seat position: a chi-square test at a fixed significance.
The server seeds are fixed by the admin from a counter, so the verdict is the same on every run; the
outcomes still come from the commit-reveal derivation of ``speltafel-v1`` over HTTP."""

from __future__ import annotations

import hashlib
import math
from concurrent.futures import ThreadPoolExecutor
from statistics import NormalDist
from typing import Any

import pytest

from tests.faults.infra import Backplane
from tests.faults.play import admin, register

pytestmark = pytest.mark.faults
GAMES_PER_TYPE = 300
ALPHA = 0.001  # the chance, per game type, that a fair shuffle fails this test (family-wise: Bonferroni over seats)
TYPES = [("paardenkoppen", 3), ("klapper", 4), ("roparun", 2), ("hoppaa", 2), ("cityhopper", 2)]


def chi2_critical(df: int, alpha: float) -> float:
    """Upper ``alpha`` point of chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    z = NormalDist().inv_cdf(1 - alpha)
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi_square(values: list[int], n: int) -> tuple[float, int]:
    """(statistic, degrees of freedom) of ``values`` in range(n) against uniform, in at most
    ``len(values) // 10`` bins of nearly equal width so every expected count is at least 5."""
    bins = max(2, min(n, len(values) // 10))
    width = [sum(1 for v in range(n) if v * bins // n == b) for b in range(bins)]
    observed = [0] * bins
    for v in values:
        observed[v * bins // n] += 1
    expected = [len(values) * w / n for w in width]
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True)), bins - 1


def first_chance(stack: Any, game_type: str, seats: list[Any], i: int) -> dict[str, Any]:
    seed = hashlib.sha256(f"faults-fairness-{game_type}-{i}".encode()).hexdigest()
    boss = admin(stack)
    r = boss.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats], "seed": seed})
    assert r.status_code == 201, r.text
    events = boss.get(f"/v1/games/{r.json()['id']}/events", params={"limit": 50}).json()["events"]
    chance = next(e for e in events if e["type"] == "ChanceResolved")
    payload: dict[str, Any] = chance["payload"]
    return payload


@pytest.mark.parametrize(("game_type", "num_players"), TYPES, ids=[t for t, _ in TYPES])
def test_first_chance_outcome_is_uniform_per_seat(shared_plane: Backplane, game_type: str, num_players: int) -> None:
    stack = shared_plane.stack
    seats = [register(stack, f"fair-{game_type}-{k}") for k in range(num_players)]
    with ThreadPoolExecutor(4) as pool:
        firsts = list(pool.map(lambda i: first_chance(stack, game_type, seats, i), range(GAMES_PER_TYPE)))
    kinds = {(f["purpose"], f["kind"], f["n"]) for f in firsts}
    assert len(kinds) == 1, f"the first chance event differs between games: {kinds}"
    purpose, kind, n = kinds.pop()
    positions = num_players if kind == "shuffle" else 1  # a shuffle: the value at each seat's position
    verdicts = []
    alpha = ALPHA / positions  # one test per seat position: a fair 4-seat shuffle must not fail 4x as often
    for k in range(positions):
        stat, df = chi_square([int(f["values"][k]) for f in firsts], int(n))
        verdicts.append((k, round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
    print(f"faults: fairness: {game_type}: games={len(firsts)}, first chance={purpose} {kind}(n={n}), "
          f"alpha={ALPHA} over {positions} position(s), per seat position (seat, chi2, df, critical)={verdicts}")
    assert all(stat <= crit for _, stat, _, crit in verdicts), verdicts
