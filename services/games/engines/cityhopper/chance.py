"""Green chance cards (cityhopper.md section 5, CH-54 to CH-56): resolution and the choices some
cards ask for (``choose_chance``)."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import Move

from .board import go_to_routes
from .decide import Builder, _open_window, _take_penalty, _toll, fail
from .rules import right_neighbour
from .state import SELL_PRICE, State

# the rule a wrong choice breaks, per stage
STAGE_RULE = {
    "offer": "CH-54",
    "swap_answer": "CH-56",
    "take": "CH-40",
    "take_ticket": "CH-35",
    "free_city": "CH-40",
    "trade_in": "CH-54",
    "trade_house": "CH-56",
    "route": "CH-55",
}


def resolve(b: Builder, seat: int) -> None:
    """Carry out the card just drawn (``b.s.chance``); stops when a seat must choose."""
    s = b.s
    assert s.chance is not None
    card = str(s.chance["card"])
    effect = str(s.chance["effect"])
    params: dict[str, Any] = dict(s.chance["params"])
    p = s.players[seat]
    if effect == "TICKET":
        kind = str(params["kind"])
        if s.ticket_stock.get(kind, 0) > 0:
            b.emit({"type": "TicketTaken", "seat": seat, "kind": kind, "from": "stock", "card": card})
        else:
            return _lapse(b, seat, card, f"no {kind} ticket left in the stock")
    elif effect == "SWAP_END_CITY":
        return _await(b, seat, card, "offer")
    elif effect == "RIGHT_NEIGHBOUR_TAKES_CITY":
        r = right_neighbour(s, seat)
        mine = s.houses_of(seat)
        if not mine:
            return _lapse(b, seat, card, "you own no city")
        if s.players[r].supply == 0 and not [c for c in mine if c in s.players[r].end_cities()]:
            return _lapse(b, seat, card, "your neighbour has no house and may take none of your cities")
        return _await(b, r, card, "take")
    elif effect == "TAKE_TICKET":
        if not any(o.tickets for o in s.players if o.seat != seat):
            return _lapse(b, seat, card, "no opponent holds a ticket")
        return _await(b, seat, card, "take_ticket")
    elif effect == "FREE_CITY_YELLOW":
        city = s.yellow[0]
        b.emit({"type": "YellowDrawn", "seat": seat, "city": city, "card": card})
        owner = b.s.owners.get(city)
        if owner == seat:
            return _lapse(b, seat, card, f"{city} is already yours")
        if p.supply == 0:
            if city not in p.end_cities():
                return _lapse(b, seat, card, "your supply is empty and the city is not an end city (R-27)")
            return _await(b, seat, card, "free_city", city=city)
        if owner is None:
            b.emit({"type": "HousePlaced", "seat": seat, "city": city, "reason": card})
        else:
            return _await(b, seat, card, "free_city", city=city)
    elif effect == "TRADE_IN_END_CITY":
        return _await(b, seat, card, "trade_in")
    elif effect == "GAIN":
        _transfer(b, card, "bank", seat, int(params["amount"]))
    elif effect == "PAY_BANK":
        _transfer(b, card, seat, "bank", int(params["amount"]))
    elif effect == "COLLECT_FROM_EACH":
        for o in range(s.num_players):
            if o != seat:
                _transfer(b, card, o, seat, int(params["amount"]))
    elif effect == "PAY_TO_EACH":
        for o in range(s.num_players):
            if o != seat:
                _transfer(b, card, seat, o, int(params["amount"]))
    elif effect == "PAY_PER_HOUSE":
        _transfer(b, card, seat, "bank", int(params["amount"]) * len(s.houses_of(seat)))
    elif effect in ("GO_TO", "GO_TO_START_CITY"):
        target = str(params["city"]) if effect == "GO_TO" else p.start_city
        here = p.pos.at
        if p.pos.kind != "city" or here == target:
            return _lapse(b, seat, card, f"you are already on {target}")
        routes = go_to_routes(here, target)
        if len(routes) > 1:
            return _await(b, seat, card, "route", routes=[list(r) for r in routes])
        _go(b, seat, list(routes[0]), card)
    elif effect == "REMOVE_PENALTY":
        if p.penalty == 0:
            return _lapse(b, seat, card, "you have no penalty point")
        b.emit({"type": "PenaltyRemoved", "seat": seat, "points": p.penalty - 1, "card": card})
    elif effect == "ADD_PENALTY":
        _take_penalty(b, seat)
    else:  # pragma: no cover - the deck holds only the effects above
        raise ValueError(f"unknown chance effect {effect!r}")
    _finish(b, seat)


def _transfer(b: Builder, card: str, payer: int | str, payee: int | str, due: int) -> None:
    """A card's payment: the bank pays in full, a player pays what he has up to what is due."""
    amount = due if payer == "bank" else min(due, b.s.players[int(payer)].money)
    b.emit(
        {
            "type": "MoneyTransferred",
            "card": card,
            "payer": payer,
            "payee": payee,
            "amount": amount,
            "due": due,
        }
    )


def _finish(b: Builder, seat: int) -> None:
    _open_window(b, b.s.active)


def _lapse(b: Builder, seat: int, card: str, reason: str) -> None:
    b.emit({"type": "ChanceLapsed", "seat": seat, "card": card, "reason": reason})
    _finish(b, seat)


def _await(b: Builder, awaiting: int, card: str, stage: str, **context: Any) -> None:
    b.emit({"type": "ChanceChoiceRequested", "awaiting": awaiting, "card": card, "stage": stage, **context})


def _go(b: Builder, seat: int, route: list[str], card: str) -> None:
    """CH-55: no questions, no fares, barred ignored; EUR 5 to each opponent owner entered."""
    p = b.s.players[seat]
    b.emit(
        {
            "type": "Moved",
            "seat": seat,
            "route": route,
            "from": p.pos.to_dict(),
            "to": {"city": route[-1]},
            "steps": 0,
            "chance": True,
            "card": card,
        }
    )
    for city in route[1:]:
        _toll(b, seat, city)


# --- choices -----------------------------------------------------------------------------------


def choice_options(s: State) -> list[dict[str, Any]]:
    """Every legal ``choose_chance`` payload (without ``type``) for the awaited seat."""
    ch = s.chance
    if ch is None or ch.get("awaiting") is None:
        return []
    stage = ch["stage"]
    me = int(ch["seat"])
    p = s.players[me]
    out: list[dict[str, Any]] = []
    if stage == "offer":
        out.append({"decline": True})
        for o in range(s.num_players):
            if o != me and s.players[o].end_cards:
                out += [{"opponent": o, "city": c} for c in p.end_cities()]
    elif stage == "swap_answer":
        out += [{"city": c} for c in s.players[int(ch["awaiting"])].end_cities()]
    elif stage == "take":
        r = int(ch["awaiting"])
        rp = s.players[r]
        out.append({"decline": True})
        for c in s.houses_of(me):
            if rp.supply > 0:
                out.append({"city": c})
            elif c in rp.end_cities():
                out += [{"city": c, "sell_house": h} for h in s.houses_of(r)]
    elif stage == "take_ticket":
        out.append({"decline": True})
        for o in range(s.num_players):
            if o != me:
                out += [{"opponent": o, "kind": k} for k in sorted(set(s.players[o].tickets))]
    elif stage == "free_city":
        out.append({"decline": True})
        if p.supply > 0:
            out.append({"take": True})
        else:
            out += [{"take": True, "sell_house": h} for h in s.houses_of(me)]
    elif stage == "trade_in":
        out.append({"decline": True})
        out += [{"city": c} for c in p.end_cities()]
    elif stage == "trade_house":
        out += [{"move_house": True}, {"move_house": False}]
    elif stage == "route":
        out.append({})
        out += [{"route": list(r)} for r in ch["routes"]]
    return out


def choose(b: Builder, seat: int, move: Move) -> None:
    s = b.s
    assert s.chance is not None
    ch = s.chance
    stage = str(ch["stage"])
    payload = {k: v for k, v in move.items() if k != "type"}
    if payload not in choice_options(s):
        fail(STAGE_RULE.get(stage, "CH-54"), "bad_choice", _hint(stage))
    me = int(ch["seat"])
    card = str(ch["card"])
    if payload.get("decline"):
        b.emit({"type": "ChanceDeclined", "seat": seat, "card": card})
        return _finish(b, me)
    if stage == "offer":
        return _await(b, int(payload["opponent"]), card, "swap_answer", opponent=me, city=payload["city"])
    if stage == "swap_answer":
        _swap(b, me, seat, str(ch["city"]), str(payload["city"]), card)
    elif stage == "take":
        city = str(payload["city"])
        if "sell_house" in payload:
            b.emit(
                {
                    "type": "HouseSold",
                    "seat": seat,
                    "city": payload["sell_house"],
                    "payer": "bank",
                    "payee": seat,
                    "amount": SELL_PRICE,
                }
            )
        b.emit({"type": "HouseRemoved", "seat": me, "city": city, "reason": card})
        b.emit({"type": "HousePlaced", "seat": seat, "city": city, "reason": card})
    elif stage == "take_ticket":
        b.emit(
            {
                "type": "TicketTaken",
                "seat": me,
                "kind": payload["kind"],
                "from": payload["opponent"],
                "card": card,
            }
        )
    elif stage == "free_city":
        city = str(ch["yellow"])
        if "sell_house" in payload:
            b.emit(
                {
                    "type": "HouseSold",
                    "seat": me,
                    "city": payload["sell_house"],
                    "payer": "bank",
                    "payee": me,
                    "amount": SELL_PRICE,
                }
            )
        owner = b.s.owners.get(city)
        if owner is not None:
            b.emit({"type": "HouseRemoved", "seat": owner, "city": city, "reason": card})
        b.emit({"type": "HousePlaced", "seat": me, "city": city, "reason": card})
    elif stage == "trade_in":
        city = str(payload["city"])
        # X goes to the bottom of the blue deck, then the top card is drawn (one event, so the
        # holder never has zero end cards in between)
        drawn = b.s.blue[0] if b.s.blue else city
        b.emit({"type": "EndCityTraded", "seat": me, "city": city, "drawn": drawn, "card": card})
        if b.s.owners.get(city) == me and drawn != city:
            return _await(b, me, card, "trade_house", city=city, drawn=drawn)
    elif stage == "trade_house":
        if payload["move_house"]:
            old, new = str(ch["city"]), str(ch["drawn"])
            b.emit({"type": "HouseRemoved", "seat": me, "city": old, "reason": card})
            if new not in b.s.owners:  # CH-56
                b.emit({"type": "HousePlaced", "seat": me, "city": new, "reason": card})
    elif stage == "route":
        route = payload.get("route") or ch["routes"][0]
        _go(b, me, list(route), card)
    _finish(b, me)


def _swap(b: Builder, me: int, opp: int, gave: str, got: str, card: str) -> None:
    """SWAP_END_CITY with CH-56: houses follow their cards when the target city is free."""
    mine = b.s.owners.get(gave) == me
    theirs = b.s.owners.get(got) == opp
    b.emit({"type": "EndCitySwapped", "seat": me, "opponent": opp, "gave": gave, "got": got, "card": card})
    if mine:
        b.emit({"type": "HouseRemoved", "seat": me, "city": gave, "reason": card})
    if theirs:
        b.emit({"type": "HouseRemoved", "seat": opp, "city": got, "reason": card})
    if mine and got not in b.s.owners:
        b.emit({"type": "HousePlaced", "seat": me, "city": got, "reason": card})
    if theirs and gave not in b.s.owners:
        b.emit({"type": "HousePlaced", "seat": opp, "city": gave, "reason": card})


def _hint(stage: str) -> str:
    return {
        "offer": "decline, or name an opponent and one of your end cities to swap",
        "swap_answer": "name one of your end cities to give in the swap",
        "take": "decline, or name one of the drawing player's cities (with sell_house when your supply is empty)",
        "take_ticket": "decline, or name an opponent and a ticket kind they hold",
        "free_city": "decline, or take the city (with sell_house when your supply is empty)",
        "trade_in": "decline, or name one of your end cities to trade in",
        "trade_house": "say move_house true or false",
        "route": "name one of the tied shortest routes, or omit it for the default",
    }.get(stage, "not a valid choice for this card")
