"""How each event changes the state (the fold). Every function returns a new state."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event

from .cards import DECK_SIZE, HEAD_RANK, animal_of, parse_card, rank_of
from .state import (
    ANTE_PER_FIELD,
    CHOOSING_START,
    DEALING,
    FINISHED,
    PLAYING,
    PKState,
    RoundResult,
)


class BadEvent(ValueError):
    """An event the state cannot fold (corrupt log)."""


def _int(event: Event, key: str) -> int:
    value = event.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadEvent(f"{event.get('type')}: {key} must be an integer")
    return value


def apply(state: PKState, event: Event) -> PKState:
    kind = event.get("type")
    handler = _HANDLERS.get(str(kind))
    if handler is None:
        raise BadEvent(f"unknown event {kind!r}")
    new = state.clone()
    handler(new, event)
    return new


def _game_created(s: PKState, e: Event) -> None:
    if s.phase != CHOOSING_START or s.round_no:
        raise BadEvent("GameConfigured comes first")


def _choose_start(s: PKState, seat: int) -> None:
    if s.phase != CHOOSING_START or not 0 <= seat < s.num_players:
        raise BadEvent("start player chosen at the wrong time or out of range")
    s.start_player = seat
    s.dealer = (seat - 1) % s.num_players  # PK-5: dealer = right of the start player


def _start_player_chosen(s: PKState, e: Event) -> None:
    _choose_start(s, _int(e, "seat"))


def _round_started(s: PKState, e: Event) -> None:
    """PK-8, PK-20: cards are collected, rows cleared, pot 0; the deal is pending."""
    n = s.num_players
    s.round_no = _int(e, "round_no")
    s.dealer = _int(e, "dealer")
    s.start_player = _int(e, "start_player")
    if s.pot:
        raise BadEvent("the pot must be empty when a round starts (PK-8)")
    s.phase = DEALING
    s.round_over = False
    s.rows = [(), (), (), ()]
    s.lows = [0, 0, 0, 0]
    s.highs = [0, 0, 0, 0]
    s.hands = [() for _ in range(n)]
    s.deck = DECK_SIZE
    s.passes = [0] * n
    s.round_pass_paid = 0
    s.last_pass = None
    s.current_seat = -1


def _antes_paid(s: PKState, e: Event) -> None:
    """PK-6: every player pays 5 onto each of the four row fields."""
    per_player = _int(e, "per_player")
    per_field = _int(e, "per_field")
    if 4 * per_field != per_player * s.num_players:
        raise BadEvent("antes must go in equal parts onto the four row fields (PK-6)")
    for seat in range(s.num_players):
        s.balances[seat] -= per_player
    for animal in range(4):
        s.fields[animal] += per_field
    s.ledger.antes += per_player * s.num_players


def _deal(s: PKState, values: Any) -> None:
    """PK-7: all 52 cards one at a time from the start player, clockwise."""
    if s.phase != DEALING:
        raise BadEvent("no deal is pending")
    if not isinstance(values, list) or sorted(values) != list(range(DECK_SIZE)):
        raise BadEvent("a deal needs a permutation of the 52 cards")
    n = s.num_players
    hands: list[list[int]] = [[] for _ in range(n)]
    for k, card in enumerate(values):
        hands[(s.start_player + k) % n].append(card)
    s.hands = [tuple(sorted(h)) for h in hands]
    s.deck = 0
    s.phase = PLAYING
    s.current_seat = s.start_player  # PK-9


def _chance(s: PKState, e: Event) -> None:
    purpose = e.get("purpose")
    values = e.get("values")
    if purpose == "start_player":
        if not isinstance(values, list) or len(values) != 1 or not isinstance(values[0], int):
            raise BadEvent("a start-player draw needs one value")
        _choose_start(s, values[0])
        # R9: the recorded draw is followed at once by the start of round 1 (PK-5, PK-6).
        _round_started(
            s, {"type": "RoundStarted", "round_no": 1, "dealer": s.dealer, "start_player": s.start_player}
        )
        _antes_paid(
            s,
            {
                "type": "AntesPaid",
                "per_player": 4 * ANTE_PER_FIELD,
                "per_field": ANTE_PER_FIELD * s.num_players,
            },
        )
    elif purpose == "deal":
        _deal(s, values)
    else:
        raise BadEvent(f"unknown chance purpose {purpose!r}")


def _card_played(s: PKState, e: Event) -> None:
    seat = _int(e, "seat")
    card = parse_card(e.get("card"))
    if card is None or s.phase != PLAYING or card not in s.hands[seat]:
        raise BadEvent("CardPlayed does not fit the state")
    s.hands[seat] = tuple(c for c in s.hands[seat] if c != card)
    animal, rank = animal_of(card), rank_of(card)
    s.rows[animal] = (*s.rows[animal], rank)
    if s.lows[animal] == 0:
        s.lows[animal] = s.highs[animal] = rank
    elif rank < s.lows[animal]:
        s.lows[animal] = rank
    else:
        s.highs[animal] = rank
    payout = _int(e, "head_payout")
    if payout:
        if rank != HEAD_RANK[animal]:
            raise BadEvent("only a head card pays out (PK-17)")
        s.fields[animal] -= payout
        s.balances[seat] += payout
        s.ledger.head_payouts += payout
    if s.hands[seat]:
        s.current_seat = (seat + 1) % s.num_players
    else:  # PK-18: the round ends the moment a hand is empty; nobody else plays
        s.round_over = True
        s.current_seat = -1


def _passed(s: PKState, e: Event) -> None:
    seat = _int(e, "seat")
    paid = _int(e, "paid")
    s.last_pass = (seat, s.hands[seat], tuple(s.rows))
    s.balances[seat] -= paid
    s.pot += paid
    s.round_pass_paid += paid
    s.ledger.passes += paid
    s.passes[seat] += 1
    s.current_seat = (seat + 1) % s.num_players


def _round_ended(s: PKState, e: Event) -> None:
    """PK-18: the player without cards takes the whole pot."""
    seat = _int(e, "seat_out")
    payout = _int(e, "pot_payout")
    if not s.round_over or s.hands[seat]:
        raise BadEvent("RoundEnded needs the seat that just played its last card (PK-18)")
    s.balances[seat] += payout
    s.pot -= payout
    s.ledger.pot_payouts += payout
    s.round_over = True
    s.current_seat = -1
    s.last_round = RoundResult(s.round_no, seat, payout)


def _game_ended(s: PKState, e: Event) -> None:
    winners = e.get("winners")
    if not isinstance(winners, list):
        raise BadEvent("GameEnded needs winners")
    s.phase = FINISHED
    s.current_seat = -1
    s.winners = [int(w) for w in winners]
    s.end_reason = str(e.get("reason"))


_HANDLERS = {
    "GameConfigured": _game_created,
    "StartPlayerChosen": _start_player_chosen,
    "RoundStarted": _round_started,
    "AntesPaid": _antes_paid,
    CHANCE_EVENT: _chance,
    "CardPlayed": _card_played,
    "Passed": _passed,
    "RoundEnded": _round_ended,
    "GameEnded": _game_ended,
}
