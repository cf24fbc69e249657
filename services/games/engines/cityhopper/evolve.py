"""``evolve``: fold one event into a new state (never mutates its input)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.engines.base import CHANCE_EVENT, EXTERNAL_EVENT, Event

from .board import CITY_IDS
from .rules import has_legal_step
from .state import (
    AWAIT_ROLL,
    CARD_IDS,
    CARDS,
    CHANCE,
    GAME_OVER,
    MOVE,
    PURCHASE,
    QUESTION,
    RESOLVING,
    START_ROLL,
    EndCard,
    Pos,
    State,
    pos_from_dict,
)


def evolve(state: State, event: Event) -> State:
    s = state.clone()
    handler = _HANDLERS.get(str(event.get("type")))
    if handler is None:
        raise ValueError(f"unknown CityHopper event {event.get('type')!r}")
    handler(s, event)
    if "amount" in event and "payer" in event:
        _transfer(s, event["payer"], event["payee"], int(event["amount"]), str(event["type"]))
    return s


def _transfer(s: State, payer: Any, payee: Any, amount: int, why: str) -> None:
    if amount < 0:
        s.ledger_errors.append(f"{why}: negative amount {amount}")
    if payer == "bank":
        s.bank_out += amount
    else:
        p = s.players[int(payer)]
        if p.money < amount:
            s.ledger_errors.append(f"{why}: seat {payer} pays {amount} with only {p.money}")
        p.money -= amount
    if payee == "bank":
        s.bank_in += amount
    else:
        s.players[int(payee)].money += amount


# --- chance and external results ---------------------------------------------------------------


def _chance(s: State, e: Event) -> None:
    purpose = e["purpose"]
    values = [int(v) for v in e["values"]]
    if purpose in ("blue", "yellow"):
        deck = [CITY_IDS[i] for i in values]
        if purpose == "blue":
            s.blue = deck
        else:
            s.yellow = deck
        s.shuffled += 1
    elif purpose == "green":
        s.green = [CARD_IDS[i] for i in values]
        s.shuffled += 1
        _setup(s)
    elif purpose == "start_roll":
        seat = s.pending_start
        assert seat is not None
        s.start_rolls[seat] = values[0]
        s.pending_start = None
        _start_round_done(s)
    elif purpose == "roll":
        s.roll = values[0]
        s.steps = values[0]
        s.roll_pending = False
        s.phase = MOVE
        p = s.players[s.active]
        if p.pos.kind == "city" and not has_legal_step(s, s.active):  # CH-21 / R-8
            s.phase = QUESTION
            s.question = _new_question(p.pos.at, final=False, stuck=True)
    elif purpose == "category":
        q = dict(s.question or {})
        q["category"] = values[0]
        if values[0] == 1:  # road distance: draw the top yellow card, it returns to the bottom
            top = s.yellow.pop(0)
            s.yellow.append(top)
            q["yellow_city"] = top
        q["stage"] = "selector"
        s.question = q
    elif purpose == "selector":
        q = dict(s.question or {})
        q["selector"] = values[0]
        q["request_no"] = s.requests
        q["stage"] = "external"
        s.requests += 1
        s.question = q
    else:
        raise ValueError(f"unknown chance purpose {purpose!r}")


def _setup(s: State) -> None:
    """CH-5 and CH-7: start cities, then two secret end cities each, in seat order."""
    drawn = []
    for p in s.players:
        city = s.blue.pop(0)
        p.start_city = city
        p.pos = Pos("city", city)
        drawn.append(city)
    s.blue.extend(drawn)
    for p in s.players:
        for _ in range(2):
            p.end_cards.append(EndCard(s.blue.pop(0)))
    s.phase = START_ROLL
    s.start_rollers = list(range(s.num_players))
    s.start_rolls = [None] * s.num_players


def _start_round_done(s: State) -> None:
    """CH-8 / R-4: when this round's rollers have all rolled, the single highest starts."""
    rolls = {seat: s.start_rolls[seat] for seat in s.start_rollers}
    if any(v is None for v in rolls.values()):
        return
    s.start_history.append({str(k): int(v or 0) for k, v in rolls.items()})
    best = max(int(v or 0) for v in rolls.values())
    top = [seat for seat, v in rolls.items() if v == best]
    if len(top) > 1:
        s.start_rollers = top
        s.start_rolls = [None] * s.num_players
        return
    s.active = top[0]
    s.turn_no = 1
    s.phase = AWAIT_ROLL


def _external(s: State, e: Event) -> None:
    q = s.question
    if q is None or q.get("stage") != "external" or e.get("kind") != "question":
        raise ValueError("no question request is pending")
    if e.get("request_no") != q.get("request_no"):
        raise ValueError(f"question reply {e.get('request_no')} does not match request {q.get('request_no')}")
    result = e["result"]
    q = dict(q)
    q["question"] = dict(result["question"])
    q["generated"] = bool(result.get("generated", False))
    q["reason"] = str(result.get("reason", ""))
    q["stage"] = "answer"
    s.question = q


def _new_question(city: str, final: bool, stuck: bool) -> dict[str, Any]:
    return {
        "city": city,
        "final": final,
        "stuck": stuck,
        "stage": "category",
        "category": None,
        "yellow_city": None,
        "selector": None,
        "request_no": None,
        "question": None,
    }


# --- turn flow ---------------------------------------------------------------------------------


def _start_roll_requested(s: State, e: Event) -> None:
    s.pending_start = int(e["seat"])


def _roll_requested(s: State, e: Event) -> None:
    s.roll_pending = True


def _moved(s: State, e: Event) -> None:
    p = s.players[int(e["seat"])]
    if e.get("chance"):
        p.last_from = None
    else:
        p.last_from = p.pos
    p.pos = pos_from_dict(e["to"])
    s.steps -= int(e.get("steps", 0))


def _question_started(s: State, e: Event) -> None:
    s.phase = QUESTION
    s.question = _new_question(str(e["city"]), bool(e["final"]), bool(e.get("stuck", False)))


def _question_answered(s: State, e: Event) -> None:
    p = s.players[int(e["seat"])]
    city = str(e["city"])
    if e["correct"]:
        p.barred = [city]  # CH-20
    elif city not in p.barred:
        p.barred.append(city)
    q = s.question or {}
    s.last_question = {
        "seat": int(e["seat"]),
        "city": city,
        "category": q.get("category"),
        "yellow_city": q.get("yellow_city"),
        "final": bool(e.get("final", False)),
        "question": q.get("question"),
        "answer": e.get("answer"),
        "correct": bool(e["correct"]),
        "reveal": e.get("reveal"),
    }
    s.question = None
    s.phase = RESOLVING


def _penalty(s: State, e: Event) -> None:
    s.players[int(e["seat"])].penalty = int(e["points"])


def _penalties_returned(s: State, e: Event) -> None:
    s.players[int(e["seat"])].penalty = 0


def _end_city_drawn(s: State, e: Event) -> None:
    city = str(e["city"])
    if not s.blue or s.blue[0] != city:
        s.ledger_errors.append(f"EndCityDrawn {city} is not the top blue card")
    else:
        s.blue.pop(0)
    s.players[int(e["seat"])].end_cards.append(EndCard(city))


def _remove_card(s: State, seat: int, city: str) -> EndCard | None:
    p = s.players[seat]
    for i, card in enumerate(p.end_cards):
        if card.city == city:
            return p.end_cards.pop(i)
    s.ledger_errors.append(f"seat {seat} holds no end card {city}")
    return None


def _played_away(s: State, e: Event) -> None:
    seat, city = int(e["seat"]), str(e["city"])
    _remove_card(s, seat, city)
    s.blue.append(city)
    s.players[seat].played_away.append(city)
    if not s.players[seat].end_cards:  # CH-47: the last one wins at once (GameWon follows)
        _game_won(s, e)


def _end_city_traded(s: State, e: Event) -> None:
    """TRADE_IN_END_CITY: X to the bottom of the blue deck, the top card Y becomes an end city."""
    seat, city, drawn = int(e["seat"]), str(e["city"]), str(e["drawn"])
    _remove_card(s, seat, city)
    s.blue.append(city)
    if s.blue[0] != drawn:
        s.ledger_errors.append(f"EndCityTraded {drawn} is not the top blue card")
    s.blue.remove(drawn)
    s.players[seat].end_cards.append(EndCard(drawn))


def _swapped(s: State, e: Event) -> None:
    seat, opp = int(e["seat"]), int(e["opponent"])
    gave, got = str(e["gave"]), str(e["got"])
    a, b = s.players[seat], s.players[opp]
    ia = [c.city for c in a.end_cards].index(gave)
    ib = [c.city for c in b.end_cards].index(got)
    a.end_cards[ia] = EndCard(got, False, (opp,))
    b.end_cards[ib] = EndCard(gave, False, (seat,))


def _game_won(s: State, e: Event) -> None:
    s.winner = int(e["seat"])
    s.phase = GAME_OVER


def _turn_ended(s: State, e: Event) -> None:
    s.active = (int(e["seat"]) + 1) % s.num_players
    s.turn_no += 1
    s.phase = AWAIT_ROLL
    s.roll = None
    s.steps = 0
    s.question = None
    s.chance = None


# --- chance cards ------------------------------------------------------------------------------


def _chance_drawn(s: State, e: Event) -> None:
    card = str(e["card"])
    if not s.green or s.green[0] != card:
        s.ledger_errors.append(f"ChanceDrawn {card} is not the top green card")
    else:
        s.green.pop(0)
    s.green.append(card)  # CH-54: back to the bottom once resolved (nothing draws in between)
    c = CARDS[card]
    s.chance = {
        "card": card,
        "effect": c.effect,
        "params": dict(c.params),
        "seat": int(e["seat"]),
        "stage": None,
        "awaiting": None,
    }
    s.phase = CHANCE


def _chance_awaiting(s: State, e: Event) -> None:
    ch = dict(s.chance or {})
    ch["stage"] = e["stage"]
    ch["awaiting"] = int(e["awaiting"])
    for key in ("opponent", "city", "drawn", "yellow", "routes"):
        if key in e:
            ch[key] = e[key]
    s.chance = ch


def _chance_note(s: State, e: Event) -> None:
    ch = dict(s.chance or {})
    ch["stage"] = "done"
    ch["awaiting"] = None
    s.chance = ch


def _ticket_taken(s: State, e: Event) -> None:
    kind = str(e["kind"])
    src = e["from"]
    if src == "stock":
        s.ticket_stock[kind] -= 1
    else:
        s.players[int(src)].tickets.remove(kind)
    s.players[int(e["seat"])].tickets.append(kind)


def _ticket_spent(s: State, e: Event) -> None:
    kind = str(e["kind"])
    s.players[int(e["seat"])].tickets.remove(kind)
    s.ticket_stock[kind] += 1


def _yellow_drawn(s: State, e: Event) -> None:
    city = str(e["city"])
    if not s.yellow or s.yellow[0] != city:
        s.ledger_errors.append(f"YellowDrawn {city} is not the top yellow card")
    else:
        s.yellow.pop(0)
    s.yellow.append(city)
    ch = dict(s.chance or {})
    ch["yellow"] = city
    s.chance = ch


def _house_sold(s: State, e: Event) -> None:
    city, seat = str(e["city"]), int(e["seat"])
    if s.owners.get(city) != seat:
        s.ledger_errors.append(f"HouseSold: seat {seat} has no house on {city}")
    s.owners.pop(city, None)
    s.players[seat].supply += 1


def _house_removed(s: State, e: Event) -> None:
    city, seat = str(e["city"]), int(e["seat"])
    if s.owners.get(city) != seat:
        s.ledger_errors.append(f"HouseRemoved: seat {seat} has no house on {city}")
    s.owners.pop(city, None)
    s.players[seat].supply += 1


def _house_placed(s: State, e: Event) -> None:
    city, seat = str(e["city"]), int(e["seat"])
    if city in s.owners:
        s.ledger_errors.append(f"HousePlaced: {city} already has a house")
    s.owners[city] = seat
    s.players[seat].supply -= 1


def _penalty_removed(s: State, e: Event) -> None:
    s.players[int(e["seat"])].penalty = int(e["points"])


# --- purchases ---------------------------------------------------------------------------------


def _purchase_opened(s: State, e: Event) -> None:
    s.phase = PURCHASE
    s.chance = None


def _purchase_skipped(s: State, e: Event) -> None:
    s.phase = MOVE


def _city_bought(s: State, e: Event) -> None:
    seat, city = int(e["seat"]), str(e["city"])
    prev = e.get("previous_owner")
    if prev is not None:
        _house_removed(s, {"seat": prev, "city": city})
    _house_placed(s, {"seat": seat, "city": city})
    if e["kind"] == "end_city":
        p = s.players[seat]
        p.end_cards = [EndCard(c.city, True, c.known) if c.city == city else c for c in p.end_cards]
    s.phase = MOVE


def _flight_taken(s: State, e: Event) -> None:
    p = s.players[int(e["seat"])]
    p.last_from = None
    p.pos = Pos("airport", str(e["to"]))
    s.steps -= int(e["steps"])
    s.phase = MOVE


def _nothing(s: State, e: Event) -> None:
    return None


_HANDLERS: dict[str, Callable[[State, Event], None]] = {
    CHANCE_EVENT: _chance,
    EXTERNAL_EVENT: _external,
    "StartRollRequested": _start_roll_requested,
    "RollRequested": _roll_requested,
    "FarePaid": _nothing,
    "TollPaid": _nothing,
    "RewardPaid": _nothing,
    "MoneyTransferred": _nothing,
    "CompensationPaid": _nothing,
    "Moved": _moved,
    "QuestionStarted": _question_started,
    "QuestionAnswered": _question_answered,
    "PenaltyTaken": _penalty,
    "PenaltiesReturned": _penalties_returned,
    "PenaltyRemoved": _penalty_removed,
    "EndCityDrawn": _end_city_drawn,
    "EndCityPlayedAway": _played_away,
    "EndCityTraded": _end_city_traded,
    "EndCitySwapped": _swapped,
    "GameWon": _game_won,
    "TurnEnded": _turn_ended,
    "ChanceDrawn": _chance_drawn,
    "ChanceChoiceRequested": _chance_awaiting,
    "ChanceLapsed": _chance_note,
    "ChanceDeclined": _chance_note,
    "TicketTaken": _ticket_taken,
    "TicketSpent": _ticket_spent,
    "YellowDrawn": _yellow_drawn,
    "HouseSold": _house_sold,
    "HouseRemoved": _house_removed,
    "HousePlaced": _house_placed,
    "PurchaseOpened": _purchase_opened,
    "PurchaseSkipped": _purchase_skipped,
    "CityBought": _city_bought,
    "FlightTaken": _flight_taken,
}

__all__ = ["CHANCE", "QUESTION", "evolve"]
