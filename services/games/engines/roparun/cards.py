"""The French deck of ROPARUN (spec §2): card ids, ranks and the deck in use per player count."""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ALL_SUITS: tuple[str, ...] = ("C", "D", "H", "S")

# RR-4 / R12: the dealer draw compares ranks with the ace lowest (A = 1 ... K = 13).
DRAW_VALUE: dict[str, int] = {rank: i + 1 for i, rank in enumerate(RANKS)}

# Card effects table: plain forward steps.
FORWARD_STEPS: dict[str, int] = {"2": 2, "3": 3, "5": 5, "6": 6, "8": 8, "9": 9, "10": 10, "Q": 12}
BACKWARD_STEPS = 4
SEVEN_STEPS = 7
ACE_STEPS: tuple[int, int] = (1, 11)


def suits_for(num_players: int) -> tuple[str, ...]:
    """Suits in use: three players drop spades (R9, 39 cards); otherwise all 52 cards."""
    return ALL_SUITS[:3] if num_players == 3 else ALL_SUITS


def deck_for(num_players: int) -> tuple[str, ...]:
    """The canonical deck order a shuffle permutation is mapped onto (suit by suit, A to K)."""
    return tuple(rank + suit for suit in suits_for(num_players) for rank in RANKS)


def rank_of(card: str) -> str | None:
    """The rank of a well-formed card id (``10H`` -> ``10``), or None for anything else."""
    if len(card) < 2 or card[-1] not in ALL_SUITS:
        return None
    rank = card[:-1]
    return rank if rank in DRAW_VALUE else None
