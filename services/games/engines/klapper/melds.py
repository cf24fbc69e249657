"""Roem (melds), KL-29 to KL-35 and rulings KL-R9 to KL-R15, KL-R22.

A meld is ``(type, cards)`` with the cards as a sorted tuple of card ints.
"""

from __future__ import annotations

from .cards import JACK, KING, QUEEN, card, rank_of, suit_of

Meld = tuple[str, tuple[int, ...]]

MELD_VALUES: dict[str, int] = {
    "four_jacks": 200,
    "four_of_a_kind": 100,  # A, K, Q, 10 or 9 (KL-R14)
    "run5": 100,  # vijfde
    "run4": 50,  # vierde
    "run3": 30,  # derde
    "stuk": 20,  # K and Q of trump
}
MELD_TYPES: tuple[str, ...] = tuple(MELD_VALUES)
_RUN_LENGTH = {"run3": 3, "run4": 4, "run5": 5}


def meld_problem(meld: Meld, trump: int) -> tuple[str, str] | None:
    """Why ``meld`` is not a valid meld, as (rule, message), or None when it is valid."""
    kind, cards = meld
    if kind not in MELD_VALUES:
        return "KL-31", f"unknown meld type {kind!r}"
    if len(set(cards)) != len(cards):
        return "KL-31", "a meld names the same card twice"
    if kind in ("four_jacks", "four_of_a_kind"):
        if len(cards) != 4 or len({rank_of(c) for c in cards}) != 1:
            return "KL-31", "four of a kind needs the four cards of one rank"
        is_jacks = rank_of(cards[0]) == JACK
        if is_jacks != (kind == "four_jacks"):
            return "KL-31", "four jacks are 'four_jacks'; other ranks are 'four_of_a_kind'"
        return None
    if kind == "stuk":
        if sorted(cards) != [card(KING, trump), card(QUEEN, trump)]:
            return "KL-31", "Stuk is the king and queen of trump"
        return None
    length = _RUN_LENGTH[kind]
    if len(cards) != length:
        return "KL-31", f"a {kind} has exactly {length} cards"
    if len({suit_of(c) for c in cards}) != 1:
        return "KL-32", "a run is in one suit"
    ordered = sorted(cards)
    if ordered[-1] - ordered[0] != length - 1:
        return "KL-32", "a run follows the roem order A, K, Q, J, 10, 9 without gaps or wrap-around"
    return None


def overlap_problem(melds: list[Meld]) -> str | None:
    """KL-33: no card in two melds, except the K and Q of trump in Stuk."""
    if sum(1 for kind, _ in melds if kind == "stuk") > 1:
        return "Stuk can be declared only once"
    seen: set[int] = set()
    for kind, cards in melds:
        if kind == "stuk":
            continue
        if seen & set(cards):
            return "a card may belong to only one meld (except Stuk)"
        seen |= set(cards)
    return None


def total(melds: list[Meld] | tuple[Meld, ...]) -> int:
    return sum(MELD_VALUES[kind] for kind, _ in melds)


def candidate_melds(hand: list[int], trump: int) -> list[Meld]:
    """Every single meld the hand holds (runs of every length 3-5 and position)."""
    held = set(hand)
    found: list[Meld] = []
    for rank in range(6):
        four = tuple(card(rank, s) for s in range(4))
        if all(c in held for c in four):
            found.append(("four_jacks" if rank == JACK else "four_of_a_kind", four))
    for suit in range(4):
        for length, kind in ((5, "run5"), (4, "run4"), (3, "run3")):
            for start in range(6 - length + 1):
                run = tuple(card(start + k, suit) for k in range(length))
                if all(c in held for c in run):
                    found.append((kind, run))
    stuk = (card(KING, trump), card(QUEEN, trump))
    if all(c in held for c in stuk):
        found.append(("stuk", stuk))
    return found


def declarations(hand: list[int], trump: int) -> list[list[Meld]]:
    """Every non-empty set of melds the hand may declare together (KL-31 to KL-33, KL-R9)."""
    cands = candidate_melds(hand, trump)
    plain = [m for m in cands if m[0] != "stuk"]
    stuk = [m for m in cands if m[0] == "stuk"]
    packs: list[list[Meld]] = []

    def extend(start: int, used: frozenset[int], chosen: list[Meld]) -> None:
        packs.append(list(chosen))
        for i in range(start, len(plain)):
            cards = plain[i][1]
            if used.isdisjoint(cards):
                chosen.append(plain[i])
                extend(i + 1, used | frozenset(cards), chosen)
                chosen.pop()

    extend(0, frozenset(), [])
    out: list[list[Meld]] = []
    for pack in packs:
        if pack:
            out.append(pack)
        if stuk:
            out.append([*pack, stuk[0]])
    return out


def best_total(hand: list[int], trump: int) -> int:
    return max((total(d) for d in declarations(hand, trump)), default=0)
