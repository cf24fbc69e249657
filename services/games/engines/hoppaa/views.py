"""What each viewer sees (section 4, hidden information; HP-R21)."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event

from .events import CARD_DISCARDED, ROUND_STARTED
from .moves import to_move
from .rules import forbidden_bid, pending_result
from .state import BIDDING, DEAL, GAME_OVER, HopPaaState
from .track import PAWN_NAMES

HIDDEN = "hidden"


def _pawns(state: HopPaaState) -> list[dict[str, int]]:
    names = PAWN_NAMES[: state.table.pawns_per_player]
    return [dict(zip(names, track, strict=True)) for track in state.pawns]


def _scoring(state: HopPaaState) -> dict[str, Any] | None:
    pending = pending_result(state)
    if pending is None:
        return None
    return {
        "seat": pending.seat,
        "owner": pending.owner,
        "result": "made" if pending.made else "missed",
        "steps": list(pending.steps),
        "penalty": pending.penalty,
    }


def public_view(state: HopPaaState) -> dict[str, Any]:
    table = state.table
    n = state.num_players
    winner_seats: list[int] | None = None
    if state.winner is not None:
        teams = table.teams
        winner_seats = list(teams[state.winner]) if teams is not None else [state.winner]
    return {
        "game_type": "hoppaa",
        "num_players": n,
        "mode": "team" if table.team else "solo",
        "teams": table.teams,
        "pawns_per_player": table.pawns_per_player,
        "age_rank": list(table.age_rank),
        "white_pawn_timing": table.white_pawn_timing,
        "forward_move_optional": table.forward_move_optional,
        "round": state.round,
        "dealer": state.dealer,
        "opener": state.opener,
        "phase": state.phase,
        "turn": state.turn,
        "to_move": to_move(state),
        "white_pawn": {"offered_to": state.white_offer, "used": state.white_used},
        "trump": state.trump,
        "bids": list(state.bids),
        "bid_order": list(state.bid_order),
        "forbidden_bid": forbidden_bid(state) if state.phase == BIDDING else None,
        "discard_pending": state.discard_pending,
        "discarded": [card is not None for card in state.discards],
        "hand_sizes": [len(hand) for hand in state.hands],
        "trick": {
            "leader": state.trick[0][0] if state.trick else state.trick_leader,
            "cards": [{"seat": seat, "card": card} for seat, card in state.trick],
        },
        "trick_log": [
            {
                "number": number,
                "leader": trick.leader,
                "cards": [{"seat": seat, "card": card} for seat, card in trick.cards],
                "winner": trick.winner,
            }
            for number, trick in enumerate(state.trick_log, start=1)
        ],
        "tricks_won": list(state.tricks_won),
        "pawns": _pawns(state),
        "scoring": _scoring(state),
        "results": list(state.results),
        "reserve_size": len(state.reserve),
        "deck_size": len(state.deck),
        "out_of_play_size": len(state.out_of_play),
        "winner": state.winner,
        "winner_seats": winner_seats,
        "game_over": state.phase == GAME_OVER,
    }


def seat_view(state: HopPaaState, seat: int | None) -> dict[str, Any]:
    """HP-R21: a hand and a discard only for its owner; the reserve for nobody."""
    view = public_view(state)
    view["seat"] = seat
    own = seat is not None and 0 <= seat < state.num_players
    view["hand"] = list(state.hands[seat]) if own and seat is not None and state.hands else None
    view["my_discard"] = state.discards[seat] if own and seat is not None and state.discards else None
    return view


def full_view(state: HopPaaState) -> dict[str, Any]:
    view = public_view(state)
    view |= {
        "hands": [list(hand) for hand in state.hands],
        "discards": list(state.discards),
        "reserve": list(state.reserve),
        "deck": list(state.deck),
        "out_of_play": list(state.out_of_play),
        "results_after_end": state.results_after_end,
    }
    return view


def redact(event: Event, seat: int | None, after: HopPaaState) -> Event:
    kind = event.get("type")
    own = seat is not None and 0 <= seat < after.num_players and bool(after.hands)
    if kind == CHANCE_EVENT:
        out = {k: v for k, v in event.items() if k != "values"} | {"values": HIDDEN}
        if own and seat is not None:
            out["hand"] = list(after.hands[seat])
        return out
    if kind == ROUND_STARTED and after.phase != DEAL and own and seat is not None:
        return event | {"hand": list(after.hands[seat])}  # 2 players, even round: the reserve dealt
    if kind == CARD_DISCARDED and event.get("seat") != seat:
        return event | {"card": HIDDEN}
    return event
