"""The 24 Klapper cards (section 2 of rules/klapper.md).

A card is an int ``suit * 6 + rank``. Suits S, H, D, C are 0..3; ranks are in roem order
A, K, Q, J, 10, 9 (index 0..5), so a run is a block of consecutive ints inside one suit (KL-32).
The canonical deck order (the target of a shuffle's values) is simply 0..23.
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9")
DECK_SIZE = 24

ACE, KING, QUEEN, JACK, TEN, NINE = range(6)

# Trick strength by rank index, higher wins (section 2: A-10-K-Q-J-9 and J-9-A-10-K-Q).
PLAIN_STRENGTH: tuple[int, ...] = (5, 3, 2, 1, 4, 0)
TRUMP_STRENGTH: tuple[int, ...] = (3, 1, 0, 5, 2, 4)
# Card points by rank index (KL-26).
PLAIN_POINTS: tuple[int, ...] = (11, 4, 3, 2, 10, 0)
TRUMP_POINTS: tuple[int, ...] = (11, 4, 3, 20, 10, 14)
LAST_TRICK_BONUS = 10  # KL-27

NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_BY_NAME: dict[str, int] = {name: i for i, name in enumerate(NAMES)}


def suit_of(card: int) -> int:
    return card // 6


def rank_of(card: int) -> int:
    return card % 6


def card(rank: int, suit: int) -> int:
    return suit * 6 + rank


def name(c: int) -> str:
    return NAMES[c]


def names(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [NAMES[c] for c in cards]


def parse(text: object) -> int | None:
    """The card for an id such as ``"10S"`` (case-insensitive), or None."""
    if not isinstance(text, str):
        return None
    return _BY_NAME.get(text.strip().upper())


def parse_suit(text: object) -> int | None:
    if not isinstance(text, str):
        return None
    key = text.strip().upper()
    return SUITS.index(key) if key in SUITS else None


def strength(c: int, trump: int) -> int:
    """Trick strength; every trump beats every plain card."""
    if suit_of(c) == trump:
        return 10 + TRUMP_STRENGTH[rank_of(c)]
    return PLAIN_STRENGTH[rank_of(c)]


def points(c: int, trump: int) -> int:
    return TRUMP_POINTS[rank_of(c)] if suit_of(c) == trump else PLAIN_POINTS[rank_of(c)]
