"""Checks that no seat sees a card hidden in another seat's hand, shared by the whole games over HTTP
(tests/e2e/whole_games.py) and the engine-level tests of the check itself.

One step of a game is one move and every event the rules add after it. Within one step a card may
change hands legitimately: ROPARUN deals a seat cards (RR-5, RR-6), every seat may then have no legal
play (RR-12), the cycle ends (RR-8) and the reshuffled deck is dealt again, so a card the seat saw in
its own ``CardsDealt`` may sit in another hand when the step is over. The seat did hold that card, so
seeing it in its copy of the step's events is no leak. What a seat must never see is a card that sits
in another hand now and that it did not hold at any point of the step, unless a spectator's copy
shows it too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def cards_of(hand: Any) -> set[str]:
    """The card ids of one hand as a full view lists it (None or a count for a hand it does not list)."""
    return {c for c in hand if isinstance(c, str)} if isinstance(hand, list) else set()


def hidden_cards(full: dict[str, Any], public_text: str, seat: int) -> set[str]:
    """Card ids in other seats' hands (``full``: the full view) that a spectator cannot see either."""
    hands = full.get("hands") or []
    cards = {c for s, hand in enumerate(hands) if s != seat for c in cards_of(hand)}
    return {c for c in cards if json.dumps(c) not in public_text}


def held_during(full_views: Iterable[dict[str, Any]], seat: int) -> set[str]:
    """Every card ``seat`` held in any of ``full_views`` (the full view before the step and after each
    of its events)."""
    held: set[str] = set()
    for full in full_views:
        hands = full.get("hands") or []
        if seat < len(hands):
            held |= cards_of(hands[seat])
    return held


def leaks(secret: set[str], text: str) -> list[str]:
    return sorted(c for c in secret if json.dumps(c) in text)


def leaked_in_events(secret: set[str], public_events: str, held: set[str], seat_events: str) -> list[str]:
    """Cards of ``secret`` (hidden in other hands now) that the seat's copy of the step's events shows
    although the spectator's copy does not and the seat did not hold them during the step."""
    private = {c for c in secret if json.dumps(c) not in public_events} - held
    return leaks(private, seat_events)
