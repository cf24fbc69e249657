"""Sample a full ROPARUN state from one seat's view (issue 18.3, for the ``strong`` bots).

What a seat knows (spec §4 visibility): its own hand, every card played face up this cycle, the
pawns, the dealer, the turn, every hand size, the stock size and the number of face-down discards.
The unseen cards are the deck in use (R9) minus the own hand and the face-up discards; they are
spread at random over the other hands, the stock (in a random order, RR-5) and the face-down
discards, each with its public size. Pure: the randomness is ``rng``.

Not used: a seat's own face-down discards of earlier turns in this cycle (RR-13) are not in the
view, so they count as unseen too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import GameConfig, Rng
from services.games.engines.roparun.board import OFF, PAWNS, Board
from services.games.engines.roparun.cards import DRAW_VALUE, deck_for
from services.games.engines.roparun.options import DEFAULTS, board_of
from services.games.engines.roparun.state import DEALER_DRAW, RoparunState


class ViewMismatch(ValueError):
    """The view is not a ROPARUN seat view of ``seat`` (no own hand, sizes that do not add up)."""


def _code(board: Board, location: Mapping[str, Any]) -> int:
    """The location code (board.py) of a pawn location as ``Board.location`` writes it."""
    where = location["where"]
    if where == "off":
        return OFF
    if where == "route":
        return int(location["progress"])
    return board.n + int(location["place"]) - 1


def _contenders(view: Mapping[str, Any], n: int) -> list[int]:
    """RR-4: while the dealer draw is open, the seats tied lowest in the last draw round redraw."""
    if view["stage"] != DEALER_DRAW:
        return []
    rounds = view.get("dealer_draws") or []
    if not rounds:
        return list(range(n))
    last = rounds[-1]
    low = min(DRAW_VALUE[d["rank"]] for d in last)
    return [int(d["seat"]) for d in last if DRAW_VALUE[d["rank"]] == low]


def determinize(view: Mapping[str, Any], seat: int, rng: Rng) -> RoparunState:
    """A state whose ``view(state, seat)`` equals ``view``; unseen cards placed at random."""
    n = int(view["num_players"])
    options = dict(view["options"])
    if view.get("seat") != seat or view.get("hand") is None:
        raise ViewMismatch("determinize needs the seat's own view (with its hand)")
    board = board_of(n, {**DEFAULTS, **options})
    deck = deck_for(n)
    own = list(view["hand"])
    teams = sorted(view["teams"], key=lambda t: int(t["seat"]))
    pawns = [[_code(board, team["pawns"][name]) for name in PAWNS] for team in teams]
    sizes = [int(team["hand_size"]) for team in teams]
    if sizes[seat] != len(own):
        raise ViewMismatch("the own hand does not match its size")
    discard_up = list(view["discard_face_up"])
    known = set(own) | set(discard_up)
    unseen = [card for card in deck if card not in known]
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    at = 0
    for other in range(n):
        if other == seat:
            hands.append(own)
            continue
        hands.append(unseen[at : at + sizes[other]])
        at += sizes[other]
    stock = unseen[at : at + int(view["stock_size"])]
    at += len(stock)
    down = unseen[at:]
    if len(stock) != int(view["stock_size"]) or len(down) != int(view["discard_face_down_count"]):
        raise ViewMismatch("hand, stock and discard sizes do not account for the unseen cards")
    return RoparunState(
        config=GameConfig(n, options),
        board=board,
        deck=deck,
        stage=str(view["stage"]),
        pawns=pawns,
        hands=hands,
        stock=stock,
        discard_up=discard_up,
        discard_down=down,
        dealer=view["dealer"],
        cycle_no=int(view["cycle_no"]),
        deal_no=int(view["deal_no"]),
        deal_in_cycle=int(view["deal_in_cycle"]),
        current=view["current_seat"],
        plays_this_turn=int(view["plays_this_turn"]),
        turns_done=int(view["turns_done_this_deal"]),
        winner=view["winner"],
        draw_contenders=_contenders(view, n),
        dealer_draws=[list(r) for r in view["dealer_draws"]],
        last_play=view["last_play"],
        # RR-24: a pawn in its finish column never leaves it, so its place is the highest seen
        home_place=[[code if code >= board.n else OFF for code in team] for team in pawns],
    )
