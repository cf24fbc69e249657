"""Dealing unseen cards at random under constraints, for ``Engine.determinize``.

A seat that samples the hidden part of a card game knows how many cards each hidden place holds
(other hands, a dead hand, discards, a reserve) and, from play, which cards some places cannot hold
(a player who did not follow suit has none of that suit). ``deal`` hands the unseen cards out so
every place gets exactly its count and no place gets a card it cannot hold.

Pure: the generator comes in as an argument (``Rng``: ``random()`` and ``shuffle``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from services.games.engines.base import Rng

C = TypeVar("C", bound=Hashable)

GREEDY_TRIES = 12


class NoConsistentDeal(ValueError):
    """The constraints admit no deal (the view contradicts itself)."""


def deal(
    cards: Sequence[C],
    sizes: Sequence[int],
    allowed: Callable[[int, C], bool],
    rng: Rng,
) -> list[list[C]]:
    """``cards`` split into ``len(sizes)`` places of ``sizes[p]`` cards, each card in a place ``p``
    with ``allowed(p, card)``. Random: a weighted greedy deal (near uniform), and a randomized
    matching when the greedy deal gets stuck, so a consistent deal is always found if one exists.
    """
    if sum(sizes) != len(cards):
        raise NoConsistentDeal(f"{len(cards)} unseen cards for {sum(sizes)} hidden places")
    places = range(len(sizes))
    options = {c: [p for p in places if sizes[p] > 0 and allowed(p, c)] for c in cards}
    for c, opts in options.items():
        if not opts:
            raise NoConsistentDeal(f"card {c!r} fits no hidden place")
    for _ in range(GREEDY_TRIES):
        got = _greedy(list(cards), sizes, options, rng)
        if got is not None:
            return got
    return _matching(list(cards), sizes, options, rng)


def _greedy(
    cards: list[C], sizes: Sequence[int], options: dict[C, list[int]], rng: Rng
) -> list[list[C]] | None:
    rng.shuffle(cards)
    cards.sort(key=lambda c: len(options[c]))  # stable: random among equally constrained cards
    left = list(sizes)
    out: list[list[C]] = [[] for _ in sizes]
    for c in cards:
        opts = [p for p in options[c] if left[p] > 0]
        if not opts:
            return None
        total = sum(left[p] for p in opts)
        pick = rng.random() * total
        chosen = opts[-1]
        for p in opts:
            pick -= left[p]
            if pick < 0:
                chosen = p
                break
        out[chosen].append(c)
        left[chosen] -= 1
    return out


def _matching(
    cards: list[C], sizes: Sequence[int], options: dict[C, list[int]], rng: Rng
) -> list[list[C]]:
    """Kuhn's augmenting paths from cards to place slots, in random order."""
    slots = [p for p in range(len(sizes)) for _ in range(sizes[p])]
    slot_of_place: dict[int, list[int]] = {}
    for i, p in enumerate(slots):
        slot_of_place.setdefault(p, []).append(i)
    rng.shuffle(cards)
    owner: list[int | None] = [None] * len(slots)  # slot -> card index

    def adjacent(ci: int) -> list[int]:
        out = [s for p in options[cards[ci]] for s in slot_of_place.get(p, [])]
        rng.shuffle(out)
        return out

    adj = [adjacent(ci) for ci in range(len(cards))]

    def augment(ci: int, seen: set[int]) -> bool:
        for s in adj[ci]:
            if s in seen:
                continue
            seen.add(s)
            current = owner[s]
            if current is None or augment(current, seen):
                owner[s] = ci
                return True
        return False

    for ci in range(len(cards)):
        if not augment(ci, set()):
            raise NoConsistentDeal("no deal satisfies every constraint")
    out: list[list[C]] = [[] for _ in sizes]
    for s, ci in enumerate(owner):
        assert ci is not None
        out[slots[s]].append(cards[ci])
    return out
