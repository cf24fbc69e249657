"""HopPaa cards: the deck, card ids and who wins a trick (HP-5, HP-23, section 2)."""

from __future__ import annotations

from collections.abc import Sequence

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_NAMES: dict[str, str] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")  # low to high
RANK_VALUE: dict[str, int] = {rank: value for value, rank in enumerate(RANKS, start=1)}
NO_TRUMP = "none"


def suits_in_play(num_players: int) -> tuple[str, ...]:
    """HP-5: with three players the diamonds are removed."""
    return tuple(s for s in SUITS if not (num_players == 3 and s == "D"))


def _canonical(num_players: int) -> tuple[str, ...]:
    return tuple(rank + suit for suit in suits_in_play(num_players) for rank in RANKS)


DECKS: dict[int, tuple[str, ...]] = {n: _canonical(n) for n in (2, 3, 4)}
DECK_SETS: dict[int, frozenset[str]] = {n: frozenset(cards) for n, cards in DECKS.items()}


def deck(num_players: int) -> tuple[str, ...]:
    """The canonical deck order a shuffle permutation is mapped onto (40 or 30 cards)."""
    return DECKS[num_players]


def card_set(num_players: int) -> frozenset[str]:
    return DECK_SETS[num_players]


def suit_of(card: str) -> str:
    return card[-1]


VALUE: dict[str, int] = {rank + suit: RANK_VALUE[rank] for suit in SUITS for rank in RANKS}


def value_of(card: str) -> int:
    return VALUE[card]


def trick_winner(cards: Sequence[tuple[int, str]], trump: str) -> int:
    """HP-23/HP-R4: the highest trump wins, else the highest card of the led suit.

    The running best card is always of the led suit or a trump, so a card beats it only by
    being higher in the same suit, or by being the first trump.
    """
    best_seat, best_card = cards[0]
    for seat, card in cards[1:]:
        suit = suit_of(card)
        if suit == suit_of(best_card):
            if value_of(card) > value_of(best_card):
                best_seat, best_card = seat, card
        elif suit == trump:
            best_seat, best_card = seat, card
    return best_seat


def playable(hand: Sequence[str], led_suit: str | None) -> list[str]:
    """HP-19/HP-21/HP-22: follow the led suit when you can, else anything."""
    if led_suit is None:
        return list(hand)
    follow = [c for c in hand if suit_of(c) == led_suit]
    return follow if follow else list(hand)
