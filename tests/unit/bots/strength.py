"""Direction of playing strength, ``strong`` over ``rules`` (and ``rules`` over ``random``) (issue 18,
"Measure"): what the strength tests (``test_strength_<game>.py``) share.

The full figures (200 games per pairing, confidence intervals, move times) come from ``bench/bots.py``;
these tests assert only the direction, at a small fixed iteration budget (deterministic: the same seeds
give the same games), with a statistical margin:

- the games are played in **duplicate**: every deal (game seed) twice, the higher level once in each
  seat, so the luck of the cards or dice is the same for both sides;
- a deal is *discordant* when one level won it from both seats; under "no better" (the null
  hypothesis) a discordant deal goes either way with probability 1/2, whatever the seat and card luck;
- the test passes only if the higher level's discordant deals are so many that a level no better than
  the lower one would get that many with probability at most ``ALPHA`` (a one-sided sign test).

So a wrong-direction pass has probability at most ``ALPHA`` = 2.5%. The seeded outcomes (deals won
from both seats v lost from both): Klapper passes at p <= 1% too; ROPARUN 10 v 2 of 28 deals,
p = 0.019 (12 deals gave 5 v 1, too few to tell); HopPaa strong v rules 19 v 5 of 48 deals, p = 0.0033
(its rules level bids by the track now, so strong's edge is smaller; 12 deals gave 6 v 1, too few, and
32 gave 13 v 4, p = 0.0245, too close to ALPHA);
CityHopper strong v rules 35 v 10 of 150 deals at 60 races a move, p = 0.0001 (about 50 s of CPU; the
deal decides most CityHopper games, so few deals are discordant: 100 deals at 150 races gave 22 v 6);
HopPaa rules v random 14 v 0 of 24. The tests are one file per game, so that pytest-xdist
(``--dist loadfile``) spreads them over its workers. CPU time, measured alone at load ~3 (2026-12-03):
ROPARUN strong 328 s, Klapper 134 s, HopPaa 120 s, CityHopper 63 s, the rules-v-random cases seconds.
"""

from __future__ import annotations

from math import comb

from services.bots.domain.arena import Bot, play_game
from services.bots.domain.budget import fixed_budget
from services.games.engines.base import GameConfig

ALPHA = 0.025  # a level no better than the other passes with probability at most 1 in 40


def sign_test_p(wins: int, losses: int) -> float:
    """P(X >= wins) for X ~ Binomial(wins + losses, 1/2): the one-sided sign test's p-value."""
    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2**n


def duplicate(
    game_type: str, config: GameConfig, high: str, low: str, deals: int, iterations: int
) -> tuple[int, int, int]:
    """(deals the higher level won from both seats, deals it lost from both, games it won) over
    ``deals`` two-player deals played once from each seat."""
    both_won = both_lost = games_won = 0
    for d in range(deals):
        won = []
        for hero in range(2):
            bots = [Bot(high if s == hero else low, 1000 * d + 10 * hero + s) for s in range(2)]
            result = play_game(game_type, config, 700 + d, bots, lambda _: fixed_budget(iterations))
            assert result.finished
            won.append(hero in result.winners())
        both_won += all(won)
        both_lost += not any(won)
        games_won += sum(won)
    return both_won, both_lost, games_won


