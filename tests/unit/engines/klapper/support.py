"""Helpers that build Klapper states from chosen cards, for scenario tests."""

from __future__ import annotations

import random
from typing import Any

from services.games.engines.base import ChanceRequest, Event, GameConfig, Move, chance_event
from services.games.engines.klapper import KlapperEngine
from services.games.engines.klapper.cards import NAMES, parse
from services.games.engines.klapper.state import KlapperState

E = KlapperEngine()


def config(n: int = 4, **options: Any) -> GameConfig:
    return GameConfig(n, E.normalize_options(n, {"seating": "fixed", **options}))


def ids(cards: list[str]) -> list[int]:
    out = []
    for c in cards:
        v = parse(c)
        assert v is not None, c
        out.append(v)
    return out


def shuffle_event(purpose: str, deck: list[str]) -> Event:
    """A ChanceResolved shuffle whose values put ``deck`` in dealing order."""
    assert sorted(ids(deck)) == list(range(24)), "a deck has each of the 24 cards once"
    return chance_event(ChanceRequest(purpose, "shuffle", 24), 0, ids(deck))


def complete(order: list[str]) -> list[str]:
    """``order`` followed by every card not in it, in canonical order."""
    return order + [c for c in NAMES if c not in order]


def deck_for(n: int, dealer: int, hands: dict[int, list[str]], table: list[int] | None = None) -> list[str]:
    """Dealing order (KL-6) that gives each seat its listed cards; the dealer's last card is turned.

    Seats not listed, or listed short, are filled with the cards left over.
    """
    table = table or list(range(n))
    each = 24 // n
    used = [c for h in hands.values() for c in h]
    spare = [c for c in NAMES if c not in used]
    full = {s: list(hands.get(s, [])) for s in range(n)}
    for s in range(n):
        while len(full[s]) < each:
            if s == dealer and hands.get(s):
                full[s].insert(0, spare.pop(0))  # keep the listed last card last
            else:
                full[s].append(spare.pop(0))
    start = table.index(dealer) + 1
    deck = []
    taken = {s: 0 for s in range(n)}
    for i in range(24):
        seat = table[(start + i) % n]
        deck.append(full[seat][taken[seat]])
        taken[seat] += 1
    return deck


def deck_for_two(
    dealer: int, hands: dict[int, list[str]], extras: dict[int, list[str]], dead: list[str]
) -> list[str]:
    """KL-44 / KL-R19 dealing order for 2 players (dead hand last, its last card turned)."""
    other = 1 - dealer
    deck: list[str] = []
    for i in range(6):
        deck += [hands[other][i], hands[dealer][i]]
    for i in range(3):
        deck += [extras[other][i], extras[dealer][i]]
    return deck + dead


def dealt(n: int, hands: dict[int, list[str]], dealer: int = 0, **options: Any) -> KlapperState:
    state = E.initial_state(config(n, first_dealer=dealer, **options))
    return E.evolve(state, shuffle_event("deal", deck_for(n, dealer, hands)))


def run(state: KlapperState, seat: int, move: Move) -> KlapperState:
    for event in E.decide(state, seat, move):
        state = E.evolve(state, event)
    return state


def moves(state: KlapperState, *steps: tuple[int, Move]) -> KlapperState:
    for seat, move in steps:
        state = run(state, seat, move)
    return state


def bid(choice: str) -> Move:
    return {"type": "bid", "choice": choice}


def play(card: str) -> Move:
    return {"type": "play_card", "card": card}


def legal_cards(state: KlapperState, seat: int) -> set[str]:
    return {m["card"] for m in E.legal_moves(state, seat) if m["type"] == "play_card"}


def play_out_deal(
    state: KlapperState, seed: int = 0, declare: bool = True
) -> tuple[KlapperState, list[Event]]:
    """Random legal moves until the deal is scored or void; returns the state and the events."""
    rng = random.Random(seed)
    log: list[Event] = []
    deal_no = state.deal_no
    while state.deal_no == deal_no and not state.deal_scored and state.pending is None:
        seat = E.to_move(state)[0]
        legal = E.legal_moves(state, seat)
        if not declare:
            legal = [m for m in legal if m["type"] != "declare_roem"] or legal
        events = E.decide(state, seat, rng.choice(legal))
        for event in events:
            state = E.evolve(state, event)
        log += events
    return state, log
