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

The admin fixes each game's server seed from a counter, but the game id (a fresh UUID) enters the derivation, so
every run draws new outcomes and the verdict may differ between runs. Every chance event read over HTTP is checked
against the documented derivation of ``speltafel-v1`` from that seed and game id, so the sample is what the
commit-reveal scheme promises.

False alarms: each check rejects a fair deal with probability at most its share of ``ALPHA``. A check that rejects
is measured again on 300 fresh games and the test fails only if it rejects again, so a fair deal fails a game type
with probability at most ``ALPHA ** 2`` (the samples are independent), while a biased deal, which the first sample
rejects, rejects the second as well."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from statistics import NormalDist
from typing import Any

import pytest

from services.games.engines.hoppaa.cards import deck as hoppaa_deck
from services.games.engines.klapper.cards import NAMES as KLAPPER_DECK
from services.games.engines.paardenkoppen.cards import CARD_IDS as PAARDENKOPPEN_DECK
from services.games.engines.roparun.cards import deck_for as roparun_deck
from shared.fairness import derive
from tests.faults.infra import Backplane
from tests.faults.play import Client, admin, register

pytestmark = pytest.mark.faults
GAMES_PER_TYPE = 300
ALPHA = 0.001  # the chance, per game type, that a fair shuffle fails this test (family-wise: Bonferroni)
TYPES = [("paardenkoppen", 3), ("klapper", 4), ("roparun", 2), ("hoppaa", 2), ("cityhopper", 2)]
MIN_EXPECTED = 5.0
# (what is tested, ..., chi2, df, critical): one check's verdict; it passes while chi2 <= critical
Verdict = tuple[Any, ...]


def passes(verdict: Verdict) -> bool:
    *_, stat, _, critical = verdict
    return bool(stat <= critical)


def assert_fair(label: str, measure: Callable[[int], list[Verdict]]) -> None:
    """Run ``measure`` on games 0..299; if a check rejects, on games 300..599, and fail on what rejects twice."""
    first = measure(0)
    print(f"faults: fairness: {label}: (.., chi2, df, critical)={first}")
    if all(passes(v) for v in first):
        return
    again = measure(GAMES_PER_TYPE)
    print(f"faults: fairness: {label}: a check rejected; 300 fresh games: {again}")
    twice = [(a, b) for a, b in zip(first, again, strict=True) if not passes(a) and not passes(b)]
    assert not twice, f"{label}: rejected on two independent samples of {GAMES_PER_TYPE} games: {twice}"


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


def seed_of(game_type: str, i: int) -> bytes:
    return hashlib.sha256(f"faults-fairness-{game_type}-{i}".encode()).digest()


def new_game(boss: Client, game_type: str, seats: list[Client], i: int) -> str:
    r = boss.post("/v1/games", {"game_type": game_type, "seats": [c.player_id for c in seats],
                                "seed": seed_of(game_type, i).hex()})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def events_of(boss: Client, game_type: str, game_id: str, i: int, seats: int) -> list[dict[str, Any]]:
    """The game's first events, each chance value checked against ``speltafel-v1`` from the seed and game id."""
    r = boss.get(f"/v1/games/{game_id}/events", params={"limit": 50})
    assert r.status_code == 200, r.text
    events: list[dict[str, Any]] = r.json()["events"]
    chances = [e["payload"] for e in events if e["type"] == "ChanceResolved"]
    for counter, chance in enumerate(chances):
        derived = derive(seed_of(game_type, i), game_id, [""] * seats, counter, chance["kind"], int(chance["n"]),
                         int(chance["sides"]))
        assert [int(v) for v in chance["values"]] == derived, (game_id, counter, chance)
    return events


def first_deal(boss: Client, game_type: str, seats: list[Client], i: int) -> list[list[str]]:
    """Each seat's hand right after the game's first deal."""
    game_id = new_game(boss, game_type, seats, i)
    events = events_of(boss, game_type, game_id, i, len(seats))
    deal = next(e for e in events if e["type"] == "ChanceResolved" and e["payload"]["purpose"] == "deal")
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
    events_of(boss, "cityhopper", game_id, i, len(seats))
    first_round: dict[str, int] = boss.get(f"/v1/games/{game_id}").json()["view"]["start_history"][0]
    return [int(first_round[str(seat)]) for seat in range(len(seats))]


def deal_verdicts(game_type: str, deals: list[list[list[str]]]) -> list[Verdict]:
    """One verdict per statistic and seat on each seat's first hands (``deals[game][seat]``)."""
    num_players, deck, statistics = DEALS[game_type]
    alpha = ALPHA / (num_players * len(statistics))  # a fair deal must not fail more often for more tests
    verdicts = []
    for name, counts in statistics.items():
        marked = sum(1 for card in deck if counts(card))
        for seat in range(num_players):
            hands = [deal[seat] for deal in deals]
            observed = [sum(1 for card in hand if counts(card)) for hand in hands]
            pmfs = [hypergeometric(len(deck), marked, len(hand)) for hand in hands]
            stat, df = chi_square_against(observed, pmfs)
            mean = sum(observed) / len(observed)
            verdicts.append((name, seat, round(mean, 2), round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
    return verdicts


def sample(one: Callable[[int], Any], start: int) -> list[Any]:
    """``one(i)`` for games ``start`` .. ``start + GAMES_PER_TYPE - 1``, four at a time."""
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, range(start, start + GAMES_PER_TYPE)))


def players_for(shared_plane: Backplane, game_type: str, num_players: int) -> list[Client]:
    return [register(shared_plane.stack, f"fair-{game_type}-{k}") for k in range(num_players)]


@pytest.mark.parametrize("game_type", list(DEALS))
def test_the_first_deal_gives_every_seat_a_fair_hand(shared_plane: Backplane, game_type: str) -> None:
    num_players, deck, _ = DEALS[game_type]
    seats = players_for(shared_plane, game_type, num_players)
    boss = admin(shared_plane.stack)

    def measure(start: int) -> list[Verdict]:
        deals = sample(lambda i: first_deal(boss, game_type, seats, i), start)
        verdicts = deal_verdicts(game_type, deals)
        sizes = sorted({len(hand) for deal in deals for hand in deal})
        print(f"faults: fairness: {game_type}: first deals={len(deals)}, deck={len(deck)}, hand sizes={sizes}, "
              f"alpha={ALPHA} over {len(verdicts)} tests (statistic, seat, mean count, chi2, df, critical)")
        return verdicts

    assert_fair(game_type, measure)


def test_the_first_start_rolls_of_cityhopper_are_uniform_per_seat(shared_plane: Backplane) -> None:
    num_players = 2
    seats = players_for(shared_plane, "cityhopper-roll", num_players)
    boss = admin(shared_plane.stack)
    alpha = ALPHA / num_players

    def measure(start: int) -> list[Verdict]:
        rolls = sample(lambda i: first_start_rolls(boss, seats, i), start)
        verdicts = []
        for seat in range(num_players):
            stat, df = chi_square([r[seat] - 1 for r in rolls], 6)
            counts = [sum(1 for r in rolls if r[seat] == face) for face in range(1, 7)]
            verdicts.append((seat, counts, round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
        print(f"faults: fairness: cityhopper: games={len(rolls)}, first start roll per seat (seat, faces 1-6, chi2, "
              "df, critical)")
        return verdicts

    assert_fair("cityhopper start rolls", measure)


@pytest.mark.parametrize(("game_type", "num_players"), TYPES, ids=[t for t, _ in TYPES])
def test_the_first_chance_event_is_uniform_per_seat_position(
    shared_plane: Backplane, game_type: str, num_players: int
) -> None:
    """The first chance event of each game (a start-player pick, a dealer draw, an omboeren or deck shuffle)."""
    seats = players_for(shared_plane, f"{game_type}-first", num_players)
    boss = admin(shared_plane.stack)

    def first_chance(i: int) -> dict[str, Any]:
        events = events_of(boss, game_type, new_game(boss, game_type, seats, i), i, num_players)
        payload: dict[str, Any] = next(e for e in events if e["type"] == "ChanceResolved")["payload"]
        return payload

    def measure(start: int) -> list[Verdict]:
        firsts = sample(first_chance, start)
        kinds = {(f["purpose"], f["kind"], f["n"]) for f in firsts}
        assert len(kinds) == 1, f"the first chance event differs between games: {kinds}"
        purpose, kind, n = kinds.pop()
        positions = num_players if kind == "shuffle" else 1  # a shuffle: the value at each seat's position
        alpha = ALPHA / positions  # one test per seat position: a fair 4-seat shuffle must not fail 4x as often
        verdicts = []
        for k in range(positions):
            stat, df = chi_square([int(f["values"][k]) for f in firsts], int(n))
            verdicts.append((k, round(stat, 1), df, round(chi2_critical(df, alpha), 1)))
        print(f"faults: fairness: {game_type}: games={len(firsts)}, first chance={purpose} {kind}(n={n}), "
              f"alpha={ALPHA} over {positions} position(s), per seat position (seat, chi2, df, critical)")
        return verdicts

    assert_fair(f"{game_type} first chance", measure)


def simulated_deals(start: int, seat_zero_swaps: float) -> list[list[list[str]]]:
    """300 simulated ROPARUN first deals of 4 cards to 2 seats from shuffled decks (a fixed RNG per sample);
    with ``seat_zero_swaps`` > 0, seat 0 trades its first non-heart for seat 1's first heart that often."""
    rng = random.Random(f"fairness-simulated-{start}-{seat_zero_swaps}")
    deals = []
    for _ in range(GAMES_PER_TYPE):
        cards = list(roparun_deck(2))
        rng.shuffle(cards)
        hands = [cards[:4], cards[4:8]]
        if rng.random() < seat_zero_swaps:
            mine = next((k for k, c in enumerate(hands[0]) if _suit(c) != "H"), None)
            theirs = next((k for k, c in enumerate(hands[1]) if _suit(c) == "H"), None)
            if mine is not None and theirs is not None:
                hands[0][mine], hands[1][theirs] = hands[1][theirs], hands[0][mine]
        deals.append(hands)
    return deals


def test_a_deal_that_favours_a_seat_fails_on_both_samples() -> None:
    """The statistics can fail: a deal that hands seat 0 a heart of seat 1's in a third of the games."""
    with pytest.raises(AssertionError, match="rejected on two independent samples"):
        assert_fair("roparun, biased", lambda start: deal_verdicts("roparun", simulated_deals(start, 1 / 3)))


def test_a_fair_deal_passes_and_one_rejection_is_measured_again() -> None:
    assert_fair("roparun, simulated", lambda start: deal_verdicts("roparun", simulated_deals(start, 0.0)))
    starts: list[int] = []

    def unlucky_once(start: int) -> list[Verdict]:
        starts.append(start)
        return [("hearts", 0, 1.2, 25.0 if start == 0 else 2.0, 3, 19.7), ("hearts", 1, 1.0, 1.0, 3, 19.7)]

    assert_fair("roparun, unlucky once", unlucky_once)
    assert starts == [0, GAMES_PER_TYPE]
