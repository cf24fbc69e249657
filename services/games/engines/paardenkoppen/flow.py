"""The automatic steps between turns: round end, game end, the next round's start and antes."""

from __future__ import annotations

from services.games.engines.base import Event

from .state import ANTE_PER_FIELD, ANTE_PER_PLAYER, PKState


def top_seats(state: PKState) -> list[int]:
    best = max(state.balances)
    return [seat for seat, b in enumerate(state.balances) if b == best]


def game_ended(state: PKState, reason: str) -> Event:
    return {
        "type": "GameEnded",
        "reason": reason,
        "scores": list(state.balances),  # PK-22: score = balance
        "winners": top_seats(state),
    }


def round_opening(state: PKState, round_no: int, dealer: int, start_player: int) -> list[Event]:
    """PK-21 end check, then PK-6 antes (R8); the deal follows as a recorded shuffle."""
    if any(b < ANTE_PER_PLAYER for b in state.balances):
        return [game_ended(state, "cannot_ante")]
    return [
        {"type": "RoundStarted", "round_no": round_no, "dealer": dealer, "start_player": start_player},
        {
            "type": "AntesPaid",
            "per_player": ANTE_PER_PLAYER,
            "per_field": ANTE_PER_FIELD * state.num_players,
        },
    ]


def after_round(state: PKState) -> list[Event]:
    """Events after ``RoundEnded`` has been folded into ``state`` (PK-20, PK-21, PK-23)."""
    options = state.options
    if options["end_mode"] == "fixed_rounds" and state.round_no >= options["rounds"]:
        tied = len(top_seats(state)) > 1
        if not tied or options["tie_rule"] == "share":
            reason = "rounds_done" if state.round_no == options["rounds"] else "tie_resolved"
            return [game_ended(state, reason)]
    # PK-20: the start player of the finished round deals; the player to the dealer's left starts.
    dealer = state.start_player
    return round_opening(state, state.round_no + 1, dealer, (dealer + 1) % state.num_players)
