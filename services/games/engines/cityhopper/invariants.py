"""Invariants for random play, checked from the state alone (independent of the move generator)."""

from __future__ import annotations

from .board import AIRPORT_OF, CITIES, CITY_IDS, CITY_OF_AIRPORT, WALKS
from .state import (
    CARD_IDS,
    CHANCE,
    GAME_OVER,
    HOUSES,
    PENALTY_LIMIT,
    RESOLVING,
    SETUP,
    TICKET_STOCK,
    Pos,
    State,
)

_CARDS = frozenset(CARD_IDS)


def check(s: State) -> list[str]:
    out: list[str] = []
    if s.phase == SETUP:
        return out
    n = s.num_players
    players = s.players
    # money (CH-3, CH-34, CH-35): never negative, every flow balanced against the bank
    if s.ledger_errors:
        out += [f"CH-34 ledger: {e}" for e in s.ledger_errors]
    total = 0
    for p in players:
        total += p.money
        if p.money < 0:
            out.append(f"CH-34 seat {p.seat} has negative money {p.money}")
    if total != n * s.starting_money + s.bank_out - s.bank_in:
        out.append(f"CH-3 money does not balance: players hold {total}, bank flows {s.bank_out}-{s.bank_in}")
    # houses (CH-30, CH-40): one per city, placed + supply = 15 per player
    placed = [0] * n
    for city, owner in s.owners.items():
        if city not in CITIES or not 0 <= owner < n:
            out.append(f"CH-30 bad house {city} -> {owner}")
        else:
            placed[owner] += 1
    # decks (CH-4, CH-54, R-28) and tickets (CH-48)
    blue = set(s.blue)
    cards = len(s.blue)
    held: dict[str, int] = dict.fromkeys(TICKET_STOCK, 0)
    limit = PENALTY_LIMIT if s.phase in (RESOLVING, CHANCE) else PENALTY_LIMIT - 1
    emptied = []
    for p in players:
        if not 0 <= p.supply <= HOUSES or placed[p.seat] + p.supply != HOUSES:
            out.append(f"CH-40 seat {p.seat}: {placed[p.seat]} placed + {p.supply} in supply != {HOUSES}")
        cards += len(p.end_cards)
        blue.update(c.city for c in p.end_cards)
        for kind in p.tickets:
            held[kind] = held.get(kind, 0) + 1
        # penalty points: the third is returned within the same decision (CH-17)
        if not 0 <= p.penalty <= limit:
            out.append(f"CH-17 seat {p.seat} holds {p.penalty} penalty points in phase {s.phase}")
        # positions (CH-11, CH-12, CH-26)
        out += _position(p.seat, p.pos, p.last_from)
        if not p.end_cards:
            emptied.append(p.seat)
    if cards != len(CITY_IDS) or blue != CITIES:
        out.append("CH-4 blue deck plus end cards is not the 82 cities once each")
    if len(s.yellow) != len(CITY_IDS) or set(s.yellow) != CITIES:
        out.append("CH-4 yellow deck is not the 82 cities once each")
    if len(s.green) != len(CARD_IDS) or set(s.green) != _CARDS:
        out.append("CH-54 green deck is not the 50 chance cards once each")
    for kind, stock in TICKET_STOCK.items():
        have = s.ticket_stock.get(kind, 0)
        if have < 0 or have + held.get(kind, 0) != stock or len(held) != len(TICKET_STOCK):
            out.append(f"CH-48 {kind}: stock {have} + held {held.get(kind)} != {stock}")
    # the end (CH-47): over exactly when a player has played away every end city
    if (s.phase == GAME_OVER) != bool(emptied) or (s.phase == GAME_OVER and s.winner not in emptied):
        out.append(f"CH-47 game over={s.phase == GAME_OVER} but players without end cities: {emptied}")
    return out


def _position(seat: int, pos: Pos, last: Pos | None) -> list[str]:
    if pos.kind == "city":
        ok = pos.at in CITIES
    elif pos.kind == "airport":
        ok = pos.at in CITY_OF_AIRPORT
    else:
        w = WALKS.get(pos.at)
        ok = w is not None and w.type == "road" and 1 <= pos.index <= w.squares and pos.heading in (w.a, w.b)
    if not ok:
        return [f"CH-11 seat {seat} stands on a square that does not exist: {pos}"]
    if last is None:
        return []
    # no reversal on a grey square: a walk from an edge square keeps its heading
    if last.kind == "edge":
        w = WALKS[last.at]
        forward = 1 if last.heading == w.b else -1
        if pos.kind == "edge":
            if pos.at != last.at or pos.heading != last.heading or (pos.index - last.index) * forward <= 0:
                return [f"CH-11 seat {seat} reversed on {last.at}: {last} -> {pos}"]
        elif pos.kind != "city" or pos.at != last.heading:
            return [f"CH-11 seat {seat} left {last.at} against its heading: {last} -> {pos}"]
    if last.kind == "airport" and (pos.kind != "city" or AIRPORT_OF.get(pos.at) != last.at):
        return [f"CH-29 seat {seat} left airport {last.at} other than into its city"]
    return []
