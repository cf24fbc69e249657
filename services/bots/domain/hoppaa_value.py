"""What a spot on the HopPaa score track is worth, and how likely a bid is made (for the ``rules`` bot).

A pawn's worth is the expected number of rounds it still needs to reach 35 (``rounds_left``), found by
value iteration over the track (HP-28 to HP-41) under a simple model of a round:

- the hand is worth ``mu`` tricks (the mean the ``rules`` card play takes with it), drawn from
  ``MU_SPREAD`` around the table's typical hand;
- a bid ``b`` is made with probability ``make_chance(b, mu)``: best a little under ``mu`` (a player who
  has his tricks can duck the rest), falling off on both sides;
- a made bid moves the pawn by the best step count of S = {b, 5} that fits (HP-28, HP-33, HP-R11; the
  green jumps and red dots of HP-37 and HP-39 included), a missed one moves it back ``MISS_STEPS``
  (HP-30, HP-36, HP-38, HP-39);
- the player bids the ``b`` with the fewest expected rounds left.

So the table knows, for example, that 25 is a poor spot without the white pawn (five steps end on the red
dot 30 and go back to 25, and only a bid of 6 or more to 29 or beyond moves on), that 31 needs a bid of
exactly 4, and that from 25 the white pawn's 10 steps finish at once (HP-29). Pure and deterministic:
computed once at import for each player count, no randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from services.games.engines.hoppaa.rules import step_options
from services.games.engines.hoppaa.track import FINISH, land_back, land_forward

MAKE_PEAK = 0.36  # the chance of making the best bid for a hand (measured: 0.33 to 0.36 in rules play)
MAKE_OFFSET = 0.7  # the best bid is this far under the hand's mean tricks
MAKE_WIDTH = 1.6  # spread of the make chance around the best bid, in tricks
MISS_STEPS = 2  # a typical miss (|t - b|, HP-30)
# hands' mean tricks about the table's typical one, with weights (2 players: 3 to 7, mostly 4 to 5)
MU_SPREAD: tuple[tuple[float, float], ...] = (
    (-1.5, 0.12),
    (-0.5, 0.38),
    (0.5, 0.35),
    (1.5, 0.12),
    (2.5, 0.03),
)
TYPICAL_MU = {2: 4.5, 3: 3.0, 4: 2.3}
BID_RANGE = {2: range(1, 10), 3: range(1, 7), 4: range(1, 7)}


def make_chance(bid: int, mu: float) -> float:
    """The chance that a hand worth ``mu`` tricks takes exactly ``bid`` (HP-26)."""
    x = bid - (mu - MAKE_OFFSET)
    return MAKE_PEAK * math.exp(-x * x / (2 * MAKE_WIDTH * MAKE_WIDTH))


def forward(track: Sequence[int], pawn: int, steps: Sequence[int]) -> list[tuple[int, list[int]]]:
    """(steps, the track after the move) for every step count of ``steps`` that fits (HP-33, HP-R11)."""
    out = []
    for s in steps:
        if track[pawn] != FINISH and track[pawn] + s <= FINISH:
            landing = land_forward(track, pawn, s)
            after = list(track)
            after[pawn] = landing.end
            if landing.knocked_off is not None:
                after[landing.knocked_off] = 0
            out.append((s, after))
    return out


def back(track: Sequence[int], pawn: int, steps: int) -> list[int]:
    landing = land_back(track, pawn, steps)
    after = list(track)
    after[pawn] = landing.end
    if landing.knocked_off is not None:
        after[landing.knocked_off] = 0
    return after


def _solve(players: int) -> tuple[float, ...]:
    """Expected rounds a single pawn on square 0..35 still needs to finish (35: 0), by value iteration
    until no square changes by more than 1e-4 rounds."""
    bids = BID_RANGE.get(players, range(1, 7))
    mus = [(TYPICAL_MU.get(players, 2.3) + d, w) for d, w in MU_SPREAD]
    chances = [([make_chance(b, mu) for b in bids], w) for mu, w in mus]
    landings = {
        (p, b): [after[0] for _, after in forward([p], 0, step_options(b, False))]
        for p in range(FINISH)
        for b in bids
    }
    missed = [back([p], 0, MISS_STEPS)[0] for p in range(FINISH)]
    r = [0.0 if p == FINISH else 30.0 for p in range(FINISH + 1)]
    for _ in range(1000):
        old = list(r)
        for p in reversed(range(FINISH)):  # Gauss-Seidel from the finish down: most squares ahead are new
            miss = r[missed[p]]
            made = [min((r[x] for x in landings[p, b]), default=r[p]) for b in bids]
            total = 0.0
            for qs, w in chances:
                total += w * min(q * m + (1 - q) * miss for q, m in zip(qs, made, strict=True))
            r[p] = 1.0 + total
        change = max(abs(x - y) for x, y in zip(r, old, strict=True))
        if change < 1e-4:
            break
    return tuple(r)


# ``_solve(n)`` for n = 2, 3, 4 players, to 4 decimals (tests/unit/bots/test_card_levels.py checks it): a
# literal, so that no bot decision pays the solve (0.1 s a player count) when the module is first imported
# fmt: off
ROUNDS_LEFT: dict[int, tuple[float, ...]] = {
    2: (
        42.1163, 41.6218, 40.3902, 40.3748, 39.5844, 39.7324, 38.9614, 38.9683, 37.9162,
        36.3162, 36.0368, 35.0499, 35.1911, 34.4863, 34.4092, 33.4206, 31.9842, 31.6771,
        30.7220, 30.4611, 29.5121, 28.6435, 27.8247, 26.4789, 25.6413, 24.7264, 22.5561,
        22.1968, 19.7279, 18.9388, 13.7496, 14.1136, 18.7489, 12.4029, 23.3082, 0.0000,
    ),
    3: (
        56.5176, 56.1938, 54.5565, 55.2803, 53.6398, 54.0405, 52.8921, 53.2329, 52.0590,
        50.2500, 50.6849, 48.8180, 49.0022, 47.8561, 48.2280, 47.0057, 45.4708, 45.6144,
        44.0023, 44.0400, 42.7545, 42.0826, 41.2943, 39.1202, 39.1941, 37.7096, 35.7607,
        35.9550, 30.9897, 32.8618, 20.9202, 26.7827, 27.6712, 19.6045, 29.5777, 0.0000,
    ),
    4: (
        69.4986, 69.1923, 67.4884, 68.5214, 66.6861, 67.1999, 65.8151, 66.3256, 64.9168,
        63.0776, 63.7913, 61.7871, 61.8947, 60.4489, 60.9726, 59.5044, 57.9337, 58.2063,
        56.3471, 56.4540, 54.9413, 54.2937, 53.4114, 50.7630, 51.1004, 49.5331, 47.5030,
        47.7845, 41.4612, 44.2477, 27.8229, 38.0791, 38.4888, 27.5581, 35.9654, 0.0000,
    ),
}
# fmt: on


def rounds_left(players: int) -> tuple[float, ...]:
    """Expected rounds a single pawn on square 0..35 still needs to finish (35: 0)."""
    return ROUNDS_LEFT[players] if players in ROUNDS_LEFT else ROUNDS_LEFT[4]


def track_rounds(track: Sequence[int], players: int) -> float:
    """Expected rounds a whole track (one or two pawns) still needs: the pawns' rounds added up, since each
    result moves one pawn (HP-31)."""
    table = rounds_left(players)
    return sum(table[p] for p in track)
