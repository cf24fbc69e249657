"""Bot levels for Paardenkoppen (spec rules/paardenkoppen.md).

- ``random``: a uniformly random legal move.
- ``rules``: a one-card heuristic from the spec, reading only the seat's view: take a head card's
  field at once (PK-17), push a row towards a head card the bot holds itself (PK-12), hold back the
  cards that would open play (or a head card) for the others (PK-11, PK-12, the seed's tip to keep
  a 6 as long as possible, R3), and keep cards that let the bot play on next turn, so that it passes
  (PK-16) less and goes out first for the pot (PK-18).
- ``strong``: flat determinized Monte Carlo (``fast_search``): sample the unseen hands from the view
  (``PaardenkoppenEngine.determinize``), play every candidate out on the same samples to the end of
  the round (PK-18) with ``rules`` (a little noise) for every seat, on a compact round simulation,
  and pick the move with the best mean chip gain over the others.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level, uniform
from services.bots.domain.games._flat import flat_search
from services.bots.domain.search import SearchGame, clamp01, search
from services.games.engines.paardenkoppen.cards import (
    ANIMALS,
    HEAD_RANK,
    OPENING_RANK,
    RANKS,
    animal_of,
    make_card,
    parse_card,
    rank_of,
)
from services.games.engines.paardenkoppen.engine import PaardenkoppenEngine
from services.games.engines.paardenkoppen.rules import is_playable
from services.games.engines.paardenkoppen.state import FINISHED, PLAYING, PKState

Move = dict[str, Any]

# weights of the rules heuristic (tuned against ``random`` in the arena, see tests)
HEAD_BONUS = 30.0  # on top of the field itself: a head card is never wasted (PK-17)
OWN_UNLOCK = 2.0  # each own card the play makes playable (fewer passes, PK-16)
OTHER_UNLOCK = 3.0  # each card of another seat the play makes playable
HEAD_GIFT = 1.0  # x field: the play lets another seat take a head card next (PK-12)
OWN_HEAD_PATH = 0.25  # x field: a step towards the head card the bot holds (PK-12)
OTHER_HEAD_PATH = 0.15  # x field: a step towards a head card somebody else holds
SIX_HOLD = 2.0  # opening a row helps everybody (PK-11, R3: hold the 6)


def engine_view(body: dict[str, Any]) -> dict[str, Any]:
    """The engine's seat view inside the API answer (``{"view": ...}``), or the view itself."""
    inner = body.get("view")
    return inner if isinstance(inner, dict) else body


def _bounds(view: dict[str, Any]) -> tuple[list[int], list[int], list[int]]:
    rows = view["rows"]
    lows = [int(rows[name]["low"] or 0) for name in ANIMALS]
    highs = [int(rows[name]["high"] or 0) for name in ANIMALS]
    fields = [int(rows[name]["field"]) for name in ANIMALS]
    return lows, highs, fields


def _newly_playable(card: int, lows: Sequence[int], highs: Sequence[int]) -> list[int]:
    """The cards of ``card``'s animal that become playable once ``card`` lies in its row (PK-11 to
    PK-13): the neighbours of the new end, and the head card once its 1 and the card below lie there."""
    animal, rank = animal_of(card), rank_of(card)
    low, high = lows[animal], highs[animal]
    head = HEAD_RANK[animal]
    out: list[int] = []
    if low == 0:  # the 6 opens the row: 5 and 7 follow (no head card among them)
        return [make_card(animal, OPENING_RANK - 1), make_card(animal, OPENING_RANK + 1)]
    if rank < low:
        if rank > 1:
            out.append(make_card(animal, rank - 1))
        elif high == head - 1:  # the 1 unlocks a waiting head card (PK-12)
            out.append(make_card(animal, head))
    elif rank < RANKS and (rank + 1 != head or low == 1):
        out.append(make_card(animal, rank + 1))
    return out


def _head_path(animal: int, lows: Sequence[int], highs: Sequence[int]) -> set[int]:
    """Ranks still missing before this animal's head card becomes playable (PK-12)."""
    head = HEAD_RANK[animal]
    low, high = lows[animal], highs[animal]
    if low and high >= head:
        return set()  # the head card lies in the row already
    have = set(range(low, high + 1)) if low else set()
    return set(range(1, head)) - have


def score_card(
    card: int, hand: Sequence[int], lows: Sequence[int], highs: Sequence[int], fields: Sequence[int]
) -> float:
    """How good it is to play ``card`` now (higher is better), from what the seat sees: its hand,
    the row bounds and the row fields."""
    animal, rank = animal_of(card), rank_of(card)
    field = float(fields[animal])
    own = set(hand)
    score = 0.0
    if rank == HEAD_RANK[animal]:
        score += HEAD_BONUS + field  # PK-17: the whole field at once
    head_card = make_card(animal, HEAD_RANK[animal])
    path = _head_path(animal, lows, highs)
    if rank in path:
        # PK-12: every missing rank below the head card brings its payout closer
        closeness = 1.0 / max(1, len(path) - 1)
        weight = OWN_HEAD_PATH if head_card in own else -OTHER_HEAD_PATH
        score += weight * field * (1.0 + 4.0 * closeness)
    for unlocked in _newly_playable(card, lows, highs):
        if unlocked in own:
            score += OWN_UNLOCK
        else:
            score -= OTHER_UNLOCK  # every unseen card is in another hand during a round (PK-7)
            if unlocked == head_card:
                score -= HEAD_GIFT * field
    if rank == OPENING_RANK and lows[animal] == 0:
        score -= SIX_HOLD
    # fewer own dead cards: a card whose run continues in the own hand keeps the bot playing
    step = -1 if rank < OPENING_RANK else 1
    nxt = rank + step
    while 1 <= nxt <= RANKS and make_card(animal, nxt) in own:
        score += 0.5
        nxt += step
    return score


def best_play(
    plays: list[Move],
    hand: Sequence[int],
    lows: Sequence[int],
    highs: Sequence[int],
    fields: Sequence[int],
    rng: random.Random,
) -> Move:
    """The best-scoring ``play_card`` move; ties broken by ``rng``."""
    scored = [score_card(int(parse_card(m["card"]) or 0), hand, lows, highs, fields) for m in plays]
    best = max(scored)
    top = [m for m, sc in zip(plays, scored, strict=True) if sc >= best - 1e-9]
    return top[0] if len(top) == 1 else top[int(rng.random() * len(top))]


def rules_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    """The ``rules`` level: the best-scoring card (PK-14: a pass only when nothing is playable)."""
    plays = [m for m in moves if m.get("type") == "play_card"]
    if not plays:
        return moves[0]
    view = engine_view(body)
    hand = [c for c in (parse_card(x) for x in view.get("hand") or []) if c is not None]
    lows, highs, fields = _bounds(view)
    return best_play(plays, hand, lows, highs, fields, rng)


# --- strong: ISMCTS (services.bots.domain.search) with ``rules`` playouts -------------------------

ENGINE = PaardenkoppenEngine()
PLAYOUT_NOISE = 0.1  # share of uniformly random playout moves (others are not exactly ``rules``)
REWARD_SCALE = 120.0  # chips: a round's swing between two seats is rarely larger


def playout_policy(state: PKState, seat: int, legal: list[Move], rng: random.Random) -> Move:
    """``rules`` on the full (determinized) state, with a little noise."""
    plays = [m for m in legal if m.get("type") == "play_card"]
    if not plays:
        return legal[0]
    if rng.random() < PLAYOUT_NOISE:
        return plays[int(rng.random() * len(plays))]
    return best_play(plays, state.hands[seat], state.lows, state.highs, state.fields, rng)


def cutoff(sample: PKState, state: PKState) -> bool:
    """The round is over (PK-18): what follows is a fresh deal, independent of this move."""
    return state.round_over or state.phase != PLAYING or state.round_no != sample.round_no


def evaluate(sample: PKState, state: PKState) -> list[float]:
    """Per seat: 1/0 for a won/lost game (PK-22); else 0.5 plus its chips gained this round minus
    the mean of the others' (PK-17 head payouts, PK-16 passes, PK-18 the pot), scaled."""
    n = state.num_players
    if state.phase == FINISHED and state.winners is not None:
        return [1.0 if s in state.winners else 0.0 for s in range(n)]
    gained = [float(state.balances[s] - sample.balances[s]) for s in range(n)]
    total = sum(gained)
    return [clamp01(0.5 + (gained[s] - (total - gained[s]) / (n - 1)) / REWARD_SCALE) for s in range(n)]


GAME = SearchGame(engine=ENGINE, evaluate=evaluate, cutoff=cutoff, playout=playout_policy, exploration=0.7)


def ismcts_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    """ISMCTS over determinized deals (``PaardenkoppenEngine.determinize``), ``rules`` in playouts."""
    return search(GAME, engine_view(body), moves, seat, rng, budget).move


def flat_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    return flat_search(GAME, engine_view(body), moves, seat, rng, budget)[0]


def _score_index(
    cards: list[int], hand: Sequence[int], lows: Sequence[int], highs: Sequence[int], fields: Sequence[int]
) -> int:
    best_k, best = 0, -1e18
    for k, card in enumerate(cards):
        sc = score_card(card, hand, lows, highs, fields)
        if sc > best:
            best_k, best = k, sc
    return best_k


def round_playout(state: PKState, seat: int, card: int | None, rng: random.Random) -> list[int]:
    """Chips each seat gains from now to the end of the round (PK-16 to PK-18) when ``seat`` plays
    ``card`` (None: passes) and then every seat plays ``rules`` with a little noise.

    A compact re-implementation of one round on plain lists (the engine's ``is_playable`` decides
    what may be played), about ten times faster than folding engine events, so the search can
    afford hundreds of playouts per move.
    """
    n = state.num_players
    hands = [list(h) for h in state.hands]
    lows, highs, fields = list(state.lows), list(state.highs), list(state.fields)
    balances = list(state.balances)
    start = list(balances)
    pot = state.pot
    immediate = state.options.get("six_rule") == "immediate"
    current = seat
    first = True
    for _ in range(60 * n):
        hand = hands[current]
        if first:
            chosen = card
            first = False
        else:
            playable = [c for c in hand if is_playable(c, lows, highs)]
            if immediate:
                sixes = [c for c in playable if rank_of(c) == OPENING_RANK and lows[animal_of(c)] == 0]
                playable = sixes or playable
            if not playable:
                chosen = None
            elif len(playable) == 1:
                chosen = playable[0]
            elif rng.random() < PLAYOUT_NOISE:
                chosen = playable[int(rng.random() * len(playable))]
            else:
                chosen = playable[_score_index(playable, hand, lows, highs, fields)]
        if chosen is None:
            if balances[current] >= 1:  # PK-16, R4
                balances[current] -= 1
                pot += 1
        else:
            hand.remove(chosen)
            animal, rank = animal_of(chosen), rank_of(chosen)
            if lows[animal] == 0:
                lows[animal] = highs[animal] = rank
            elif rank < lows[animal]:
                lows[animal] = rank
            else:
                highs[animal] = rank
            if rank == HEAD_RANK[animal]:  # PK-17
                balances[current] += fields[animal]
                fields[animal] = 0
            if not hand:  # PK-18: the head payout first, then the pot
                balances[current] += pot
                break
        current = (current + 1) % n
    return [b - a for a, b in zip(start, balances, strict=True)]


def fast_search(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> tuple[Move, list[float], int]:
    """Flat determinized Monte Carlo over ``round_playout`` (see ``_flat.flat_search`` for the idea)."""
    n = int(view["num_players"])
    cards = [parse_card(m["card"]) if m.get("type") == "play_card" else None for m in moves]
    totals = [0.0] * len(moves)
    started = budget.start()
    done = 0
    rounds = 0
    while not budget.exhausted(started, done):
        sample = ENGINE.determinize(view, seat, rng)
        gains: list[float] = []
        for card in cards:
            if budget.out_of_time(started):
                break
            gained = round_playout(sample, seat, card, rng)
            gains.append(gained[seat] - (sum(gained) - gained[seat]) / (n - 1))
        if len(gains) < len(cards):
            break  # the time cut this round short: dropped (the cards share its sample)
        for k, gain in enumerate(gains):
            totals[k] += gain
        rounds += 1
        done += len(cards)
    if rounds == 0:
        return moves[0], [0.0] * len(moves), 0
    means = [t / rounds for t in totals]
    best = max(range(len(moves)), key=lambda k: means[k])
    return moves[best], means, done


def fast_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    move, _, done = fast_search(engine_view(body), moves, seat, rng, budget)
    return move if done else rules_level(body, moves, seat, rng, budget)


LEVELS: dict[str, Level] = {"random": uniform, "rules": rules_level, "strong": fast_level}
# Kept for comparison: ``flat_level`` (flat MC through the engine's own decide/evolve) and
# ``ismcts_level`` (the generic ISMCTS of search.py) reach about ten times fewer playouts per second
# than ``fast_level`` and did not beat ``rules`` in 40-game trials at 40 playouts per move.
