"""``legal_moves``: every legal move of a seat as a complete move object.

In the QUESTION phase the list is a finite set of well-formed answers that depends only on what
the answering seat may see, never on the answer key (3.3, CH-14; see ``answer_payloads``);
``decide`` accepts any well-formed answer. ``selfplay_answers`` is the set random self-play picks
from (``Engine.selfplay_moves``): it reads the key, which only in-process self-play may do.
"""

from __future__ import annotations

import hashlib
from typing import Any

from services.games.engines.base import Move
from shared.cityhopper.grading import CHOICE_CATEGORIES, COLOURS, FLAG, ROAD_DISTANCE
from shared.fairness import derive

from .board import CITY_IDS
from .chance import choice_options
from .rules import end_city_price, flight_options, ticket_flights, walk_options
from .state import (
    AWAIT_ROLL,
    CHANCE,
    MOVE,
    PRICE_CITY,
    PRICE_FLIGHT,
    PURCHASE,
    QUESTION,
    SELL_PRICE,
    START_ROLL,
    State,
)


def legal_moves(s: State, seat: int) -> list[Move]:
    if s.phase == START_ROLL:
        if s.pending_start is None and seat in s.start_rollers and s.start_rolls[seat] is None:
            return [{"type": "roll_start"}]
        return []
    if s.phase == CHANCE:
        if s.chance is None or s.chance.get("awaiting") != seat:
            return []
        return [{"type": "choose_chance", **c} for c in choice_options(s)]
    if seat != s.active:
        return []
    if s.phase == AWAIT_ROLL:
        return [] if s.roll_pending else [{"type": "roll"}]
    if s.phase == MOVE:
        p = s.players[seat]
        if p.pos.kind != "city":
            return [{"type": "move"}]
        moves: list[Move] = [{"type": "move", "edge": w.id} for w in walk_options(s, seat)]
        moves += [{"type": "fly_with_ticket", "to": a} for a in ticket_flights(s, seat)]
        return moves
    if s.phase == QUESTION:
        q = s.question
        if q is None or q.get("stage") != "answer" or q.get("question") is None:
            return []
        return [{"type": "answer", "payload": pl} for pl in answer_payloads(q["question"], q["selector"])]
    if s.phase == PURCHASE:
        return purchase_moves(s, seat)
    return []


def purchase_moves(s: State, seat: int) -> list[Move]:
    p = s.players[seat]
    moves: list[Move] = [{"type": "skip_purchase"}]
    ends = p.end_cities()
    if p.supply > 0 and p.money >= PRICE_CITY:
        moves += [{"type": "buy_city", "city": c} for c in CITY_IDS if c not in s.owners and c not in ends]
    price, _ = end_city_price(p)
    for c in ends:
        if s.owners.get(c) == seat:
            continue
        if p.supply > 0:
            if p.money >= price:
                moves.append({"type": "buy_end_city", "city": c})
        elif p.money + SELL_PRICE >= price:
            moves += [{"type": "buy_end_city", "city": c, "sell_house": h} for h in s.houses_of(seat)]
    if "FREE_FLIGHT" not in p.tickets and p.money >= PRICE_FLIGHT:
        moves += [{"type": "buy_flight", "to": a} for a in flight_options(s, seat)]
    return moves


WRONG_EVERY = 64
"""Self-play offers the wrong answers for one question in ``WRONG_EVERY`` (by request number)."""


DISTANCE_GUESSES: tuple[float, ...] = tuple(round(1.3**k, 1) for k in range(26))
"""The km guesses listed for a road distance: 1.0, 1.3, 1.7 ... 705.5 km, each about 1.3 times the
one before. A guess g is right for the exact distances g / 1.15 .. g / 0.85 (CH-14, R-29), a span of
1.35 times, so every distance from 0.87 to 830 km has one or two right guesses in the ladder, and
the ladder is the same for every question."""

FLAG_PAIRS_DOMAIN = "speltafel-cityhopper-flag-pairs"


def answer_payloads(question: dict[str, Any], selector: object) -> list[dict[str, Any]]:
    """The listed answers, a function of the public question and the (secret) selector only:

    - ROAD_DISTANCE: ``{}`` when the yellow card is the arrival city (correct at once), else one
      ``{"km": g}`` per ``DISTANCE_GUESSES`` rung, ascending (any other number may be posted too);
    - choice questions: one ``{"option": id}`` per option, in the order the question shows them
      (``shared.cityhopper.questions.present`` drew that order, unrelated to the key);
    - FLAG: every pair of two different palette colours, in an order shuffled from the selector
      (HMAC-SHA256, ``shared.fairness.derive``), so the first pair is no likelier right than any.
    """
    category = question.get("category")
    if category == ROAD_DISTANCE:
        if question.get("city") == question.get("yellow_city"):
            return [{}]
        return [{"km": g} for g in DISTANCE_GUESSES]
    if category == FLAG:
        palette = [str(c) for c in question.get("palette") or COLOURS]
        pairs = [[a, b] for i, a in enumerate(palette) for b in palette[i + 1 :] if a != b]
        key = hashlib.sha256(f"{FLAG_PAIRS_DOMAIN}\x00{selector}".encode()).digest()
        order = derive(key, FLAG_PAIRS_DOMAIN, (), 0, "shuffle", len(pairs))
        return [{"colours": pairs[i]} for i in order]
    if category in CHOICE_CATEGORIES:
        return [{"option": str(o["id"])} for o in question.get("options", [])]
    return []


def selfplay_answers(question: dict[str, Any], request_no: int) -> list[dict[str, Any]]:
    """What random self-play picks from (in process; never shown to a seat): the right answers,
    plus the wrong ones for one question in
    ``WRONG_EVERY`` (chosen by request number), so about 99 % of the answers are right. Picking
    uniformly among all listed answers (about 40 % right) makes the extra end cities of CH-17 come
    faster than end cities are played away, and random games do not end."""
    right, wrong = _answers(question)
    return right + (wrong if request_no % WRONG_EVERY == 0 else [])


def _answers(question: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Right and wrong answers from the key (self-play only). Right: for a distance the exact value
    and two guesses inside the 15 % margin; for a choice the key's option; for a flag every pair of
    its colours. Wrong: two distances far off, every other option, a flag pair with a colour the flag
    lacks."""
    category = question.get("category")
    if category == ROAD_DISTANCE:
        if question.get("city") == question.get("yellow_city"):
            return [{}], []
        km = float(question["key"]["km"])
        right = [{"km": km}]
        for g in (round(km * 1.1, 1), round(km * 0.92, 1)):
            if {"km": g} not in right:
                right.append({"km": g})
        return right, [{"km": round(km * 0.5, 1)}, {"km": round(km * 2 + 1, 1)}]
    if category == FLAG:
        key = [str(c) for c in question["key"]["colours"]]
        pairs = [{"colours": [a, b]} for i, a in enumerate(key) for b in key[i + 1 :] if a != b]
        other = next((c for c in COLOURS if c not in key), None)
        return pairs, ([] if other is None else [{"colours": [key[0], other]}])
    if category in CHOICE_CATEGORIES:
        answer = str(question["key"]["option"])
        ids = [str(o["id"]) for o in question.get("options", [])]
        return [{"option": answer}], [{"option": i} for i in ids if i != answer]
    return [], []
