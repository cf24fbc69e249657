"""Bot levels for Paardenkoppen (spec rules/paardenkoppen.md).

- ``random``: a uniformly random legal move.
- ``rules``: a one-card heuristic from the spec, reading only the seat's view: take a head card's
  field at once (PK-17), push a row towards a head card the bot holds itself (PK-12), hold back the
  cards that would open play (or a head card) for the others (PK-11, PK-12, the seed's tip to keep
  a 6 as long as possible, R3), and keep cards that let the bot play on next turn, so that it passes
  (PK-16) less and goes out first for the pot (PK-18).
- ``strong``: determinized Monte Carlo (``services.bots.domain.games.pk_search``): sample the
  unseen hands from the view, play each candidate out to the end of the round with ``rules`` for
  every seat, and pick the move with the best average chip result.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level, uniform
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
from services.games.engines.paardenkoppen.rules import is_playable

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


def _bounds(view: dict[str, Any]) -> tuple[list[int], list[int]]:
    rows = view["rows"]
    lows = [int(rows[name]["low"] or 0) for name in ANIMALS]
    highs = [int(rows[name]["high"] or 0) for name in ANIMALS]
    return lows, highs


def _newly_playable(card: int, lows: Sequence[int], highs: Sequence[int]) -> list[int]:
    """The cards of ``card``'s animal that become playable once ``card`` lies in its row."""
    animal, rank = animal_of(card), rank_of(card)
    before = [c for c in range(animal * RANKS, (animal + 1) * RANKS) if is_playable(c, lows, highs)]
    new_lows, new_highs = list(lows), list(highs)
    if lows[animal] == 0:
        new_lows[animal] = new_highs[animal] = rank
    elif rank < lows[animal]:
        new_lows[animal] = rank
    else:
        new_highs[animal] = rank
    after = [c for c in range(animal * RANKS, (animal + 1) * RANKS) if is_playable(c, new_lows, new_highs)]
    return [c for c in after if c not in before]


def _head_path(animal: int, lows: Sequence[int], highs: Sequence[int]) -> set[int]:
    """Ranks still missing before this animal's head card becomes playable (PK-12)."""
    head = HEAD_RANK[animal]
    low, high = lows[animal], highs[animal]
    if low and high >= head:
        return set()  # the head card lies in the row already
    have = set(range(low, high + 1)) if low else set()
    return set(range(1, head)) - have


def score_card(card: int, hand: Sequence[int], view: dict[str, Any]) -> float:
    """How good it is to play ``card`` now (higher is better), from the seat's view only."""
    lows, highs = _bounds(view)
    rows = view["rows"]
    animal, rank = animal_of(card), rank_of(card)
    field = float(rows[ANIMALS[animal]]["field"])
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


def rules_level(body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget) -> Move:
    """The ``rules`` level: the best-scoring card (PK-14: a pass only when nothing is playable)."""
    plays = [m for m in moves if m.get("type") == "play_card"]
    if not plays:
        return moves[0]
    view = engine_view(body)
    hand = [c for c in (parse_card(x) for x in view.get("hand") or []) if c is not None]
    scored = [(score_card(int(parse_card(m["card"]) or 0), hand, view), k) for k, m in enumerate(plays)]
    best = max(s for s, _ in scored)
    top = [plays[k] for s, k in scored if s >= best - 1e-9]
    return top[0] if len(top) == 1 else rng.choice(top)


def _strong(body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget) -> Move:
    from services.bots.domain.games.pk_search import strong_level

    return strong_level(body, moves, seat, rng, budget)


LEVELS: dict[str, Level] = {"random": uniform, "rules": rules_level, "strong": _strong}
