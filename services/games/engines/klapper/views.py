"""What each viewer may see (section 4, "Hidden information")."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event

from .cards import SUITS, name, names
from .decide import meld_json
from .state import KlapperState


def public_view(state: KlapperState) -> dict[str, Any]:
    n = state.n
    partnership = n in (4, 6) and state.phase != "omboeren"
    turned = state.turned_card
    view: dict[str, Any] = {
        "game_type": "klapper",
        "num_players": n,
        "options": state.opts.as_dict(),
        "target": state.opts.target,
        "phase": state.phase,
        "deal_no": state.deal_no,
        "dealer": state.dealer if state.dealer >= 0 else None,
        "voorhand": state.voorhand if state.voorhand >= 0 else None,
        "table": list(state.table),
        "side_of": list(state.side_of),
        "teams": [state.members(s) for s in range(state.num_sides)] if partnership else None,
        "omboeren": [{"seat": s, "card": name(c)} for s, c in state.omboeren_cards],
        "hand_sizes": [len(h) for h in state.hands] if state.hands else [0] * n,
        "turned_card": None if turned is None else name(turned),
        "turned_card_on_table": state.turned_on_table and turned is not None,
        "turn": state.turn,
        "to_move": [state.turn] if state.turn is not None and state.pending is None else [],
        "bids": [{"seat": s, "round": r, "bid": b} for s, r, b in state.bids],
        "speler": state.speler,
        "playing_side": state.playing_side,
        "trump": None if state.trump is None else SUITS[state.trump],
        "trick": {
            "leader": state.trick_leader,
            "cards": [{"seat": s, "card": name(c)} for s, c in state.trick],
        },
        "tricks": [
            {
                "leader": t.leader,
                "cards": [{"seat": s, "card": name(c)} for s, c in t.plays],
                "winner": t.winner,
                "points": t.points,
            }
            for t in state.tricks
        ],
        "tricks_per_deal": state.tricks_per_deal,
        "card_points": list(state.card_points),
        "last_trick_side": state.last_trick_side,
        "roem": [[meld_json(m) for m in r] for r in state.roem] if state.roem else [[] for _ in range(n)],
        "roem_declared": list(state.declared) if state.declared else [False] * n,
        "roem_settled": state.roem_settled,
        "roem_scored": list(state.roem_scored),
        "roem_holder": state.roem_holder,
        "score": list(state.score),
        "results": list(state.results),
        "winner": state.winner,
        "winner_seats": None if state.winner is None else state.members(state.winner),
    }
    if n == 2:
        view["extra_counts"] = [len(e) for e in state.extras] if state.extras else [0, 0]
        view["dead_hand_size"] = len(state.dead_hand)
    return view


def seat_view(state: KlapperState, seat: int | None) -> dict[str, Any]:
    view = public_view(state)
    own = seat is not None and 0 <= seat < state.n and bool(state.hands)
    view["seat"] = seat
    view["hand"] = names(state.hands[seat]) if own and seat is not None else None
    return view


def full_view(state: KlapperState) -> dict[str, Any]:
    view = public_view(state)
    view["hands"] = [names(h) for h in state.hands]
    view["extras"] = [names(h) for h in state.extras]
    view["dead_hand"] = names(state.dead_hand)
    return view


def redact(event: Event, seat: int | None, after: KlapperState) -> Event:
    kind = event.get("type")
    if kind == CHANCE_EVENT:
        values = event.get("values")
        if event.get("purpose") == "omboeren" and isinstance(values, list):
            # omboeren cards are dealt face up: only the cards actually dealt are shown
            return event | {"values": values[: len(after.omboeren_cards)]}
        mine = seat is not None and 0 <= seat < after.n and bool(after.hands)
        return event | {
            "values": "hidden",
            "hand": names(after.hands[seat]) if mine and seat is not None else None,
            "turned_card": None if after.turned_card is None else name(after.turned_card),
        }
    if kind == "ExtrasTakenUp":
        cards = event.get("cards")
        if isinstance(cards, list):
            return event | {"cards": [c if s == seat else None for s, c in enumerate(cards)]}
    return event
