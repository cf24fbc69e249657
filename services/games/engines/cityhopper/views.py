"""What each viewer may see (cityhopper.md 3.3): end cities are secret to their holder until
bought as an end city or played away (a swap shows the two cards to the two players involved);
deck orders are never shown; the answer key of an open question, its source id (in the reveal;
seats see an opaque id) and the selector that picked it are hidden from everyone (issue 14.1)."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, EXTERNAL_EVENT, Event
from shared.cityhopper.grading import public_question

from .board import CITY_OF_AIRPORT, WALKS
from .state import CARDS, EndCard, Player, Pos, State


def _pos_view(pos: Pos) -> dict[str, Any]:
    out = pos.to_dict()
    if pos.kind == "edge":
        w = WALKS[pos.at]
        out |= {"a": w.a, "b": w.b, "squares": w.squares, "edge_type": w.type}
    elif pos.kind == "airport":
        out["city"] = CITY_OF_AIRPORT[pos.at]
    return out


def _card_visible(card: EndCard, holder: int, viewer: int | None) -> bool:
    return card.public or viewer == holder or (viewer is not None and viewer in card.known)


def _player_view(s: State, p: Player, viewer: int | None, everything: bool) -> dict[str, Any]:
    ends = [
        {"city": c.city, "public": c.public}
        if everything or _card_visible(c, p.seat, viewer)
        else {"city": None}
        for c in p.end_cards
    ]
    return {
        "seat": p.seat,
        "money": p.money,
        "penalty_points": p.penalty,
        "start_city": p.start_city,
        "end_cities": ends,
        "end_city_count": len(p.end_cards),
        "played_away": list(p.played_away),
        "tickets": sorted(p.tickets),
        "houses_in_supply": p.supply,
        "houses": s.houses_of(p.seat),
        "barred": list(p.barred),
        "position": _pos_view(p.pos),
    }


def _question_view(q: dict[str, Any] | None, everything: bool) -> dict[str, Any] | None:
    """The open question: without its key and reveal, and without the selector that picked it
    (with the selector a practice draw could be matched to it, issue 14.1)."""
    if q is None:
        return None
    out = {k: v for k, v in q.items() if k != "question"}
    data = q.get("question")
    out["question"] = None if data is None else (dict(data) if everything else public_question(data))
    if not everything:
        out["selector"] = None
    return out


def _last_question_view(q: dict[str, Any] | None) -> dict[str, Any] | None:
    if q is None:
        return None
    out = dict(q)
    if q.get("question") is not None:
        out["question"] = public_question(q["question"])
    return out


def _chance_view(s: State, viewer: int | None, everything: bool) -> dict[str, Any] | None:
    ch = s.chance
    if ch is None:
        return None
    card = CARDS[str(ch["card"])]
    out = dict(ch) | {"title": card.title, "text": card.text}
    stage = ch.get("stage")
    if not everything:
        me = int(ch["seat"])
        if stage == "swap_answer" and viewer not in (me, ch.get("awaiting")):
            out["city"] = None
        if stage == "trade_house" and viewer != me:
            out["city"] = None
            out["drawn"] = None
    return out


def view(s: State, viewer: int | None, everything: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game_type": "cityhopper",
        "num_players": s.num_players,
        "starting_money": s.starting_money,
        "phase": s.phase,
        "active": s.active,
        "turn_no": s.turn_no,
        "roll": s.roll,
        "roll_pending": s.roll_pending,
        "steps_remaining": s.steps,
        "winner": s.winner,
        "start_rolls": list(s.start_rolls),
        "start_rollers": list(s.start_rollers),
        "start_history": [dict(r) for r in s.start_history],
        "players": [_player_view(s, p, viewer, everything) for p in s.players],
        "owners": dict(sorted(s.owners.items())),
        "decks": {"blue": len(s.blue), "yellow": len(s.yellow), "green": len(s.green)},
        "ticket_stock": dict(s.ticket_stock),
        "question": _question_view(s.question, everything),
        "last_question": _last_question_view(s.last_question),
        "chance": _chance_view(s, viewer, everything),
        "requests": s.requests,
    }
    if viewer is not None:
        out["seat"] = viewer
    if everything:
        out["deck_order"] = {"blue": list(s.blue), "yellow": list(s.yellow), "green": list(s.green)}
        out["bank"] = {"received": s.bank_in, "paid_out": s.bank_out}
        out["pending_start"] = s.pending_start
    return out


SHUFFLES = ("blue", "yellow", "green")
SECRET_CHANCE = (*SHUFFLES, "selector")
"""Chance values no seat sees while the game runs: deck orders, and the question selector (it
picked the question and ordered its answers; the key is revealed by the answer itself)."""


def redact_event(event: Event, viewer: int | None) -> Event:
    kind = event.get("type")
    if kind == CHANCE_EVENT:
        if event.get("purpose") in SECRET_CHANCE:
            return {k: v for k, v in event.items() if k != "values"} | {"values": "hidden"}
        return event
    if kind == EXTERNAL_EVENT:
        result = dict(event.get("result") or {})
        if isinstance(result.get("question"), dict):
            result["question"] = public_question(result["question"])
        params = dict(event.get("params") or {})
        if "selector" in params:
            params["selector"] = None
        return event | {"result": result, "params": params}
    if kind == "EndCityDrawn" and viewer != event.get("seat"):
        return event | {"city": None}
    if kind == "EndCityTraded" and viewer != event.get("seat"):
        return event | {"city": None, "drawn": None}
    if kind == "EndCitySwapped" and viewer not in (event.get("seat"), event.get("opponent")):
        return event | {"gave": None, "got": None}
    if kind == "ChanceChoiceRequested":
        if event.get("stage") == "swap_answer" and viewer not in (
            event.get("opponent"),
            event.get("awaiting"),
        ):
            return event | {"city": None}
        if event.get("stage") == "trade_house" and viewer != event.get("awaiting"):
            return event | {"city": None, "drawn": None}
    return event
