"""Information-set Monte Carlo tree search for any engine with ``determinize`` (issue 18, ``strong``).

Single-observer ISMCTS (SO-ISMCTS, Cowling, Powley and Whitehouse 2012): one tree over moves, shared
by every seat. Each iteration

1. samples a full state the bot's seat cannot tell apart from the real one
   (``engine.determinize(view, seat, rng)``);
2. walks down the tree choosing, among the moves legal in *this* sample, the child with the best
   UCB1 score for the seat that moves there (availability counts: a child is scored against the number
   of iterations in which it was legal, not its parent's visits);
3. adds one untried move, then plays out with the engine's own ``legal_moves``/``decide``/``evolve``
   (a game-specific playout policy, uniform by default) until the game's cut-off (end of the hand) or
   a move cap;
4. scores the end state for every seat in [0, 1] and adds each seat's reward to the edges it chose.

``flat_search`` is the cheaper sibling for small budgets: determinized flat Monte Carlo over the root
moves with common random numbers (every move is tried on the same sample and the same playout luck).

Chance met on the way (a shuffle, dice) is drawn from the search's own ``rng`` and folded as the same
``ChanceResolved`` event the host would record. Pure: the generator and the clock (``budget.now``)
come in as arguments, and with an iteration budget the same seed gives the same move.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from services.bots.domain.budget import Budget
from services.games.engines.base import ChanceRequest, Engine, Move, chance_event

State = Any
# (root sample, end state) -> reward per seat in [0, 1]
Evaluate = Callable[[State, State], list[float]]
# (root sample, state) -> True where a playout stops (e.g. the hand is over)
Cutoff = Callable[[State, State], bool]
# (state, seat, legal moves, rng) -> the playout's move
Policy = Callable[[State, int, list[Move], random.Random], Move]


@dataclass(frozen=True)
class SearchGame:
    """What the search needs to know about one game type."""

    engine: Engine[Any]
    evaluate: Evaluate
    cutoff: Cutoff
    playout: Policy | None = None
    max_playout_moves: int = 400
    exploration: float = 0.7
    # tree depth in moves (any seat's): 1 is flat UCB over the root moves, with playouts below
    max_depth: int = 64


def move_key(move: Mapping[str, Any]) -> str:
    return json.dumps(move, sort_keys=True, separators=(",", ":"))


def chance_values(request: ChanceRequest, rng: random.Random) -> list[int]:
    """Values of the shape the host derives from the seed, drawn from the search's ``rng``."""
    if request.kind == "shuffle":
        values = list(range(request.n))
        rng.shuffle(values)
        return values
    if request.kind == "dice":
        return [rng.randint(1, request.sides) for _ in range(request.n)]
    return [rng.randrange(request.n)]


def settle(engine: Engine[Any], state: State, rng: random.Random) -> State:
    """Fold pending chance with values from ``rng`` (external requests are left pending)."""
    counter = 0
    while True:
        request = engine.chance_request(state)
        if request is None:
            return state
        state = engine.evolve(state, chance_event(request, counter, chance_values(request, rng)))
        counter += 1


def play(engine: Engine[Any], state: State, seat: int, move: Move) -> State:
    for event in engine.decide(state, seat, move):
        state = engine.evolve(state, event)
    return state


class OutOfTime(Exception):
    """The budget's time ran out inside an iteration (its playout or its round of candidates): the
    unfinished iteration is dropped, so a search never runs past ``budget.max_seconds`` by more than
    one move of the engine."""


Stop = Callable[[], bool]


def stopper(budget: Budget, started: float) -> Stop:
    """A check for the inner loops: raises nothing itself, True once the budget's time is up."""
    return lambda: budget.out_of_time(started)


class Node:
    """An edge of the tree: the move ``key`` made by ``mover``, with its statistics."""

    __slots__ = ("avail", "children", "key", "mover", "reward", "visits")

    def __init__(self, key: str, mover: int) -> None:
        self.key = key
        self.mover = mover
        self.visits = 0
        self.avail = 0
        self.reward = 0.0
        self.children: dict[str, Node] = {}


@dataclass
class SearchResult:
    move: Move
    iterations: int
    visits: dict[str, int]


def search(
    game: SearchGame,
    view: Mapping[str, Any],
    moves: list[Move],
    seat: int,
    rng: random.Random,
    budget: Budget,
) -> SearchResult:
    """The most visited root move after ISMCTS within ``budget``; ``view`` is the engine's seat view."""
    engine = game.engine
    by_key = {move_key(m): m for m in moves}
    if len(moves) == 1:
        return SearchResult(moves[0], 0, {})
    root = Node("", seat)
    started = budget.start()
    iterations = 0
    stop = stopper(budget, started)
    while not budget.exhausted(started, iterations):
        sample = engine.determinize(view, seat, rng)
        try:
            _iterate(game, root, sample, seat, by_key, rng, stop)
        except OutOfTime:
            break
        iterations += 1
    if not any(n.visits for n in root.children.values()):
        return SearchResult(rng.choice(moves), iterations, {})
    best = max(root.children.values(), key=lambda n: (n.visits, n.reward))
    return SearchResult(by_key[best.key], iterations, {k: n.visits for k, n in root.children.items()})


def _iterate(
    game: SearchGame,
    root: Node,
    sample: State,
    seat: int,
    root_moves: Mapping[str, Move],
    rng: random.Random,
    stop: Stop | None = None,
) -> None:
    engine = game.engine
    state = sample
    node = root
    path: list[Node] = []
    expanded = False
    while not expanded and len(path) < game.max_depth:
        state = settle(engine, state, rng)
        if engine.outcome(state) is not None or (path and game.cutoff(sample, state)):
            break
        movers = engine.to_move(state)
        if not movers:
            break
        mover = movers[0]
        if node is root:
            legal = [m for m in engine.legal_moves(state, mover) if move_key(m) in root_moves] or list(
                root_moves.values()
            )
        else:
            legal = engine.legal_moves(state, mover)
        if not legal:
            break
        keys = [move_key(m) for m in legal]
        untried = [i for i, k in enumerate(keys) if k not in node.children]
        for k in keys:
            child = node.children.get(k)
            if child is not None:
                child.avail += 1
        if untried:
            i = untried[int(rng.random() * len(untried))]
            child = Node(keys[i], mover)
            child.avail = 1
            node.children[keys[i]] = child
            expanded = True
        else:
            c = game.exploration
            best_i, best_score = 0, -math.inf
            for j, k in enumerate(keys):
                ch = node.children[k]
                score = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if score > best_score:
                    best_i, best_score = j, score
            i = best_i
            child = node.children[keys[i]]
        state = play(engine, state, mover, legal[i])
        path.append(child)
        node = child
    state = playout(game, sample, state, rng, stop)
    rewards = game.evaluate(sample, state)
    for edge in path:
        edge.visits += 1
        edge.reward += rewards[edge.mover]


def flat_search(
    game: SearchGame,
    view: Mapping[str, Any],
    moves: list[Move],
    seat: int,
    rng: random.Random,
    budget: Budget,
    prior: Move | None = None,
    margin: float = 0.0,
) -> SearchResult:
    """Determinized flat Monte Carlo (PIMC) with common random numbers: each iteration samples one
    state the seat cannot tell from the real one and plays every listed move on it, each followed by
    a playout from the same generator seed, so the moves are compared on the same deal and the same
    luck. The move with the best mean reward wins (ties: the earlier listed move). This is the
    rollout algorithm: with the ``rules`` policy as playout it improves on ``rules`` itself.
    One iteration costs ``len(moves)`` playouts. With a ``prior`` (e.g. the ``rules`` move), another
    move is played only when its mean beats the prior's by more than ``margin``: a small budget's
    noise then leaves the heuristic's choice in place instead of replacing it by chance."""
    engine = game.engine
    if len(moves) == 1:
        return SearchResult(moves[0], 0, {})
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    started = budget.start()
    stop = stopper(budget, started)
    iterations = 0
    while not budget.exhausted(started, iterations):
        sample = engine.determinize(view, seat, rng)
        seed = rng.getrandbits(64)
        legal = {move_key(m) for m in engine.legal_moves(sample, seat)}
        round_rewards: list[tuple[int, float]] = []
        try:
            for i, move in enumerate(moves):
                if move_key(move) not in legal:
                    continue
                luck = random.Random(seed)
                end = playout(game, sample, play(engine, sample, seat, move), luck, stop)
                round_rewards.append((i, game.evaluate(sample, end)[seat]))
        except OutOfTime:
            break  # an unfinished round would compare the moves on different deals: dropped
        for i, r in round_rewards:
            totals[i] += r
            counts[i] += 1
        iterations += 1
    if iterations == 0:  # not one round in the time: the heuristic's move, else the first listed
        fallback = prior if prior is not None and prior in moves else moves[0]
        return SearchResult(fallback, 0, {})
    means = [t / c if c else -1.0 for t, c in zip(totals, counts, strict=True)]
    best = max(range(len(moves)), key=lambda i: (means[i], -i))
    if prior is not None and prior in moves:
        p = moves.index(prior)
        if counts[p] and means[best] - means[p] <= margin:
            best = p
    return SearchResult(moves[best], iterations, {move_key(m): counts[i] for i, m in enumerate(moves)})


def playout(
    game: SearchGame, sample: State, state: State, rng: random.Random, stop: Stop | None = None
) -> State:
    """Plays ``state`` on with the game's playout policy until its cut-off; raises ``OutOfTime`` as
    soon as ``stop()`` says the budget's time is up (checked before every move)."""
    engine = game.engine
    for _ in range(game.max_playout_moves):
        if stop is not None and stop():
            raise OutOfTime
        state = settle(engine, state, rng)
        if engine.outcome(state) is not None or game.cutoff(sample, state):
            return state
        movers = engine.to_move(state)
        if not movers:
            return state
        mover = movers[0]
        legal = engine.legal_moves(state, mover)
        if not legal:
            return state
        if len(legal) == 1:
            move = legal[0]
        elif game.playout is not None:
            move = game.playout(state, mover, legal, rng)
        else:
            move = legal[int(rng.random() * len(legal))]
        state = play(engine, state, mover, move)
    return state


def clamp01(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x
