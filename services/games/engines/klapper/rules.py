"""Pure rule functions of Klapper: seating, dealing, legal cards, tricks, roem and scoring."""

from __future__ import annotations

from .cards import DECK_SIZE, JACK, LAST_TRICK_BONUS, SUITS, name, points, rank_of, strength, suit_of
from .state import KlapperState, Play

RED_JACKS = (name(JACK + 6 * 1), name(JACK + 6 * 2))  # JH, JD (KL-4)


def omboeren(n: int, order: list[int]) -> tuple[list[int], int, list[Play]]:
    """KL-2 to KL-5, KL-R1, KL-R2: cards face up one at a time in join order.

    Returns (table: seats clockwise from position 0, first dealer, the cards dealt).
    With 4 players jack holders are skipped until all four hold a jack; the first jack deals
    (position 0), the same-colour jack is his partner (position 2) and of the other two the one
    who got his jack first sits at position 1. With 2, 3 or 6 players dealing stops at the first jack.
    """
    dealt: list[Play] = []
    jack_of: dict[int, int] = {}  # seat -> jack card
    jack_order: list[int] = []
    k = 0
    seat = 0
    while True:
        if seat not in jack_of:
            c = order[k]
            k += 1
            dealt.append((seat, c))
            if rank_of(c) == JACK:
                jack_of[seat] = c
                jack_order.append(seat)
                if n != 4 or len(jack_of) == 4:
                    break
        seat = (seat + 1) % n
    if n != 4:
        return list(range(n)), jack_order[0], dealt
    dealer = jack_order[0]
    red = suit_of(jack_of[dealer]) in (1, 2)
    partner = next(s for s in jack_order[1:] if (suit_of(jack_of[s]) in (1, 2)) == red)
    others = [s for s in jack_order if s not in (dealer, partner)]
    return [dealer, others[0], partner, others[1]], dealer, dealt


def deal(
    n: int, table: list[int], dealer: int, deck: list[int]
) -> tuple[list[list[int]], list[list[int]], list[int], int]:
    """KL-6, KL-7, KL-44, KL-R3, KL-R19: (hands, extras, dead hand, turned card).

    One card at a time clockwise from voorhand; the dealer's last card is the last card dealt
    and is turned. With 2 players: 6 each, then 3 each face down, then 6 to the dead hand
    whose last card is turned.
    """
    hands: list[list[int]] = [[] for _ in range(n)]
    start = table.index(dealer) + 1
    if n == 2:
        extras: list[list[int]] = [[] for _ in range(2)]
        for i in range(12):
            hands[table[(start + i) % 2]].append(deck[i])
        for i in range(6):
            extras[table[(start + i) % 2]].append(deck[12 + i])
        dead = list(deck[18:24])
        return [sorted(h) for h in hands], [sorted(h) for h in extras], dead, deck[23]
    for i in range(DECK_SIZE):
        hands[table[(start + i) % n]].append(deck[i])
    return [sorted(h) for h in hands], [], [], deck[DECK_SIZE - 1]


def legal_cards(hand: list[int], trick: list[Play], trump: int) -> list[int]:
    """KL-17 to KL-21 exactly as the spec's pseudocode; a leader may play any card."""
    if not trick:
        return list(hand)
    led = suit_of(trick[0][1])
    follow = [c for c in hand if suit_of(c) == led]
    if led != trump and follow:
        return follow
    trumps = [c for c in hand if suit_of(c) == trump]
    if not trumps:
        return follow if follow else list(hand)
    in_trick = [strength(c, trump) for _, c in trick if suit_of(c) == trump]
    if not in_trick:
        return trumps
    higher = [c for c in trumps if strength(c, trump) > max(in_trick)]
    return higher if higher else trumps


def illegal_card(hand: list[int], trick: list[Play], trump: int, c: int) -> tuple[str, str, str] | None:
    """(rule, code, message) when card ``c`` breaks KL-17 to KL-21, else None."""
    if c in legal_cards(hand, trick, trump):
        return None
    led = suit_of(trick[0][1])
    if any(suit_of(h) == led for h in hand) and suit_of(c) != led:
        what = "trump was led: you must play a trump" if led == trump else "you must follow suit"
        return "KL-17", "must_follow", f"{what} ({SUITS[led]})"
    if suit_of(c) != trump:
        return "KL-19", "must_trump", "you cannot follow suit, so you must play a trump"
    return "KL-20", "must_overtrump", "you must play a trump higher than every trump in the trick"


def trick_winner(plays: list[Play] | tuple[Play, ...], trump: int) -> int:
    """KL-23: highest trump, else highest card of the led suit."""
    led = suit_of(plays[0][1])
    best = plays[0]
    for p in plays[1:]:
        c, b = p[1], best[1]
        if (suit_of(c) in (led, trump)) and strength(c, trump) > strength(b, trump):
            best = p
    return best[0]


def trick_points(plays: list[Play] | tuple[Play, ...], trump: int) -> int:
    return sum(points(c, trump) for _, c in plays)


def roem_award(state: KlapperState, totals: list[int]) -> tuple[int | None, list[int]]:
    """KL-35, KL-42, KL-47, KL-48, KL-R11, KL-R12, KL-R21: (holder seat, roem per side)."""
    per_side = [0] * state.num_sides
    best = max(totals)
    if best <= 0:
        return None, per_side
    tied = [s for s in state.seats_from(state.voorhand) if totals[s] == best]
    if len({state.side_of[s] for s in tied}) > 1 and state.opts.roem_tie != "voorhand_first":
        return None, per_side
    holder = tied[0]
    side = state.side_of[holder]
    per_side[side] = sum(totals[s] for s in state.members(side))
    return holder, per_side


def deal_points(card_pts: list[int], last_side: int | None, roem: list[int]) -> list[int]:
    """KL-36: card points + last trick + roem scored, per side."""
    return [card_pts[s] + (LAST_TRICK_BONUS if last_side == s else 0) + roem[s] for s in range(len(card_pts))]


def playing_side_wins(compare: list[int], playing_side: int) -> bool:
    """KL-37, KL-38, KL-41: strictly more than every other side."""
    mine = compare[playing_side]
    return all(mine > v for s, v in enumerate(compare) if s != playing_side)


def additions(points_: list[int], compare: list[int], playing_side: int) -> list[int]:
    """KL-37, KL-38, KL-41, KL-R17: what each side adds to its score."""
    if playing_side_wins(compare, playing_side):
        return list(points_)
    return [0 if s == playing_side else v for s, v in enumerate(points_)]


def game_winner(scores: list[int], target: int) -> int | None:
    """KL-39, KL-43, KL-R18: the side that won, or None while play continues."""
    top = max(scores)
    if top < target or scores.count(top) > 1:
        return None
    return scores.index(top)
