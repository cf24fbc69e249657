"""Bot levels for ROPARUN the Game (spec rules/roparun.md).

- ``random``: a uniformly random legal move.
- ``rules``: race and block, one play at a time from the seat's view. Every listed play is resolved
  on the public pawns with the engine's own movement rules (RR-17 ... RR-33) and the resulting board
  is scored: own progress round the lap and into the finish column (RR-17, B-5 ... B-7), opponents'
  progress subtracted (so a capture, RR-28, or a swap that sets an opponent back, RR-30, counts),
  Stop&Go (RR-31 ... RR-34) and off-route pawns costed, own pawns that stand within an opponent's
  reach off their protected start squares (RR-29) costed a little. The bot plays the best card while
  it improves the board and ends the turn (RR-11) when every remaining play would make it worse.
- ``strong``: flat determinized Monte Carlo (``_flat.flat_search``): sample the unseen cards from the
  view (``RoparunEngine.determinize``), play each of the best few ``rules`` candidates out with
  ``rules`` (a little noise) for every seat until every other team has had its turn, score the board,
  and pick the move with the best average.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from services.bots.domain.budget import Budget
from services.bots.domain.games import Level, uniform
from services.bots.domain.games._flat import flat_search
from services.bots.domain.search import SearchGame, clamp01
from services.games.engines.base import IllegalMove
from services.games.engines.roparun.actions import parse_action
from services.games.engines.roparun.board import CAR, OFF, PAWNS, SLOTS, Board
from services.games.engines.roparun.cards import rank_of
from services.games.engines.roparun.engine import RoparunEngine
from services.games.engines.roparun.options import DEFAULTS, board_of
from services.games.engines.roparun.rules import order_defect, resolve
from services.games.engines.roparun.state import FINISHED, RoparunState

Move = dict[str, Any]
Pawns = list[list[int]]

OFF_COST = 12.0  # an off-route pawn: behind its start squares and waiting for a K or A (RR-25)
FINISH_BONUS = 6.0  # a pawn in its finish column is safe for good (RR-24)
STOP_GO_COST = 8.0  # Stop&Go: every play must repair the order (RR-33, RR-34)
DEFECT_STEP = 0.6  # per step of order distance g (RR-31)
THREAT_SHARE = 0.12  # x what a capture would cost: a pawn an opponent may land on next (RR-20)
OPPONENT_WEIGHT = 0.8  # how much an opponent's progress counts against the bot
LAGGARD_WEIGHT = 0.3  # the slowest pawn holds up the finish (RR-37: all four must be home)
REACH = frozenset({1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12})  # forward steps some card makes


def engine_view(body: dict[str, Any]) -> dict[str, Any]:
    """The engine's seat view inside the API answer (``{"view": ...}``), or the view itself."""
    inner = body.get("view")
    return inner if isinstance(inner, dict) else body


def board_from(view: dict[str, Any]) -> Board:
    return board_of(int(view["num_players"]), {**DEFAULTS, **dict(view["options"])})


def pawns_from(view: dict[str, Any], board: Board) -> Pawns:
    out: Pawns = []
    for team in sorted(view["teams"], key=lambda t: int(t["seat"])):
        codes = []
        for name in PAWNS:
            loc = team["pawns"][name]
            if loc["where"] == "off":
                codes.append(OFF)
            elif loc["where"] == "route":
                codes.append(int(loc["progress"]))
            else:
                codes.append(board.n + int(loc["place"]) - 1)
        out.append(codes)
    return out


def _pawn_value(code: int, n: int) -> float:
    if code == OFF:
        return -OFF_COST
    if code >= n:
        return float(code) + FINISH_BONUS
    return float(code)


def team_value(team: Sequence[int], n: int) -> float:
    """Progress of one team (B-5, B-6), with Stop&Go and off-route pawns costed (RR-31)."""
    values = [_pawn_value(code, n) for code in team]
    value = sum(values) + LAGGARD_WEIGHT * min(values)
    k, h, g = order_defect(n, list(team))
    if (k, h, g) != (0, 0, 0):
        value -= STOP_GO_COST * (1 + k) + DEFECT_STEP * g + 2.0 * h
    return value


def _threat(board: Board, pawns: Pawns, seat: int) -> float:
    """What the bot's route pawns risk from opponent pawns that could land on them next (RR-20, RR-29)."""
    n = board.n
    squares: list[tuple[int, int]] = []  # (square, pawn) of own unprotected route pawns
    for idx, code in enumerate(pawns[seat]):
        if SLOTS <= code < n:
            squares.append((board.square(seat, code), idx))
    if not squares:
        return 0.0
    risk = 0.0
    for other, team in enumerate(pawns):
        if other == seat:
            continue
        for code in team:
            if not 0 <= code < n:
                continue
            here = board.square(other, code)
            for square, idx in squares:
                ahead = (square - here) % n
                # forward reach, or the 4 backward (RR-18); no opponent passes its own column (B-7)
                if (ahead in REACH and code + ahead < n) or (n - ahead) % n == 4:
                    loss = pawns[seat][idx] + OFF_COST + (STOP_GO_COST if idx != CAR else 0.0)
                    risk += THREAT_SHARE * loss
    return risk


def evaluate(board: Board, pawns: Pawns, seat: int) -> float:
    """The board as the bot sees it: own progress minus the best opponent's, minus exposure."""
    n = board.n
    own = team_value(pawns[seat], n)
    others = [team_value(team, n) for other, team in enumerate(pawns) if other != seat]
    best_other = max(others) if others else 0.0
    mean_other = sum(others) / len(others) if others else 0.0
    return own - OPPONENT_WEIGHT * (0.5 * best_other + 0.5 * mean_other) - _threat(board, pawns, seat)


def after_move(board: Board, pawns: Pawns, seat: int, move: Move, seven_max: int) -> Pawns | None:
    """The pawns after ``move`` (resolved with the engine's rules), or None for end_turn."""
    if move.get("type") != "play_card":
        return None
    rank = rank_of(str(move["card"])) or ""
    try:
        return resolve(board, pawns, seat, parse_action(rank, move["action"], seven_max)).pawns
    except IllegalMove:  # pragma: no cover - listed moves are legal
        return None


def _finishes(pawns: Pawns, seat: int, n: int) -> bool:
    return all(code >= n for code in pawns[seat])  # RR-37, RR-38


def score_on(board: Board, pawns: Pawns, seat: int, seven_max: int, moves: list[Move]) -> list[float]:
    """The ``rules`` score of every move; end_turn scores the board as it stands (RR-11, RR-13)."""
    now = evaluate(board, pawns, seat)
    scores: list[float] = []
    for move in moves:
        after = after_move(board, pawns, seat, move, seven_max)
        if after is None:
            scores.append(now)
        elif _finishes(after, seat, board.n):
            scores.append(now + 1e6)  # RR-38: this play wins
        else:
            # a tiny preference for playing over ending the turn when equal: the card is lost anyway
            scores.append(evaluate(board, after, seat) + 1e-3)
    return scores


def _seven_max(options: dict[str, Any]) -> int:
    return int(options.get("seven_max_pawns", DEFAULTS["seven_max_pawns"]))


def score_moves(view: dict[str, Any], moves: list[Move], seat: int) -> list[float]:
    board = board_from(view)
    return score_on(board, pawns_from(view, board), seat, _seven_max(dict(view["options"])), moves)


def _pick(moves: list[Move], scores: list[float], rng: random.Random) -> Move:
    best = max(scores)
    top = [m for m, s in zip(moves, scores, strict=True) if s >= best - 1e-9]
    return top[0] if len(top) == 1 else top[int(rng.random() * len(top))]


def rules_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    """The ``rules`` level: the best-scoring play, or end_turn when every play makes things worse."""
    view = engine_view(body)
    return _pick(moves, score_moves(view, moves, seat), rng)


# --- strong: flat determinized Monte Carlo (``_flat``) with ``rules`` playouts -----------------

ENGINE = RoparunEngine()
CANDIDATES = 4  # the best plays by ``rules`` the search compares (plus end_turn when listed)
PLAYOUT_NOISE = 0.05
REWARD_SCALE = 80.0


def playout_policy(state: RoparunState, seat: int, legal: list[Move], rng: random.Random) -> Move:
    """``rules`` on the full (determinized) state, with a little noise."""
    if rng.random() < PLAYOUT_NOISE:
        return legal[int(rng.random() * len(legal))]
    options = dict(state.config.options)
    return _pick(legal, score_on(state.board, state.pawns, seat, _seven_max(options), legal), rng)


def _turn_index(state: RoparunState) -> int:
    return state.deal_no * state.num_players + state.turns_done


def cutoff(sample: RoparunState, state: RoparunState) -> bool:
    """Every other team has had its turn after the bot's (RR-9): their replies are what a play risks."""
    return state.stage == FINISHED or _turn_index(state) > _turn_index(sample) + state.num_players - 1


def reward(sample: RoparunState, state: RoparunState) -> list[float]:
    """Per seat: 1/0 for a won/lost game (RR-38); else 0.5 plus how much its board value improved."""
    n = state.num_players
    if state.winner is not None:
        return [1.0 if s == state.winner else 0.0 for s in range(n)]
    return [
        clamp01(
            0.5
            + (evaluate(state.board, state.pawns, s) - evaluate(sample.board, sample.pawns, s)) / REWARD_SCALE
        )
        for s in range(n)
    ]


GAME = SearchGame(
    engine=ENGINE, evaluate=reward, cutoff=cutoff, playout=playout_policy, max_playout_moves=120
)


def strong_level(
    body: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    """Flat Monte Carlo over the ``CANDIDATES`` best plays by ``rules`` (and end_turn)."""
    view = engine_view(body)
    scores = score_moves(view, moves, seat)
    order = sorted(range(len(moves)), key=lambda k: -scores[k])
    keep = order[:CANDIDATES] + [k for k in order[CANDIDATES:] if moves[k].get("type") == "end_turn"]
    if scores[order[0]] >= 1e5:
        return moves[order[0]]  # RR-38: a winning play needs no search
    candidates = [moves[k] for k in keep]
    return flat_search(GAME, view, candidates, seat, rng, budget)[0]


LEVELS: dict[str, Level] = {"random": uniform, "rules": rules_level, "strong": strong_level}
