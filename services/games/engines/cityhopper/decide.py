"""``decide``: validate a move and return the events it causes, including every automatic step
that follows (tolls, fares, rewards, penalties, chance cards, turn end) until a seat must act or
chance is needed. Events are folded on a working copy as they are emitted, so each check sees the
state as it will be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from services.games.engines.base import Event, IllegalMove, Move
from shared.cityhopper.errors import CityHopperError, GradingError
from shared.cityhopper.grading import grade

from .board import AIRPORT_LINK, AIRPORT_OF, CAPITALS, CITIES, CITY_OF_AIRPORT, WALKS, go_to_routes
from .evolve import evolve
from .rules import (
    boat_free,
    edge_problem,
    end_city_price,
    flight_problem,
    has_legal_step,
    is_final,
)
from .state import (
    AWAIT_ROLL,
    CHANCE,
    GAME_OVER,
    MOVE,
    PENALTY_LIMIT,
    PRICE_CITY,
    PRICE_END_CITY,
    PRICE_FLIGHT,
    PURCHASE,
    QUESTION,
    REWARD,
    REWARD_FINAL,
    SELL_PRICE,
    START_ROLL,
    TOLL,
    Pos,
    State,
)

ACTIONS = (
    "roll_start",
    "roll",
    "move",
    "answer",
    "buy_city",
    "buy_end_city",
    "buy_flight",
    "skip_purchase",
    "fly_with_ticket",
    "choose_chance",
)


def fail(rule: str, code: str, message: str) -> NoReturn:
    raise IllegalMove(rule, code, message)


class Builder:
    """Collects events and keeps the state they lead to."""

    def __init__(self, state: State) -> None:
        self.s = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.s = evolve(self.s, event)


def decide(s: State, seat: int, move: Move) -> list[Event]:
    if not isinstance(move, Mapping) or not isinstance(move.get("type"), str):
        fail("CH-9", "malformed_move", "a move is an object with a 'type'")
    kind = move["type"]
    if kind not in ACTIONS:
        fail("CH-9", "unknown_move", f"unknown move {kind!r}; moves are {', '.join(ACTIONS)}")
    if s.phase == GAME_OVER:
        fail("CH-47", "game_over", "the game is over")
    b = Builder(s)
    _HANDLERS[kind](b, seat, move)
    return b.events


# --- parameter helpers -------------------------------------------------------------------------


def _only(move: Mapping[str, Any], rule: str, *allowed: str) -> None:
    extra = sorted(k for k in move if k != "type" and k not in allowed)
    if extra:
        fail(rule, "unknown_field", f"{move['type']} takes no field {', '.join(map(repr, extra))}")


def _text(move: Mapping[str, Any], key: str, rule: str) -> str:
    value = move.get(key)
    if not isinstance(value, str) or not value:
        fail(rule, "missing_field", f"{move['type']} needs '{key}' (a string id)")
    return value


def _active(b: Builder, seat: int, phase: str, rule: str, what: str) -> None:
    s = b.s
    if s.phase != phase:
        fail(rule, "wrong_phase", f"{what} is not possible now (phase {s.phase})")
    if seat != s.active:
        fail(rule, "not_your_turn", f"it is seat {s.active}'s turn")


# --- start and roll ----------------------------------------------------------------------------


def _roll_start(b: Builder, seat: int, move: Move) -> None:
    s = b.s
    _only(move, "CH-8")
    if s.phase != START_ROLL:
        fail("CH-8", "wrong_phase", "the starting roll is over")
    if seat not in s.start_rollers or s.start_rolls[seat] is not None or s.pending_start is not None:
        fail("CH-8", "not_to_roll", "you do not roll for the start now")
    b.emit({"type": "StartRollRequested", "seat": seat})


def _roll(b: Builder, seat: int, move: Move) -> None:
    _only(move, "CH-9")
    _active(b, seat, AWAIT_ROLL, "CH-9", "rolling")
    if b.s.roll_pending:
        fail("CH-9", "already_rolled", "you already rolled")
    b.emit({"type": "RollRequested", "seat": seat})


# --- walking -----------------------------------------------------------------------------------


def _move(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, MOVE, "CH-10", "moving")
    s = b.s
    p = s.players[seat]
    if p.pos.kind == "city":
        _only(move, "CH-11", "edge")
        edge = _text(move, "edge", "CH-11")
        w = WALKS.get(edge)
        if w is None:
            fail("CH-11", "unknown_edge", f"{edge!r} is not a road, dike or boat edge")
        problem = edge_problem(s, seat, w)
        if problem is not None:
            fail(*problem)
        start = p.pos.at
        far = w.other(start)
        if w.type == "boat":
            if boat_free(p, w, far):
                b.emit({"type": "TicketSpent", "seat": seat, "kind": "FREE_BOAT", "edge": w.id})
            else:
                b.emit(
                    {
                        "type": "FarePaid",
                        "seat": seat,
                        "edge": w.id,
                        "payer": seat,
                        "payee": "bank",
                        "amount": w.fare,
                    }
                )
        steps = b.s.steps
        if w.steps <= steps:
            to: Pos = Pos("city", far)
            used = w.steps
        else:
            used = steps
            index = steps if start == w.a else w.squares + 1 - steps
            to = Pos("edge", w.id, index, far)
        _walk(b, seat, w.id, to, used)
        return
    _only(move, "CH-11")
    if p.pos.kind == "airport":  # CH-29: the next step enters the airport's city
        _walk(b, seat, AIRPORT_LINK[p.pos.at], Pos("city", CITY_OF_AIRPORT[p.pos.at]), 1)
        return
    w = WALKS[p.pos.at]  # CH-11 / CH-12: on a grey square keep the heading
    ahead = w.squares + 1 - p.pos.index if p.pos.heading == w.b else p.pos.index
    if ahead <= s.steps:
        _walk(b, seat, w.id, Pos("city", p.pos.heading), ahead)
    else:
        delta = s.steps if p.pos.heading == w.b else -s.steps
        _walk(b, seat, w.id, Pos("edge", w.id, p.pos.index + delta, p.pos.heading), s.steps)


def _walk(b: Builder, seat: int, edge: str, to: Pos, used: int) -> None:
    p = b.s.players[seat]
    b.emit(
        {
            "type": "Moved",
            "seat": seat,
            "edge": edge,
            "from": p.pos.to_dict(),
            "to": to.to_dict(),
            "steps": used,
        }
    )
    if to.kind == "city":
        _arrive(b, seat, to.at)
    elif b.s.steps == 0:
        _end_turn(b, seat, "steps used up")


def _toll(b: Builder, seat: int, city: str) -> None:
    """CH-31 / CH-34 / R-11: EUR 5 to an opponent owner on every entry, capped at what you have."""
    owner = b.s.owners.get(city)
    if owner is None or owner == seat:
        return
    b.emit(
        {
            "type": "TollPaid",
            "seat": seat,
            "city": city,
            "payer": seat,
            "payee": owner,
            "amount": min(TOLL, b.s.players[seat].money),
            "due": TOLL,
        }
    )


def _arrive(b: Builder, seat: int, city: str) -> None:
    """CH-13 / CH-14: the pawn stops; toll, then the question (category by chance)."""
    _toll(b, seat, city)
    b.emit({"type": "QuestionStarted", "seat": seat, "city": city, "final": is_final(b.s, seat, city)})


def _end_turn(b: Builder, seat: int, reason: str) -> None:
    b.emit({"type": "TurnEnded", "seat": seat, "reason": reason, "lost_steps": b.s.steps})


def _after_window(b: Builder, seat: int) -> None:
    """CH-15 d / CH-10: continue with the remaining steps, or end the turn."""
    if b.s.steps == 0:
        _end_turn(b, seat, "steps used up")
    elif not has_legal_step(b.s, seat):
        _end_turn(b, seat, "no legal step (CH-10)")


# --- questions ---------------------------------------------------------------------------------


def _answer(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, QUESTION, "CH-14", "answering")
    _only(move, "CH-14", "payload")
    q = b.s.question
    if q is None or q.get("stage") != "answer" or q.get("question") is None:
        fail("CH-14", "no_question", "the question is not there yet")
    payload = move.get("payload", {})
    if not isinstance(payload, Mapping):
        fail("CH-14", "bad_answer", "payload must be an object (see the answer move's schema)")
    try:
        result = grade(q["question"], payload)
    except GradingError as exc:
        fail("CH-14", "bad_answer", f"{exc.field}: {exc.message}")
    except CityHopperError as exc:  # a malformed question is not the player's fault
        fail("CH-14", "bad_question", str(exc))
    city = str(q["city"])
    final = bool(q["final"])
    b.emit(
        {
            "type": "QuestionAnswered",
            "seat": seat,
            "city": city,
            "category": q["category"],
            "request_no": q["request_no"],
            "question_id": q["question"].get("id"),
            "final": final,
            "stuck": bool(q.get("stuck")),
            "answer": dict(payload),
            "correct": result.correct,
            "reveal": result.reveal,
        }
    )
    if not result.correct:  # CH-16
        _take_penalty(b, seat)
        _end_turn(b, seat, "wrong answer (CH-16)")
        return
    amount = REWARD_FINAL if final else REWARD
    b.emit({"type": "RewardPaid", "seat": seat, "payer": "bank", "payee": seat, "amount": amount})
    if final:  # CH-43 / CH-47
        b.emit({"type": "EndCityPlayedAway", "seat": seat, "city": city})
        if not b.s.players[seat].end_cards:
            b.emit({"type": "GameWon", "seat": seat})
            return
    if city in CAPITALS:  # CH-15 b / CH-33
        _draw_chance(b, seat)
    else:
        _open_window(b, seat)


def _take_penalty(b: Builder, seat: int) -> None:
    """CH-16 / CH-17 / R-7: a penalty point; at 3, an extra secret end city and all points back."""
    points = b.s.players[seat].penalty + 1
    b.emit({"type": "PenaltyTaken", "seat": seat, "points": points})
    if points >= PENALTY_LIMIT:
        if b.s.blue:  # an empty blue deck skips the draw
            b.emit({"type": "EndCityDrawn", "seat": seat, "city": b.s.blue[0], "reason": "penalty"})
        b.emit({"type": "PenaltiesReturned", "seat": seat})


def _open_window(b: Builder, seat: int) -> None:
    b.emit({"type": "PurchaseOpened", "seat": seat})


# --- purchases ---------------------------------------------------------------------------------


def _buy_city(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, PURCHASE, "CH-36", "buying")
    _only(move, "CH-37", "city")
    city = _text(move, "city", "CH-37")
    s = b.s
    p = s.players[seat]
    if city not in CITIES:
        fail("CH-37", "unknown_city", f"{city!r} is not a city")
    if city in s.owners:
        fail("CH-30", "owned", f"{city} already has a house")
    if city in p.end_cities():
        fail("CH-37", "end_city", f"{city} is one of your end cities: buy it with buy_end_city")
    if p.supply == 0:
        fail("CH-40", "no_house", "you have no house left in your supply")
    if p.money < PRICE_CITY:
        fail("CH-34", "money", f"a city costs EUR {PRICE_CITY}; you have EUR {p.money}")
    b.emit(
        {
            "type": "CityBought",
            "seat": seat,
            "city": city,
            "kind": "city",
            "previous_owner": None,
            "payer": seat,
            "payee": "bank",
            "amount": PRICE_CITY,
        }
    )
    _after_window(b, seat)


def _buy_end_city(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, PURCHASE, "CH-36", "buying")
    _only(move, "CH-38", "city", "sell_house")
    city = _text(move, "city", "CH-38")
    s = b.s
    p = s.players[seat]
    if city not in p.end_cities():
        fail("CH-38", "not_end_city", f"{city!r} is not one of your end cities")
    if s.owners.get(city) == seat:
        fail("CH-38", "already_yours", f"{city} is already yours")
    sell = move.get("sell_house")
    if p.supply == 0:
        if sell is None:
            fail("CH-40", "sale_needed", "your supply is empty: name one placed house to sell (sell_house)")
        if not isinstance(sell, str) or s.owners.get(sell) != seat:
            fail("CH-40", "bad_sale", f"you have no house on {sell!r} to sell")
    elif sell is not None:
        fail("CH-40", "no_sale", "a house may be sold only when your supply is empty (R-30)")
    price, ticket = end_city_price(p)
    funds = p.money + (SELL_PRICE if sell is not None else 0)
    if funds < price:
        fail("CH-34", "money", f"this end city costs EUR {price}; you have EUR {funds}")
    if isinstance(sell, str):
        b.emit(
            {
                "type": "HouseSold",
                "seat": seat,
                "city": sell,
                "payer": "bank",
                "payee": seat,
                "amount": SELL_PRICE,
            }
        )
    if ticket is not None:  # CH-49, CH-51 to CH-53
        b.emit({"type": "TicketSpent", "seat": seat, "kind": ticket, "city": city})
    prev = b.s.owners.get(city)
    b.emit(
        {
            "type": "CityBought",
            "seat": seat,
            "city": city,
            "kind": "end_city",
            "previous_owner": prev,
            "payer": seat,
            "payee": "bank" if prev is None else prev,
            "amount": price,
        }
    )
    if prev is not None and ticket == "FREE_END_CITY":
        b.emit(
            {
                "type": "CompensationPaid",
                "seat": prev,
                "city": city,
                "payer": "bank",
                "payee": prev,
                "amount": PRICE_END_CITY,
            }
        )
    _after_window(b, seat)


def _buy_flight(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, PURCHASE, "CH-36", "buying")
    _only(move, "CH-27", "to")
    to = _text(move, "to", "CH-27")
    p = b.s.players[seat]
    problem = flight_problem(b.s, seat, to)
    if problem is not None:
        fail(*problem)
    if "FREE_FLIGHT" in p.tickets:
        fail("CH-27", "use_ticket", "you hold a free-flight ticket: fly with it instead (CH-28)")
    if p.money < PRICE_FLIGHT:
        fail("CH-34", "money", f"a flight costs EUR {PRICE_FLIGHT}; you have EUR {p.money}")
    _fly(b, seat, to, PRICE_FLIGHT, ticket=False)
    _after_window(b, seat)


def _fly(b: Builder, seat: int, to: str, price: int, ticket: bool) -> None:
    p = b.s.players[seat]
    b.emit(
        {
            "type": "FlightTaken",
            "seat": seat,
            "from": AIRPORT_OF[p.pos.at],
            "from_city": p.pos.at,
            "to": to,
            "to_city": CITY_OF_AIRPORT[to],
            "steps": 2,
            "ticket": ticket,
            "payer": seat,
            "payee": "bank",
            "amount": price,
        }
    )


def _skip(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, PURCHASE, "CH-36", "skipping a purchase")
    _only(move, "CH-36")
    b.emit({"type": "PurchaseSkipped", "seat": seat})
    _after_window(b, seat)


def _fly_with_ticket(b: Builder, seat: int, move: Move) -> None:
    _active(b, seat, MOVE, "CH-28", "flying")
    _only(move, "CH-28", "to")
    to = _text(move, "to", "CH-28")
    if "FREE_FLIGHT" not in b.s.players[seat].tickets:
        fail("CH-28", "no_ticket", "you hold no free-flight ticket")
    problem = flight_problem(b.s, seat, to)
    if problem is not None:
        fail(*problem)
    b.emit({"type": "TicketSpent", "seat": seat, "kind": "FREE_FLIGHT", "to": to})
    _fly(b, seat, to, 0, ticket=True)
    if b.s.steps == 0:
        _end_turn(b, seat, "steps used up")


# --- chance cards (section 5) -------------------------------------------------------------------


def _draw_chance(b: Builder, seat: int) -> None:
    from .chance import resolve

    card = b.s.green[0]
    b.emit({"type": "ChanceDrawn", "seat": seat, "card": card})
    resolve(b, seat)


def _chance_choice(b: Builder, seat: int, move: Move) -> None:
    from .chance import choose

    s = b.s
    if s.phase != CHANCE or s.chance is None or s.chance.get("awaiting") is None:
        fail("CH-54", "wrong_phase", "no chance card is waiting for a choice")
    if seat != s.chance["awaiting"]:
        fail("CH-54", "not_your_choice", f"seat {s.chance['awaiting']} chooses now")
    choose(b, seat, move)


_HANDLERS = {
    "roll_start": _roll_start,
    "roll": _roll,
    "move": _move,
    "answer": _answer,
    "buy_city": _buy_city,
    "buy_end_city": _buy_end_city,
    "buy_flight": _buy_flight,
    "skip_purchase": _skip,
    "fly_with_ticket": _fly_with_ticket,
    "choose_chance": _chance_choice,
}

__all__ = ["Builder", "decide", "fail", "go_to_routes"]
