"""Issue 14: fairness. Over 300 games of each game created through the API, the first DEAL (or roll) is uniform
per seat: what each seat is dealt is tested with a chi-square test at a fixed significance.

- Card games: each seat's hand right after the first deal (the state at the version of the deal's
  ``ChanceResolved``, read as the admin), through two statistics: how many cards of one suit (or animal) it
  holds, and how many of the top ranks. Under a fair shuffle a hand of h cards is a uniform h-subset of the N
  cards, so each count is hypergeometric; the expected counts are summed game by game (a seat's hand size may
  differ between games, e.g. Paardenkoppen's 17 or 18 cards after the start-player pick).
- CityHopper: each seat's first start roll (CH-8), made by the seat through the API: uniform on 1..6.
- As an extra, the first chance event of each game (Paardenkoppen's start-player pick, ROPARUN's dealer draw,
  Klapper's omboeren shuffle, CityHopper's blue deck) is uniform per seat position, as before.

The server seeds are fixed by the admin from a counter, so the verdict is the same on every run; the
outcomes still come from the commit-reveal derivation of ``speltafel-v1`` over HTTP."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from statistics import NormalDist
from typing import Any

import pytest

from services.games.engines.hoppaa.cards import deck as hoppaa_deck
from services.games.engines.klapper.cards import NAMES as KLAPPER_DECK
from services.games.engines.paardenkoppen.cards import CARD_IDS as PAARDENKOPPEN_DECK
from services.games.engines.roparun.cards import deck_for as roparun_deck
from tests.faults.infra import Backplane
from tests.faults.play import Client, admin, register

pytestmark = pytest.mark.faults
GAMES_PER_TYPE = 300
ALPHA = 0.001  # the chance, per game type, that a fair shuffle fails this test (family-wise: Bonferroni)
TYPES = [("paardenkoppen", 3), ("klapper", 4), ("roparun", 2), ("hoppaa", 2), ("cityhopper", 2)]
MIN_EXPECTED = 5.0


def _rank(card: str) -> str:
    return card.split("-")[1] if "-" in card else card[:-1]


def _suit(card: str) -> str:
    return card.split("-")[0] if "-" in card else card[-1]


# game type -> (players, its whole deck, {statistic name: which cards it counts})
DEALS: dict[str, tuple[int, Sequence[str], dict[str, Callable[[str], bool]]]] = {
    "paardenkoppen": (3, PAARDENKOPPEN_DECK, {"horses": lambda c: _suit(c) == "horse",
                                              "ranks 10-13": lambda c: int(_rank(c)) >= 10}),
    "klapper": (4, KLAPPER_DECK, {"spades": lambda c: _suit(c) == "S", "aces and kings": lambda c: _rank(c) in ("A", "K")}),
    "roparun": (2, roparun_deck(2), {"hearts": lambda c: _suit(c) == "H",
                                     "J, Q, K": lambda c: _rank(c) in ("J", "Q", "K")}),
    "hoppaa": (2, hoppaa_deck(2), {"hearts": lambda c: _suit(c) == "H",
                                   "8, 9, 10": lambda c: _rank(c) in ("8", "9", "10")}),
}


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


def hypergeometric(total: int, marked: int, drawn: int) -> list[float]:
    """P(k marked cards in a uniform ``drawn``-subset of ``total`` cards of which ``marked`` are marked)."""
    return [math.comb(marked, k) * math.comb(total - marked, drawn - k) / math.comb(total, drawn)
            for k in range(drawn + 1)]


def chi_square_against(observed_values: list[int], pmfs: list[list[float]]) -> tuple[float, int]:
    """(statistic, degrees of freedom) of one observed value per game against that game's own distribution:
    the expected count of each value is the sum of the games' probabilities; neighbouring values are
    merged until every bin expects at least 5."""
    size = max(len(p) for p in pmfs)
    expected = [sum(p[v] for p in pmfs if v < len(p)) for v in range(size)]
    observed = [observed_values.count(v) for v in range(size)]
    bins: list[list[float]] = []  # [expected, observed]
    for e, o in zip(expected, observed, strict=True):
        if bins and bins[-1][0] < MIN_EXPECTED:
            bins[-1][0] += e
            bins[-1][1] += o
        else:
            bins.append([e, float(o)])
    if len(bins) > 1 and bins[-1][0] < MIN_EXPECTED:
        last = bins.pop()
        bins[-1][0] += last[0]
        bins[-1][1] += last[1]
    return sum((o - e) ** 2 / e for e, o in bins), len(bins) - 1


def new_game(boss: Client, game_type: str, seats: list[Client], i: int) -> str:
    seed = hashlib.sha256(f"faults-fairness-{game_type}-{i}".encode()).hexdigest()
    r = boss.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats], "seed": seed})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def events_of(boss: Client, game_id: str) -> list[dict[str, Any]]:
    r = boss.get(f"/v1/games/{game_id}/events", params={"limit": 50})
    assert r.status_code == 200, r.text
    events: list[dict[str, Any]] = r.json()["events"]
    return events


def first_deal(boss: Client, game_type: str, seats: list[Client], i: int) -> list[list[str]]:
    """Each seat's hand right after the game's first deal."""
    game_id = new_game(boss, game_type, seats, i)
    deal = next(e for e in events_of(boss, game_id) if e["type"] == "ChanceResolved" and e["payload"]["purpose"] == "deal")
    state = boss.get(f"/v1/games/{game_id}/state", params={"version": deal["version"]})
    assert state.status_code == 200, state.text
    hands: list[list[str]] = state.json()["view"]["hands"]
    return hands


def first_start_rolls(boss: Client, seats: list[Client], i: int) -> list[int]:
    """Each seat's first start roll in a new CityHopper game, each seat rolling through the API (CH-8)."""
    game_id = new_game(boss, "cityhopper", seats, i)
    for seat in seats:
        legal = seat.get(f"/v1/games/{game_id}/legal-moves").json()
        roll = next(m for m in legal["moves"] if m["type"] == "roll_start")
        r = seat.post(f"/v1/games/{game_id}/moves", {"move": roll, "expected_version": legal["version"]},
                      headers={"Idempotency-Key": f"fair-{game_id}-{legal['version']}"})
        assert r.status_code == 201, r.text
    first_round: dict[str, int] = boss.get(f"/v1/games/{game_id}").json()["view"]["start_history"][0]
    return [int(first_round[str(seat)]) for seat in range(len(seats))]


def players_for(shared_plane: Backplane, game_type: str, num_players: int) -> list[Client]:
    return [register(shared_plane.stack, f"fair-{game_type}-{k}") for k in range(num_players)]


@pytest.mark.parametrize("game_type", list(DEALS))
def test_the_first_deal_gives_every_seat_a_fair_hand(shared_plane: Backplane, game_type: str) -> None:
    num_players, deck, statistics = DEALS[game_type]
    seats = players_for(shared_plane, game_type, num_players)
    boss = admin(shared_plane.stack)
    with ThreadPoolExecutor(4) as pool:
        deals = list(pool.map(lambda i: first_deal(boss, game_type, seats, i), range(GAMES_PER_TYPE)))
    verdicts = []
    alpha = ALPHA / (num_players * len(statistics))  # a fair deal must not fail more often for more tests
    for name, counts in statistics.items():
        marked = sum(1 for card in deck if counts(card))
        for seat in range(num_players):
            hands = [deal[seat] for deal in deals]
            observed = [sum(1 for card in hand if counts(card)) for hand in hands]
            pmfs = [hypergeometric(len(deck), marked, len(hand)) for hand in hands]
            stat, df = chi_square_against(observed, pmfs)
            mean = sum(observed) / len(observed)
            verdicts.append((name, seat, round(mean, 2), round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
    sizes = sorted({len(hand) for deal in deals for hand in deal})
    print(f"faults: fairness: {game_type}: first deals={len(deals)}, deck={len(deck)}, hand sizes={sizes}, "
          f"alpha={ALPHA} over {len(verdicts)} tests, (statistic, seat, mean count, chi2, df, critical)={verdicts}")
    assert all(stat <= crit for *_, stat, _, crit in verdicts), verdicts


def test_the_first_start_rolls_of_cityhopper_are_uniform_per_seat(shared_plane: Backplane) -> None:
    num_players = 2
    seats = players_for(shared_plane, "cityhopper-roll", num_players)
    boss = admin(shared_plane.stack)
    with ThreadPoolExecutor(4) as pool:
        rolls = list(pool.map(lambda i: first_start_rolls(boss, seats, i), range(GAMES_PER_TYPE)))
    alpha = ALPHA / num_players
    verdicts = []
    for seat in range(num_players):
        stat, df = chi_square([r[seat] - 1 for r in rolls], 6)
        counts = [sum(1 for r in rolls if r[seat] == face) for face in range(1, 7)]
        verdicts.append((seat, counts, round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
    print(f"faults: fairness: cityhopper: games={len(rolls)}, first start roll per seat (seat, faces 1-6, chi2, df, "
          f"critical)={verdicts}")
    assert all(stat <= crit for *_, stat, _, crit in verdicts), verdicts


@pytest.mark.parametrize(("game_type", "num_players"), TYPES, ids=[t for t, _ in TYPES])
def test_the_first_chance_event_is_uniform_per_seat_position(
    shared_plane: Backplane, game_type: str, num_players: int
) -> None:
    """The first chance event of each game (a start-player pick, a dealer draw, an omboeren or deck shuffle)."""
    seats = players_for(shared_plane, f"{game_type}-first", num_players)
    boss = admin(shared_plane.stack)

    def first_chance(i: int) -> dict[str, Any]:
        events = events_of(boss, new_game(boss, game_type, seats, i))
        payload: dict[str, Any] = next(e for e in events if e["type"] == "ChanceResolved")["payload"]
        return payload

    with ThreadPoolExecutor(4) as pool:
        firsts = list(pool.map(first_chance, range(GAMES_PER_TYPE)))
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
