"""Cards of Paardenkoppen (spec §2): 4 animals x ranks 1-13, ids like ``goat-10``.

Inside the engine a card is an int ``animal * 13 + rank - 1``; the canonical deck order (used to map
a recorded shuffle onto cards) is horse 1..13, cow 1..13, pig 1..13, goat 1..13.
"""

from __future__ import annotations

import re

ANIMALS: tuple[str, ...] = ("horse", "cow", "pig", "goat")
RANKS = 13
DECK_SIZE = len(ANIMALS) * RANKS
HEAD_RANK: tuple[int, ...] = (13, 12, 11, 10)  # PK-12 head cards: horse 13, cow 12, pig 11, goat 10
OPENING_RANK = 6  # PK-10/PK-11: every row is opened by its 6

_CARD_ID = re.compile(r"^(horse|cow|pig|goat)-(1[0-3]|[1-9])$")


def make_card(animal: int, rank: int) -> int:
    return animal * RANKS + rank - 1


def animal_of(card: int) -> int:
    return card // RANKS


def rank_of(card: int) -> int:
    return card % RANKS + 1


def card_id(card: int) -> str:
    return f"{ANIMALS[animal_of(card)]}-{rank_of(card)}"


CARD_IDS: tuple[str, ...] = tuple(card_id(c) for c in range(DECK_SIZE))
_BY_ID: dict[str, int] = {cid: c for c, cid in enumerate(CARD_IDS)}


def parse_card(text: object) -> int | None:
    """The card for an id like ``horse-6``, or None when ``text`` is no card id."""
    if not isinstance(text, str) or not _CARD_ID.match(text):
        return None
    return _BY_ID[text]


def is_head(card: int) -> bool:
    return rank_of(card) == HEAD_RANK[animal_of(card)]


def deal_counts(num_players: int) -> list[int]:
    """Cards per player in dealing order from the start player (PK-7, §2 table)."""
    base, extra = divmod(DECK_SIZE, num_players)
    return [base + (1 if k < extra else 0) for k in range(num_players)]
