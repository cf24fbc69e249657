"""Invariants for random play (issue text), checked on the state alone, not via the move generator."""

from __future__ import annotations

from services.games.engines.roparun.board import C1, C2, OFF, PAWNS, RUNNER
from services.games.engines.roparun.rules import ZERO, order_defect
from services.games.engines.roparun.state import FINISHED, TURN, RoparunState


def _order_holds(n: int, team: list[int]) -> bool:
    """Cyclist/runner/cyclist as the spec defines it: runner home, or strictly between its cyclists."""
    runner = team[RUNNER]
    if runner >= n:
        return True
    cyclists = (team[C1], team[C2])
    if runner == OFF or OFF in cyclists:
        return False
    return min(cyclists) < runner < max(cyclists)


def check(state: RoparunState) -> list[str]:
    problems: list[str] = []
    board = state.board
    n = board.n
    players = state.num_players

    # Pawns: four per team, each in exactly one place; no two pawns on one route square.
    if len(state.pawns) != players:
        problems.append("RR-1 there must be exactly one team per player")
    squares: dict[int, str] = {}
    for seat, team in enumerate(state.pawns):
        if len(team) != 4:
            problems.append(f"RR-1 team {seat} does not have its four pawns")
            continue
        places: dict[int, str] = {}
        for idx, code in enumerate(team):
            name = f"{seat}:{PAWNS[idx]}"
            if not isinstance(code, int) or not OFF <= code <= n + 3:
                problems.append(f"B-1 pawn {name} has no valid place ({code!r})")
                continue
            if 0 <= code < n:
                square = board.square(seat, code)
                if square in squares:
                    problems.append(f"RR-27 pawns {squares[square]} and {name} share square {square}")
                squares[square] = name
            elif code >= n:
                if code in places:
                    problems.append(f"RR-20 pawns {places[code]} and {name} share a finish place")
                places[code] = name
                if code == n + 3 and idx != RUNNER:
                    problems.append(f"RR-23 {name} stands on F4, which is for the runner only")
                if idx != RUNNER and team[RUNNER] < n:
                    problems.append(f"RR-22 {name} is home before its runner")
            # RR-24 / B-7: a pawn in the finish column never leaves it nor moves down.
            if state.home_place and state.home_place[seat][idx] >= n and code < state.home_place[seat][idx]:
                problems.append(f"RR-24 pawn {name} left or moved down its finish column")

    # Deck conservation across hands, stock and discards.
    expected = 39 if players == 3 else 52
    if len(state.deck) != expected or len(set(state.deck)) != expected:
        problems.append(f"RR-5 the deck in use must hold {expected} distinct cards")
    held = state.stock + state.discard_up + state.discard_down
    for hand in state.hands:
        held = held + hand
    if sorted(held) != sorted(state.deck):
        problems.append("RR-5 cards are not conserved across hands, stock and discards")

    # Order: D is zero exactly when the order holds; Stop&Go plays strictly reduce D.
    for seat, team in enumerate(state.pawns):
        if len(team) == 4 and (order_defect(n, team) == ZERO) != _order_holds(n, team):
            problems.append(f"RR-31 team {seat}: order defect disagrees with the order")
    last = state.last_play
    if last is not None:
        seat = last["seat"]
        before = tuple(last["order_before"])
        now = order_defect(n, state.pawns[seat])
        if before == ZERO and not _order_holds(n, state.pawns[seat]):
            problems.append(f"RR-33 team {seat} broke its own order with its last play")
        if before != ZERO and not now < before:
            problems.append(f"RR-33 team {seat} played in Stop&Go without reducing its order defect")

    # End of game: exactly when a team has all pawns home with the runner on top.
    done = [seat for seat, team in enumerate(state.pawns) if all(code >= n for code in team)]
    for seat in done:
        if state.pawns[seat][RUNNER] != n + 3:
            problems.append(f"RR-37 team {seat} is home without its runner on the top place")
    if (state.stage == FINISHED) != bool(done):
        problems.append("RR-38 the game must end exactly when a team has finished")
    if state.stage == FINISHED and (len(done) != 1 or state.winner != done[0]):
        problems.append("RR-38 the winner must be the one finished team")
    if state.stage == TURN and state.current is None:
        problems.append("RR-9 a turn is in progress without a current seat")
    return problems
