"""Bot levels for Klapper (rules/klapper.md).

- ``random``: a uniformly random listed move.
- ``rules``: heuristics from the spec. Bidding from hand strength in the candidate trump (KL-10 to
  KL-13): trump jack and nine count most (trick order J, 9, A, 10, K, Q, section 2), then trump
  length, plain aces and guarded tens, Stuk and runs (KL-31). Roem: always declare the most valuable
  declaration listed (KL-29, KL-34; only the highest roem scores, KL-35, so more is never worse).
  Play: the legal cards are the listed ones (KL-17 to KL-22); among them, lead a sure winner or pull
  trumps when our side plays, else a low card; when following, throw points on a partner's sure trick,
  win as cheaply as possible when an opponent is winning, and throw the cheapest card otherwise.
- ``strong``: determinized Monte Carlo search (``search.flat_search``: every listed move tried on the
  same sampled deals, the ``rules`` heuristic as the playout policy for every seat), cut off at the end
  of the deal and scored by the points each side adds (KL-36 to KL-39), or, when that deal decides the
  game, by winning it (``WIN_WEIGHT``) plus a little of the margin; the ``rules`` move stays unless the
  search finds another clearly better (``PRIOR_MARGIN``). Measured (bench/bots.py, one deal a game,
  duplicate seeds) it wins about 0.6 of its deals against ``rules``: 0.61, 0.65, 0.62 per 100 at 60
  to 100 sampled deals a move, so more samples than 60 buy little; the rest is the playout policy. ``search.search``
  (SO-ISMCTS) can play the same game through ``GAME``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level
from services.bots.domain.games import uniform as uniform_level
from services.bots.domain.search import SearchGame, clamp01, flat_search
from services.games.engines.klapper.cards import (
    ACE,
    DECK_SIZE,
    JACK,
    NINE,
    TEN,
    parse,
    parse_suit,
    points,
    rank_of,
    strength,
    suit_of,
)
from services.games.engines.klapper.engine import KlapperEngine
from services.games.engines.klapper.melds import MELD_VALUES, best_total
from services.games.engines.klapper.rules import trick_winner
from services.games.engines.klapper.state import KlapperState

Move = dict[str, Any]
Play = tuple[int, int]

ENGINE = KlapperEngine()
PRIOR_MARGIN = 0.04  # the search overrides the rules move only when it finds it this much better
PLAYOUT_NOISE = 0.0  # share of random playout moves (0.1 measured no better than none)
WIN_WEIGHT = 0.8  # a decided game: this much for winning it, the rest for the deal's margin
# hand-strength threshold per card in hand to accept a trump (about 4.4 for 6 cards)
THRESHOLD_PER_CARD = 0.73


# --- hand strength (bidding) ---------------------------------------------------------------------
def hand_strength(hand: Sequence[int], trump: int) -> float:
    """Expected tricks-ish value of ``hand`` with ``trump`` (section 2 orders, KL-31 roem)."""
    value = 0.0
    trumps = [c for c in hand if suit_of(c) == trump]
    ranks = {rank_of(c) for c in trumps}
    value += 2.5 * (JACK in ranks) + 1.8 * (NINE in ranks) + 1.0 * (ACE in ranks)
    value += 0.7 * len(trumps)
    if NINE in ranks and JACK not in ranks and len(trumps) == 1:
        value -= 0.8  # a bare nine is caught by the jack
    for s in range(4):
        if s == trump:
            continue
        suit = {rank_of(c) for c in hand if suit_of(c) == s}
        if ACE in suit:
            value += 1.1
            if TEN in suit:
                value += 0.6
        elif TEN in suit and len(suit) >= 2:
            value += 0.3
    roem = best_total(list(hand), trump)
    value += roem / 40.0  # 20 Stuk = 0.5, a run of three = 0.75
    return value


def _threshold(cards_in_hand: int) -> float:
    return THRESHOLD_PER_CARD * max(4, cards_in_hand)


def bid_move(hand: Sequence[int], legal: list[Move], turned_suit: int) -> Move:
    """Round 1 (KL-10, KL-11): play when the proposed suit is strong enough; round 2 (KL-12, KL-13):
    name the strongest listed suit if it is strong enough, else pass."""
    bar = _threshold(len(hand))
    kinds = {m["type"] for m in legal}
    if "bid" in kinds:
        choice = "play" if hand_strength(hand, turned_suit) >= bar else "pass"
        return next(m for m in legal if m.get("choice") == choice)
    best: Move | None = None
    best_value = -1.0
    for m in legal:
        if m["type"] != "choose_trump":
            continue
        suit = parse_suit(m["suit"])
        assert suit is not None
        value = hand_strength(hand, suit)
        if value > best_value:
            best, best_value = m, value
    if best is not None and best_value >= bar - 0.6:
        return best
    passes = [m for m in legal if m["type"] == "pass"]
    return passes[0] if passes else legal[0]


def roem_move(legal: list[Move]) -> Move | None:
    """KL-29, KL-34, KL-35: the most valuable listed declaration, if any."""
    best: Move | None = None
    best_value = 0
    for m in legal:
        if m["type"] == "declare_roem":
            value = sum(MELD_VALUES[meld["type"]] for meld in m["melds"])
            if value > best_value:
                best, best_value = m, value
    return best


# --- card play -------------------------------------------------------------------------------------
def _beats(c: int, best: int, led: int, trump: int) -> bool:
    if suit_of(c) not in (led, trump):
        return False
    return strength(c, trump) > strength(best, trump) if suit_of(best) in (led, trump) else True


def _is_boss(c: int, trump: int, out: set[int]) -> bool:
    """No unseen card of the same suit ranks above ``c`` (a plain boss may still be trumped)."""
    s = suit_of(c)
    return all(strength(o, trump) <= strength(c, trump) for o in out if suit_of(o) == s)


def choose_card(
    hand: Sequence[int],
    legal: Sequence[int],
    trick: Sequence[Play],
    trump: int,
    seat: int,
    side_of: Sequence[int],
    n: int,
    played: Iterable[int],
    speler_side: int | None,
) -> int:
    """The ``rules`` card among ``legal`` (already legal by KL-17 to KL-21)."""
    if len(legal) == 1:
        return legal[0]
    mine = side_of[seat]
    seen = set(played) | set(hand)
    out = {c for c in range(DECK_SIZE) if c not in seen}  # cards the others may hold
    trumps_out = [c for c in out if suit_of(c) == trump]
    if not trick:
        return _lead(list(legal), trump, out, trumps_out, mine == speler_side)
    led = suit_of(trick[0][1])
    winner_seat = trick_winner(list(trick), trump)
    best = next(c for s, c in trick if s == winner_seat)
    last = len(trick) == n - 1
    partner_winning = side_of[winner_seat] == mine and winner_seat != seat
    if partner_winning:
        safe = last or (_is_boss(best, trump, out) and (suit_of(best) == trump or not trumps_out))
        if safe:  # smear: give the partner's trick the most points we may
            return max(
                legal, key=lambda c: (points(c, trump) if suit_of(c) != trump else -1, -strength(c, trump))
            )
        return min(legal, key=lambda c: (points(c, trump), strength(c, trump)))
    winning = [c for c in legal if _beats(c, best, led, trump)]
    if winning:
        if last:  # the cheapest winner in strength, taking points with it is fine
            return min(winning, key=lambda c: (strength(c, trump), -points(c, trump)))
        bosses = [c for c in winning if _is_boss(c, trump, out) and (suit_of(c) == trump or not trumps_out)]
        pool = bosses or winning
        return min(pool, key=lambda c: (strength(c, trump), points(c, trump)))
    return min(legal, key=lambda c: (points(c, trump), strength(c, trump)))


def _lead(legal: list[int], trump: int, out: set[int], trumps_out: list[int], playing: bool) -> int:
    my_trumps = [c for c in legal if suit_of(c) == trump]
    if playing and my_trumps and trumps_out:
        top = max(my_trumps, key=lambda c: strength(c, trump))
        if _is_boss(top, trump, out):
            return top  # pull trumps with the boss trump
    plain_bosses = [c for c in legal if suit_of(c) != trump and _is_boss(c, trump, out)]
    if plain_bosses:
        return max(plain_bosses, key=lambda c: points(c, trump))
    plain = [c for c in legal if suit_of(c) != trump] or legal
    return min(plain, key=lambda c: (points(c, trump), strength(c, trump)))


def _card_move(legal: list[Move], c: int) -> Move:
    return next(m for m in legal if m["type"] == "play_card" and parse(m["card"]) == c)


def _legal_cards(legal: list[Move]) -> list[int]:
    out = []
    for m in legal:
        if m["type"] == "play_card":
            c = parse(m["card"])
            assert c is not None
            out.append(c)
    return out


# --- the levels ------------------------------------------------------------------------------------
def _inner(view: dict[str, Any]) -> dict[str, Any]:
    inner = view.get("view", view)
    assert isinstance(inner, dict)
    return inner


def rules_level(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    v = _inner(view)
    hand = [c for c in (parse(x) for x in v.get("hand") or []) if c is not None]
    kind = moves[0]["type"]
    if kind in ("bid", "choose_trump", "pass"):
        turned = parse(v.get("turned_card"))
        return bid_move(hand, moves, suit_of(turned) if turned is not None else 0)
    roem = roem_move(moves)
    if roem is not None:
        return roem
    legal = _legal_cards(moves)
    if not legal:
        return rng.choice(moves)
    trump = parse_suit(v.get("trump"))
    assert trump is not None
    trick = [(int(p["seat"]), parse(p["card"])) for p in v["trick"]["cards"]]
    played = [parse(p["card"]) for t in v["tricks"] for p in t["cards"]]
    played += [c for _, c in trick]
    c = choose_card(
        hand,
        legal,
        [(s, c) for s, c in trick if c is not None],
        trump,
        seat,
        v["side_of"],
        int(v["num_players"]),
        [c for c in played if c is not None],
        v.get("playing_side"),
    )
    return _card_move(moves, c)


def playout_policy(state: KlapperState, seat: int, legal: list[Move], rng: random.Random) -> Move:
    """``rules`` on the full (determinized) state, with a little noise."""
    if rng.random() < PLAYOUT_NOISE:
        return legal[int(rng.random() * len(legal))]
    kind = legal[0]["type"]
    hand = state.hands[seat]
    if kind in ("bid", "choose_trump", "pass"):
        turned = state.turned_card
        return bid_move(hand, legal, suit_of(turned) if turned is not None else 0)
    roem = roem_move(legal)
    if roem is not None:
        return roem
    cards = _legal_cards(legal)
    assert state.trump is not None
    played = [c for t in state.tricks for _, c in t.plays] + [c for _, c in state.trick]
    c = choose_card(
        hand, cards, state.trick, state.trump, seat, state.side_of, state.n, played, state.playing_side
    )
    return _card_move(legal, c)


def cutoff(sample: KlapperState, state: KlapperState) -> bool:
    """The deal is over (scored or void): KL-36 to KL-39, KL-14."""
    return state.phase in ("dealing", "game_over") or state.deal_no != sample.deal_no


def evaluate(sample: KlapperState, state: KlapperState) -> list[float]:
    """Per seat: 1 for a won game, 0 for a lost one; otherwise 0.5 plus the side's deal points added
    minus the best other side's (KL-37, KL-38), scaled; mid-deal, the card points so far."""
    n = state.n
    won = state.winner if state.phase == "game_over" else None
    if len(state.results) > len(sample.results):
        result = state.results[len(sample.results)]
        added = [float(a) for a in result.get("added", [0] * state.num_sides)]
        scale = 400.0
    else:
        added = [float(p) for p in state.card_points]
        scale = 324.0
    out = []
    for s in range(n):
        side = state.side_of[s]
        others = [a for i, a in enumerate(added) if i != side]
        margin = clamp01(0.5 + (added[side] - max(others, default=0.0)) / scale)
        if won is None:
            out.append(margin)
        else:  # the game is decided: winning is what counts, the margin only breaks ties between moves
            out.append(WIN_WEIGHT * (state.side_of[s] == won) + (1.0 - WIN_WEIGHT) * margin)
    return out


GAME = SearchGame(
    engine=ENGINE,
    evaluate=evaluate,
    cutoff=cutoff,
    playout=playout_policy,
    exploration=0.6,
)


def strong_level(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    prior = rules_level(view, moves, seat, rng, budget)
    return flat_search(GAME, _inner(view), moves, seat, rng, budget, prior=prior, margin=PRIOR_MARGIN).move


LEVELS: dict[str, Level] = {"random": uniform_level, "rules": rules_level, "strong": strong_level}
