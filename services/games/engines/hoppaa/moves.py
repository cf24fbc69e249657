"""Validating moves and turning them into events (``decide``), plus the legal-move list."""

from __future__ import annotations

from services.games.engines.base import Event, IllegalMove, Move

from .cards import SUIT_NAMES, card_set, playable, trick_winner
from .events import (
    AUTO_RESULT,
    BID_MADE,
    CARD_DISCARDED,
    CARD_PLAYED,
    GAME_ENDED,
    MOVE_DECLINED,
    PAWN_MOVED,
    ROUND_STARTED,
    TRICK_WON,
    WHITE_PAWN_CHOSEN,
    fold,
)
from .rules import (
    TRICKS_PER_ROUND,
    Pending,
    bid_range,
    forbidden_bid,
    led_suit,
    legal_bids,
    next_seat,
    pending_result,
    trump_choices,
    white_offer,
)
from .state import BEFORE_OWN_BID, BIDDING, DEAL, GAME_OVER, PLAY, SCORING, WHITE_PAWN, HopPaaState
from .track import FINISH, PAWN_NAMES, START, land_back, land_forward

CHOOSE_WHITE_PAWN = "choose_white_pawn"
BID = "bid"
DISCARD = "discard"
PLAY_CARD = "play_card"
CHOOSE_PAWN_MOVE = "choose_pawn_move"
DECLINE_MOVE = "decline_move"
CHOOSE_PENALTY_PAWN = "choose_penalty_pawn"

FIELDS: dict[str, frozenset[str]] = {
    CHOOSE_WHITE_PAWN: frozenset({"use"}),
    BID: frozenset({"n", "trump"}),
    DISCARD: frozenset({"card"}),
    PLAY_CARD: frozenset({"card"}),
    CHOOSE_PAWN_MOVE: frozenset({"pawn", "steps"}),
    DECLINE_MOVE: frozenset(),
    CHOOSE_PENALTY_PAWN: frozenset({"pawn"}),
}


# --- whose turn -------------------------------------------------------------------------------
def white_choice_due(state: HopPaaState) -> bool:
    """HP-10/HP-R9: the offered player still has to take or decline the white pawn now."""
    if state.white_used is not None:
        return False
    if state.phase == WHITE_PAWN:
        return True
    return (
        state.phase == BIDDING
        and state.table.white_pawn_timing == BEFORE_OWN_BID
        and state.turn == state.white_offer
        and not state.discard_pending
    )


def to_move(state: HopPaaState) -> list[int]:
    if state.phase in (DEAL, GAME_OVER):
        return []
    if state.phase == WHITE_PAWN:
        return [state.white_offer] if state.white_offer is not None else []
    if state.phase == SCORING:
        seat = state.scoring_seat
        return [seat] if seat is not None else []
    return [state.turn] if state.turn is not None else []


def phase_rule(state: HopPaaState) -> str:
    """The rule that says what is expected now (used for out-of-turn and unknown moves)."""
    if white_choice_due(state):
        return "HP-10"
    return {
        DEAL: "HP-4",
        BIDDING: "HP-16" if state.discard_pending else "HP-12",
        PLAY: "HP-20",
        SCORING: "HP-27",
        GAME_OVER: "HP-44",
    }.get(state.phase, "HP-12")


# --- legal moves ------------------------------------------------------------------------------
def legal_moves(state: HopPaaState, seat: int) -> list[Move]:
    if seat not in to_move(state):
        return []
    if white_choice_due(state):
        return [{"type": CHOOSE_WHITE_PAWN, "use": True}, {"type": CHOOSE_WHITE_PAWN, "use": False}]
    if state.phase == BIDDING:
        if state.discard_pending:
            return [{"type": DISCARD, "card": c} for c in state.hands[seat]]
        bids = legal_bids(state)
        if seat == state.opener:
            return [{"type": BID, "n": n, "trump": t} for n in bids for t in trump_choices(state.table)]
        return [{"type": BID, "n": n} for n in bids]
    if state.phase == PLAY:
        return [{"type": PLAY_CARD, "card": c} for c in playable(state.hands[seat], led_suit(state))]
    if state.phase == SCORING:
        pending = pending_result(state)
        if pending is None:
            return []
        if pending.made:
            out: list[Move] = [
                {"type": CHOOSE_PAWN_MOVE, "pawn": PAWN_NAMES[p], "steps": s} for p, s in pending.forward
            ]
            if pending.optional and pending.forward:
                out.append({"type": DECLINE_MOVE})
            return out
        return [{"type": CHOOSE_PENALTY_PAWN, "pawn": PAWN_NAMES[p]} for p in pending.candidates]
    return []


# --- decide -----------------------------------------------------------------------------------
def decide(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    if state.phase == GAME_OVER:
        raise IllegalMove("HP-44", "game_over", "the game is over: no more moves")
    if not isinstance(move, dict):
        raise IllegalMove(phase_rule(state), "malformed_move", "a move must be an object with a type")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise IllegalMove(
            phase_rule(state),
            "unknown_move",
            f"unknown move type {kind!r}: use one of {', '.join(FIELDS)}",
        )
    extra = sorted(set(move) - FIELDS[kind] - {"type"})
    if extra:
        rule = "HP-14" if kind == BID and extra == ["trump"] else phase_rule(state)
        raise IllegalMove(rule, "unexpected_field", f"{kind} takes no field {extra[0]!r}")
    if not isinstance(seat, int) or seat not in to_move(state):
        raise IllegalMove(phase_rule(state), "not_your_turn", _whose_turn(state))
    handler = {
        CHOOSE_WHITE_PAWN: _choose_white_pawn,
        BID: _bid,
        DISCARD: _discard,
        PLAY_CARD: _play,
        CHOOSE_PAWN_MOVE: _choose_pawn_move,
        DECLINE_MOVE: _decline_move,
        CHOOSE_PENALTY_PAWN: _choose_penalty_pawn,
    }[kind]
    return handler(state, seat, move)


def _whose_turn(state: HopPaaState) -> str:
    if state.phase == DEAL:
        return "the cards are being dealt"
    seats = to_move(state)
    return f"it is seat {seats[0]}'s turn" if seats else "nobody can move now"


def _choose_white_pawn(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    if not white_choice_due(state):
        if state.white_used is not None:
            raise IllegalMove("HP-10", "already_decided", "the white pawn has already been taken or declined")
        raise IllegalMove("HP-10", "not_now", "the white pawn is chosen at another moment")
    use = move.get("use")
    if not isinstance(use, bool):
        raise IllegalMove("HP-10", "bad_use", "say true to play with the white pawn or false to decline it")
    return [{"type": WHITE_PAWN_CHOSEN, "seat": seat, "use": use}]


def _bid(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    if white_choice_due(state):
        raise IllegalMove("HP-10", "white_pawn_first", "first take or decline the white pawn, then bid")
    if state.phase != BIDDING:
        raise IllegalMove("HP-12", "not_bidding", "bids are made only in the bidding phase")
    if state.discard_pending:
        raise IllegalMove("HP-16", "discard_first", "discard one card face down before the next bid")
    n = move.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n not in bid_range(state.table):
        r = bid_range(state.table)
        raise IllegalMove(
            "HP-13", "bid_out_of_range", f"a bid is a whole number from {r.start} to {r.stop - 1}"
        )
    trump = move.get("trump")
    if seat == state.opener:
        if "trump" not in move:
            raise IllegalMove(
                "HP-14", "trump_required", "as opener you choose a trump suit or 'none' with your bid"
            )
        if trump not in trump_choices(state.table):
            names = ", ".join(f"{s} ({SUIT_NAMES[s]})" for s in trump_choices(state.table) if s in SUIT_NAMES)
            raise IllegalMove("HP-14", "bad_trump", f"trump must be one of {names}, or 'none' for no-trump")
    elif "trump" in move:
        raise IllegalMove("HP-14", "not_opener", "only the opener chooses trump: bid without a trump")
    if n == forbidden_bid(state):
        raise IllegalMove(
            "HP-15", "sum_nine", f"as last bidder you may not bid {n}: the bids would add up to exactly 9"
        )
    event: Event = {"type": BID_MADE, "seat": seat, "n": n}
    if seat == state.opener:
        event["trump"] = trump
    return [event]


def _card(state: HopPaaState, move: Move, rule: str) -> str:
    card = move.get("card")
    if not isinstance(card, str) or card not in card_set(state.num_players):
        raise IllegalMove(rule, "unknown_card", f"{card!r} is not a card in this game (e.g. '10S', 'AH')")
    return card


def _discard(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    if state.phase != BIDDING or not state.discard_pending:
        raise IllegalMove("HP-16", "no_discard_now", "you discard one card right after your own bid")
    card = _card(state, move, "HP-16")
    if card not in state.hands[seat]:
        raise IllegalMove("HP-16", "card_not_in_hand", f"you do not hold {card}")
    return [{"type": CARD_DISCARDED, "seat": seat, "card": card}]


def _play(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    if state.phase != PLAY:
        raise IllegalMove("HP-20", "not_playing", "cards are played only after all bids and discards")
    card = _card(state, move, "HP-20")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalMove("HP-17", "card_not_in_hand", f"you do not hold {card}")
    led = led_suit(state)
    if card not in playable(hand, led):
        raise IllegalMove(
            "HP-21", "must_follow_suit", f"you hold {SUIT_NAMES[led or 'S']}: you must follow the led suit"
        )
    events: list[Event] = [{"type": CARD_PLAYED, "seat": seat, "card": card}]
    trick = [*state.trick, (seat, card)]
    if len(trick) < state.num_players:
        return events
    winner = trick_winner(trick, state.trump or "none")
    events.append(
        {
            "type": TRICK_WON,
            "winner": winner,
            "number": len(state.trick_log) + 1,
            "cards": [c for _, c in trick],
        }
    )
    if len(state.trick_log) + 1 == TRICKS_PER_ROUND:  # the last trick: results follow (HP-27)
        work = state
        for event in events:
            work = fold(work, event)
        events += continue_scoring(work)
    return events


def _pawn(state: HopPaaState, move: Move, rule: str) -> int:
    name = move.get("pawn")
    names = PAWN_NAMES[: state.table.pawns_per_player]
    if name not in names:
        raise IllegalMove(rule, "unknown_pawn", f"pawn must be one of {', '.join(names)}")
    return names.index(str(name))


def _scoring(state: HopPaaState) -> Pending:
    pending = pending_result(state)
    if pending is None:
        raise IllegalMove("HP-27", "not_scoring", "pawns move only when your result is applied")
    return pending


def _choose_pawn_move(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    pending = _scoring(state)
    if not pending.made:
        raise IllegalMove(
            "HP-30", "bid_missed", f"you missed your bid: choose a pawn to move {pending.penalty} back"
        )
    pawn = _pawn(state, move, "HP-32")
    steps = move.get("steps")
    rule = "HP-29" if state.white_used is True and state.white_offer == seat else "HP-28"
    if not isinstance(steps, int) or isinstance(steps, bool) or steps not in pending.steps:
        raise IllegalMove(
            rule, "bad_steps", f"steps must be one of {', '.join(str(s) for s in pending.steps)}"
        )
    assert pending.owner is not None  # a made bid with a choice always has pawns to move
    pos = state.pawns[pending.owner][pawn]
    if pos == FINISH:
        raise IllegalMove("HP-40", "pawn_finished", "that pawn is on 35 and never moves again")
    if pos + steps > FINISH:
        raise IllegalMove(
            "HP-33", "overshoots", f"{pos} + {steps} passes 35: a pawn must land exactly on 35 (HP-R11)"
        )
    event = _result_event(state, pending, PAWN_MOVED, pawn, steps)
    return [event, *continue_scoring(fold(state, event))]


def _decline_move(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    pending = _scoring(state)
    if not pending.made:
        raise IllegalMove("HP-30", "bid_missed", "you missed your bid: the penalty cannot be declined")
    if not pending.optional:
        raise IllegalMove("HP-35", "move_compulsory", "a legal forward move must be made (HP-R12)")
    event = _result_event(state, pending, MOVE_DECLINED, None, 0)
    return [event, *continue_scoring(fold(state, event))]


def _choose_penalty_pawn(state: HopPaaState, seat: int, move: Move) -> list[Event]:
    pending = _scoring(state)
    if pending.made:
        raise IllegalMove("HP-28", "bid_made", "you made your bid: choose a forward move instead")
    pawn = _pawn(state, move, "HP-36")
    assert pending.owner is not None
    pos = state.pawns[pending.owner][pawn]
    if pos == FINISH:
        raise IllegalMove("HP-40", "pawn_finished", "that pawn is on 35 and never moves again")
    if pos == START:
        raise IllegalMove("HP-36", "pawn_on_start", "a pawn on the start cannot take a penalty")
    event = _result_event(state, pending, PAWN_MOVED, pawn, pending.penalty)
    return [event, *continue_scoring(fold(state, event))]


# --- automatic results -------------------------------------------------------------------------
def _result_event(state: HopPaaState, pending: Pending, kind: str, pawn: int | None, steps: int) -> Event:
    direction = "forward" if pending.made else "back"
    event: Event = {
        "type": kind,
        "seat": pending.seat,
        "owner": pending.owner,
        "result": "made" if pending.made else "missed",
        "bid": state.bids[pending.seat],
        "tricks": state.tricks_won[pending.seat],
        "pawn": None,
        "steps": 0,
        "direction": direction,
    }
    if pawn is not None and pending.owner is not None:
        track = state.pawns[pending.owner]
        landing = land_forward(track, pawn, steps) if pending.made else land_back(track, pawn, steps)
        knocked = landing.knocked_off
        event |= {
            "pawn": PAWN_NAMES[pawn],
            "steps": steps,
            "from": landing.start,
            "to": landing.end,
            "knocked_off": PAWN_NAMES[knocked] if knocked is not None else None,
        }
    return event


def _auto_event(state: HopPaaState, pending: Pending) -> Event:
    """Section 4: with no legal choice or exactly one, the engine applies the result itself."""
    if pending.made:
        if pending.forward:
            pawn, steps = pending.forward[0]
            return _result_event(state, pending, AUTO_RESULT, pawn, steps) | {"reason": "only_move"}
        return _result_event(state, pending, AUTO_RESULT, None, 0) | {"reason": "no_legal_move"}  # HP-34
    if pending.candidates:
        event = _result_event(state, pending, AUTO_RESULT, pending.candidates[0], pending.penalty)
        return event | {"reason": "only_pawn"}
    return _result_event(state, pending, AUTO_RESULT, None, 0) | {"reason": "penalty_lapses"}  # HP-36


def continue_scoring(state: HopPaaState) -> list[Event]:
    """Apply results that need no choice, in order (HP-27), until a choice, the end or a new round."""
    events: list[Event] = []
    work = state
    while True:
        if work.phase == GAME_OVER:
            team = work.table.teams
            events.append(
                {
                    "type": GAME_ENDED,
                    "winner": work.winner,
                    "seats": team[work.winner]
                    if team is not None and work.winner is not None
                    else [work.winner],
                }
            )
            return events
        pending = pending_result(work)
        if pending is None:  # HP-46: everyone scored, nobody won: next round, next dealer (HP-2)
            dealer = next_seat(work.table, work.dealer)
            events.append(
                {
                    "type": ROUND_STARTED,
                    "round": work.round + 1,
                    "dealer": dealer,
                    "opener": next_seat(work.table, dealer),
                    "white_offer": white_offer(work.table, work.pawns, work.round + 1),
                }
            )
            return events
        if pending.choices > 1:
            return events
        event = _auto_event(work, pending)
        events.append(event)
        work = fold(work, event)


def opening_event(state: HopPaaState) -> Event:
    table = state.table
    return {
        "type": ROUND_STARTED,
        "round": 1,
        "dealer": table.first_dealer,
        "opener": next_seat(table, table.first_dealer),
        "white_offer": white_offer(table, state.pawns, 1),
    }
