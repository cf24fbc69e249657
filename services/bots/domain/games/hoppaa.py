"""Bot levels for HopPaa (rules/hoppaa.md).

- ``random``: uniform among the sensible moves, as self-play (``hoppaa_sensible``).
- ``rules``: heuristics from the spec. The track first: ``hoppaa_value`` knows how many rounds a pawn on
  each square still needs on average (green jumps, red dots, the exact 35; HP-28 to HP-41). Bid (HP-12
  to HP-15) the number that leaves the fewest expected rounds to go: the chance of making it (from the
  hand's mean tricks: each card by its rank, 10 high, ace low, section 2, trumps more, short plain suits
  with trumps for ruffing, HP-22) times where the made bid moves the pawn, plus the miss times where the
  penalty sends it; the opener names the trump (HP-14) of the best such bid; never the forbidden sum
  (HP-15: it is not listed). Discard (HP-16) the card that brings the mean tricks closest to the bid.
  Play (HP-21 to HP-24) to take exactly the bid: while tricks are still needed win as cheaply as
  possible (or lead the strongest card), once the bid is reached duck with the highest card that still
  loses. White pawn (HP-10, HP-29): taken when the doubled steps leave fewer rounds to go (not where
  they overshoot, HP-R11; from 25 its 10 steps finish). Pawn moves and penalties (HP-33 to HP-41): the
  one that leaves the fewest expected rounds.
- ``strong``: determinized Monte Carlo search (``search.flat_search``) for the contract (the rules'
  best few bids or discards, and the white pawn) over sampled deals, playouts with the ``rules`` level
  for every seat (a tenth of the card plays one of the engine's sensible self-play moves at random), cut
  off at the end of the round and scored by each seat's (or team's) progress in expected rounds to go
  (``hoppaa_value``) relative to the others (HP-28 to HP-41); a won game scores 1. Card play and pawn
  moves are the ``rules`` choices (a game has hundreds of card plays; searching them all costs too much).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.bots.domain.budget import Budget, fixed_budget
from services.bots.domain.games import Level
from services.bots.domain.hoppaa_sensible import sensible_moves, sensible_random
from services.bots.domain.hoppaa_value import (
    BID_RANGE,
    MAKE_OFFSET,
    MISS_STEPS,
    back,
    forward,
    make_chance,
    track_rounds,
)
from services.bots.domain.search import SearchGame, clamp01, flat_search
from services.games.engines.hoppaa.cards import (
    NO_TRUMP,
    card_set,
    suit_of,
    suits_in_play,
    trick_winner,
    value_of,
)
from services.games.engines.hoppaa.engine import HopPaaEngine
from services.games.engines.hoppaa.rules import step_options
from services.games.engines.hoppaa.state import GAME_OVER, HopPaaState
from services.games.engines.hoppaa.track import FINISH, PAWN_NAMES

Move = dict[str, Any]
ENGINE = HopPaaEngine()
PLAYOUT_BUDGET = fixed_budget(1)  # the rules level ignores its budget

# chance that a card of this rank (index = value 1..10) takes a trick, plain and trump
PLAIN_P = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.02, 0.12, 0.35, 0.75)
TRUMP_P = (0.0, 0.1, 0.12, 0.15, 0.2, 0.28, 0.38, 0.5, 0.65, 0.8, 0.95)
# fewer players: fewer cards against each card, so high cards hold more often
PLAYER_FACTOR = {2: 1.25, 3: 1.1, 4: 1.0}
PLAYOUT_NOISE = 0.1  # share of playout cards chosen among the sensible ones at random
CANDIDATES = 4  # the search compares the rules' best few bids or discards (priors), best first
SEARCHED = frozenset({"bid", "discard", "choose_white_pawn"})  # the decisions ``strong`` searches


def expected_tricks(hand: Sequence[str], trump: str, players: int) -> float:
    """Expected tricks of ``hand`` with ``trump`` (HP-21 to HP-23)."""
    by_suit = Counter(suit_of(c) for c in hand)
    total = 0.0
    trumps = [c for c in hand if suit_of(c) == trump]
    for c in hand:
        v = value_of(c)
        if suit_of(c) == trump:
            total += TRUMP_P[v]
        else:
            p = PLAIN_P[v]
            if v == 9 and f"10{suit_of(c)}" in hand:
                p = 0.7  # the 10 covers it
            if by_suit[suit_of(c)] >= 5:
                p *= 0.6  # long plain suits get ruffed
            total += p
    if trump != NO_TRUMP and len(trumps) >= 2:
        short = sum(1 for s in ("S", "H", "D", "C") if s != trump and by_suit[s] <= 1)
        total += 0.35 * min(short, len(trumps) - 1)  # ruffing (HP-22)
    total += 0.25 * max(0, len(trumps) - 3)
    return total * PLAYER_FACTOR.get(players, 1.0)


def _inner(view: dict[str, Any]) -> dict[str, Any]:
    inner = view.get("view", view)
    assert isinstance(inner, dict)
    return inner


def trick_mean(hand: Sequence[str], trump: str, players: int) -> float:
    """The tricks the ``rules`` card play takes with ``hand`` on average. With 2 players (9 of the 20
    cards in play, HP-6) ``expected_tricks`` undercounts (a player who must follow or trump gives away
    more than it wins back): calibrated on rules-v-rules rounds (t = 0.74 e + 2.33, residual sd 1.5)."""
    e = expected_tricks(hand, trump, players)
    return 0.74 * e + 2.33 if players == 2 else e


def _track(v: dict[str, Any], seat: int) -> tuple[int | None, list[int]]:
    """The seat whose pawns this seat's result moves (HP-32, HP-R19) and that track."""
    tracks = [[p[name] for name in PAWN_NAMES if name in p] for p in v["pawns"]]
    partner = next((o for team in v.get("teams") or [] if seat in team for o in team if o != seat), None)
    for owner in (seat, partner):
        if owner is not None and any(p != FINISH for p in tracks[owner]):
            return owner, tracks[owner]
    return None, []


def bid_rounds(track: Sequence[int], bid: int, mu: float, white: bool, players: int) -> float:
    """Expected rounds the track still needs after bidding ``bid`` with a hand worth ``mu`` tricks:
    made (HP-28, HP-29: the best step count and pawn) or missed (HP-30, HP-36: the pawn that loses least)."""
    q = make_chance(bid, mu)
    now = track_rounds(track, players)
    made = min(
        (
            track_rounds(after, players)
            for pawn in range(len(track))
            for _, after in forward(track, pawn, step_options(bid, white))
        ),
        default=now,
    )
    missed = min(
        (
            track_rounds(back(track, pawn, MISS_STEPS), players)
            for pawn in range(len(track))
            if 0 < track[pawn] < FINISH
        ),
        default=now,
    )
    return q * made + (1 - q) * missed


def _white(v: dict[str, Any], seat: int) -> bool:
    return v["white_pawn"].get("used") is True and v["white_pawn"].get("offered_to") == seat


def ranked_bids(v: dict[str, Any], moves: list[Move], seat: int) -> list[Move]:
    """The listed bids, best first: the fewest expected rounds still needed on the track (HP-13 to HP-15,
    HP-26 to HP-41), from the hand's mean tricks with each trump."""
    hand: list[str] = v.get("hand") or []
    n = int(v["num_players"])
    _, track = _track(v, seat)
    white = _white(v, seat)
    cache: dict[str, float] = {}
    scored: list[tuple[float, int, Move]] = []
    for i, m in enumerate(moves):
        trump = m.get("trump", v.get("trump") or NO_TRUMP)
        if trump not in cache:
            cache[trump] = trick_mean(hand, trump, n)
        mu = cache[trump]
        score = bid_rounds(track, m["n"], mu, white, n) if track else abs(m["n"] - mu)
        scored.append((score, i, m))
    return [m for _, _, m in sorted(scored, key=lambda t: (t[0], t[1]))]


def bid_move(v: dict[str, Any], moves: list[Move], seat: int) -> Move:
    return ranked_bids(v, moves, seat)[0]


def ranked_discards(v: dict[str, Any], moves: list[Move], seat: int) -> list[Move]:
    """HP-16: the listed discards, best first: keep the hand whose expected tricks are closest to the bid."""
    hand: list[str] = v.get("hand") or []
    bid = (v.get("bids") or [])[seat] or 0
    trump = v.get("trump") or NO_TRUMP
    n = int(v["num_players"])

    def score(m: Move) -> tuple[float, int]:
        rest = [c for c in hand if c != m["card"]]
        return (abs(trick_mean(rest, trump, n) - MAKE_OFFSET - bid), value_of(m["card"]))

    return sorted(moves, key=score)


def discard_move(v: dict[str, Any], moves: list[Move], seat: int) -> Move:
    return ranked_discards(v, moves, seat)[0]


@dataclass(frozen=True)
class Seen:
    """What a seat knows of the cards this round: the cards it cannot see (others' hands, discards and,
    with 2 players, the 20 cards out of play, HP-6, HP-R21), how many of them the other players hold, and
    the suits a player showed void in by not following (HP-21)."""

    unseen: frozenset[str]
    others_hold: int
    voids: frozenset[tuple[int, str]]


def seen_from(
    num_players: int,
    hand: Sequence[str],
    discard: str | None,
    tricks: Sequence[Sequence[tuple[int, str]]],
    hand_sizes: Sequence[int],
    seat: int,
) -> Seen:
    """``tricks``: every trick of the round so far, the one on the table last (HP-19 to HP-24)."""
    played = {c for t in tricks for _, c in t}
    unseen = card_set(num_players) - played - set(hand) - ({discard} if discard else set())
    voids = {(s, suit_of(c)) for t in tricks for s, c in t[1:] if suit_of(c) != suit_of(t[0][1])}
    others = sum(h for s, h in enumerate(hand_sizes) if s != seat)
    return Seen(frozenset(unseen), others, frozenset(voids))


def lead_wins(card: str, trump: str, seen: Seen, seat: int) -> float:
    """The chance that ``card`` led now takes the trick (HP-23): no other player holds a higher card of
    its suit, nor trumps it being void (HP-22)."""
    suit = suit_of(card)
    higher = sum(1 for c in seen.unseen if suit_of(c) == suit and value_of(c) > value_of(card))
    share = min(1.0, seen.others_hold / len(seen.unseen)) if seen.unseen else 0.0
    p = (1.0 - share) ** higher
    void = any(x == suit and s != seat for s, x in seen.voids)
    if void and suit != trump and any(suit_of(c) == trump for c in seen.unseen):
        p *= 0.3  # a player void in the suit may trump it (HP-22)
    return p


def choose_card(
    hand_moves: Sequence[str],
    need: int,
    trump: str,
    table: Sequence[tuple[int, str]],
    seat: int,
    seen: Seen | None = None,
    num_players: int = 2,
) -> str:
    """HP-19 to HP-24: among the legal cards, take exactly the tricks still needed.

    Leading with tricks to take: the strongest card (a high trump draws the others' trumps); with none to
    take: the card least likely to win by the cards still unseen (``seen``), the higher of two as unlikely.
    Following: the cheapest winner while short, else the highest card that still loses; the last to play
    with only winners left sheds the highest.
    """

    def power(card: str) -> int:
        return value_of(card) + (10 if suit_of(card) == trump else 0)

    if not table:  # leading (HP-19)
        if need > 0 or seen is None:
            return max(hand_moves, key=power) if need > 0 else min(hand_moves, key=power)
        chance = {c: lead_wins(c, trump, seen, seat) for c in hand_moves}
        return min(hand_moves, key=lambda c: (round(chance[c], 2), -power(c)))
    winners = [c for c in hand_moves if trick_winner([*table, (seat, c)], trump) == seat]
    losers = [c for c in hand_moves if c not in winners]
    if need > 0:
        return min(winners, key=power) if winners else min(hand_moves, key=power)
    if losers:  # duck, shedding the most dangerous card that still loses
        return max(losers, key=power)
    if len(table) == num_players - 1:  # the trick is ours anyway: shed the most dangerous card
        return max(hand_moves, key=power)
    return min(hand_moves, key=power)


def card_move(v: dict[str, Any], moves: list[Move], seat: int) -> Move:
    bids = v.get("bids") or []
    need = (bids[seat] or 0) - v["tricks_won"][seat]
    table = [(int(c["seat"]), str(c["card"])) for c in v["trick"]["cards"]]
    n = int(v["num_players"])
    tricks = [[(int(c["seat"]), str(c["card"])) for c in t["cards"]] for t in v.get("trick_log") or []]
    if table:
        tricks.append(table)
    seen = seen_from(n, v.get("hand") or [], v.get("my_discard"), tricks, v["hand_sizes"], seat)
    c = choose_card([m["card"] for m in moves], need, v.get("trump") or NO_TRUMP, table, seat, seen, n)
    return next(m for m in moves if m["card"] == c)


def white_move(v: dict[str, Any], moves: list[Move], seat: int) -> Move:
    """HP-10, HP-29: use the white pawn if the doubled steps leave fewer rounds to go for the hand's best
    bid (they overshoot near 35, HP-R11; from 25 ten steps finish)."""
    hand: list[str] = v.get("hand") or []
    n = int(v["num_players"])
    _, track = _track(v, seat)
    if not track:
        return next((m for m in moves if m.get("use") is True), moves[0])
    trump = v.get("trump")
    if trump is None:  # not chosen yet: the opener picks the best; another seat expects the average
        mus = [trick_mean(hand, t, n) for t in (*suits_in_play(n), NO_TRUMP)]
        mu = max(mus) if v.get("opener") == seat else sum(mus) / len(mus)
    else:
        mu = trick_mean(hand, trump, n)
    best = {
        use: min(bid_rounds(track, b, mu, use, n) for b in BID_RANGE.get(n, range(1, 7)))
        for use in (True, False)
    }
    use = best[True] <= best[False]
    return next((m for m in moves if m.get("use") is use), moves[0])


def pawn_move(v: dict[str, Any], moves: list[Move], seat: int) -> Move:
    """HP-33 to HP-41: the forward move or penalty pawn that leaves the fewest expected rounds to go."""
    scoring = v.get("scoring") or {}
    owner = scoring.get("owner")
    if owner is None:
        return (sensible_moves({"view": v}, moves, seat) or moves)[0]
    n = int(v["num_players"])
    track = [v["pawns"][owner][name] for name in PAWN_NAMES if name in v["pawns"][owner]]

    def rounds(m: Move) -> float:
        if m["type"] == "decline_move":
            return track_rounds(track, n)
        pawn = PAWN_NAMES.index(m["pawn"])
        if m["type"] == "choose_penalty_pawn":
            return track_rounds(back(track, pawn, int(scoring["penalty"])), n)
        return min((track_rounds(after, n) for _, after in forward(track, pawn, [m["steps"]])), default=99.0)

    return min(moves, key=rounds)


def rules_level(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    v = _inner(view)
    kind = moves[0]["type"]
    if all(m["type"] == kind for m in moves):
        if kind == "bid":
            return bid_move(v, moves, seat)
        if kind == "discard":
            return discard_move(v, moves, seat)
        if kind == "play_card":
            return card_move(v, moves, seat)
        if kind == "choose_white_pawn":
            return white_move(v, moves, seat)
    if kind in ("choose_pawn_move", "decline_move", "choose_penalty_pawn"):
        return pawn_move(v, moves, seat)
    narrowed = sensible_moves(view, moves, seat) or moves
    return narrowed[0]


def playout_policy(state: HopPaaState, seat: int, legal: list[Move], rng: random.Random) -> Move:
    """The ``rules`` level on the (determinized) state, from the seat's own view; a share
    ``PLAYOUT_NOISE`` of the card plays is one of the engine's sensible self-play moves (policy.py) at
    random instead."""
    kind = legal[0]["type"]
    if kind == "play_card":
        if rng.random() < PLAYOUT_NOISE:
            options = ENGINE.selfplay_moves(state, seat) or legal
            return options[int(rng.random() * len(options))]
        need = (state.bids[seat] or 0) - state.tricks_won[seat]
        tricks = [list(t.cards) for t in state.trick_log]
        if state.trick:
            tricks.append(list(state.trick))
        hand = state.hands[seat]
        sizes = [len(h) for h in state.hands]
        seen = seen_from(state.num_players, hand, state.discards[seat], tricks, sizes, seat)
        trump = state.trump or NO_TRUMP
        c = choose_card([m["card"] for m in legal], need, trump, state.trick, seat, seen, state.num_players)
        return next(m for m in legal if m["card"] == c)
    return rules_level(ENGINE.view(state, seat), legal, seat, rng, PLAYOUT_BUDGET)


def cutoff(sample: HopPaaState, state: HopPaaState) -> bool:
    """The round is over: every result applied (HP-27, HP-46) or the game won (HP-44)."""
    return state.round != sample.round or state.phase == GAME_OVER


def evaluate(sample: HopPaaState, state: HopPaaState) -> list[float]:
    """A won game is 1 for the winners, 0 for the others; else 0.5 plus the seat's (team's) progress this
    round (the expected rounds to go it saved, ``hoppaa_value``) minus the others' average, scaled."""
    n = state.num_players
    teams = state.table.teams
    if state.phase == GAME_OVER and state.winner is not None:
        won = teams[state.winner] if teams is not None else [state.winner]
        return [1.0 if s in won else 0.0 for s in range(n)]
    gain = [track_rounds(sample.pawns[s], n) - track_rounds(state.pawns[s], n) for s in range(n)]
    if teams is not None:
        team_gain = {s: sum(gain[m] for m in team) for team in teams for s in team}
        gain = [team_gain[s] for s in range(n)]
    out = []
    for s in range(n):
        others = [gain[o] for o in range(n) if o != s and (teams is None or o not in _team(teams, s))]
        rel = gain[s] - (sum(others) / len(others) if others else 0.0)
        out.append(clamp01(0.5 + rel / 30.0))
    return out


def _team(teams: list[list[int]], seat: int) -> list[int]:
    return next(t for t in teams if seat in t)


GAME = SearchGame(engine=ENGINE, evaluate=evaluate, cutoff=cutoff, playout=playout_policy, exploration=0.5)


def strong_level(
    view: dict[str, Any], moves: list[Move], seat: int, rng: random.Random, budget: Budget
) -> Move:
    if moves[0]["type"] not in SEARCHED:
        # card play and pawn moves follow the rules heuristic: the search budget goes to the round's
        # contract (bid, discard, white pawn), which decides whether a pawn moves at all (HP-26 to HP-30)
        return rules_level(view, moves, seat, rng, budget)
    v = _inner(view)
    kind = moves[0]["type"]
    if kind == "bid":
        moves = ranked_bids(v, moves, seat)[:CANDIDATES]
    elif kind == "discard":
        moves = ranked_discards(v, moves, seat)[:CANDIDATES]
    return flat_search(GAME, v, moves, seat, rng, budget).move


LEVELS: dict[str, Level] = {"random": sensible_random, "rules": rules_level, "strong": strong_level}
