"""Invariants for random play, written apart from the move generator and the scorer.

Each message starts with the rule id it protects.
"""

from __future__ import annotations

from .cards import DECK_SIZE, NAMES
from .melds import MELD_VALUES, meld_problem, overlap_problem
from .state import KlapperState

# Own tables, by card name, so these checks do not lean on ``cards.strength``/``cards.points``.
_TRUMP_ORDER = ["Q", "K", "10", "A", "9", "J"]  # low to high
_PLAIN_ORDER = ["9", "J", "Q", "K", "10", "A"]
_TRUMP_PTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
_PLAIN_PTS = {"J": 2, "9": 0, "A": 11, "10": 10, "K": 4, "Q": 3}
_DECK_TOTAL = 152
_LAST = 10


def _suit(c: int) -> str:
    return NAMES[c][-1]


def _rank(c: int) -> str:
    return NAMES[c][:-1]


def _pts(c: int, trump: str) -> int:
    return (_TRUMP_PTS if _suit(c) == trump else _PLAIN_PTS)[_rank(c)]


def _high(c: int, trump: str) -> int:
    if _suit(c) == trump:
        return 100 + _TRUMP_ORDER.index(_rank(c))
    return _PLAIN_ORDER.index(_rank(c))


def _violation(hand: set[int], before: list[int], c: int, trump: str) -> str | None:
    """Which of KL-17 to KL-21 playing ``c`` from ``hand`` after ``before`` breaks."""
    if c not in hand:
        return "KL-25 card not in hand"
    if not before:
        return None
    led = _suit(before[0])
    can_follow = any(_suit(h) == led for h in hand)
    my_trumps = [h for h in hand if _suit(h) == trump]
    if can_follow and _suit(c) != led:
        return "KL-17 did not follow suit"
    if _suit(c) == trump:
        played = [_high(b, trump) for b in before if _suit(b) == trump]
        if played and _high(c, trump) < max(played) and any(_high(h, trump) > max(played) for h in my_trumps):
            return "KL-20 undertrumped while able to overtrump"
        return None
    if not can_follow and my_trumps:
        return "KL-19 did not trump while unable to follow"
    return None


def check(state: KlapperState) -> list[str]:
    problems: list[str] = []
    if state.deal_no == 0:
        if state.phase not in ("omboeren", "dealing"):
            problems.append("KL-6 play started without a deal")
        return problems
    problems += _cards(state)
    if state.speler is not None and state.trump is not None:
        problems += _plays(state)
        problems += _roem(state)
        problems += _deal_score(state)
    problems += _scores(state)
    return problems


def _cards(state: KlapperState) -> list[str]:
    out: list[str] = []
    everything: list[int] = [c for h in state.hands for c in h]
    everything += [c for h in state.extras for c in h] + list(state.dead_hand)
    everything += [c for _, c in state.trick] + [c for t in state.tricks for _, c in t.plays]
    if sorted(everything) != list(range(DECK_SIZE)):
        out.append(f"KL-6 the 24 cards are not all present once ({len(everything)} counted)")
    turned = state.turned_card
    if turned is None:
        out.append("KL-7 no turned card in a dealt deal")
    elif state.n == 2:
        if not state.dead_hand or state.dead_hand[-1] != turned:
            out.append("KL-44 the turned card is not the last card of the dead hand")
    else:
        played_by_dealer = [c for t in state.tricks for s, c in t.plays if s == state.dealer]
        played_by_dealer += [c for s, c in state.trick if s == state.dealer]
        if turned not in state.hands[state.dealer] and turned not in played_by_dealer:
            out.append("KL-8 the turned card left the dealer's hand without being played by him")
    if state.phase in ("play", "bidding_1", "bidding_2"):
        played = [0] * state.n
        for t in state.tricks:
            for s, _ in t.plays:
                played[s] += 1
        for s, _ in state.trick:
            played[s] += 1
        for seat in range(state.n):
            size = len(state.hands[seat]) + (len(state.extras[seat]) if state.extras else 0)
            if size + played[seat] != state.cards_each:
                out.append(f"KL-6 seat {seat} has the wrong number of cards")
    return out


def _plays(state: KlapperState) -> list[str]:
    """KL-16, KL-17 to KL-25: every card of this deal, against the hand held at that moment."""
    out: list[str] = []
    trump = "SHDC"[state.trump] if state.trump is not None else ""
    groups = [list(t.plays) for t in state.tricks] + ([list(state.trick)] if state.trick else [])
    leader = state.voorhand
    for k, t in enumerate(state.tricks):
        if t.leader != leader or (groups[k] and groups[k][0][0] != leader):
            out.append(f"KL-24 trick {k + 1} was led by the wrong seat")
        cards = [c for _, c in t.plays]
        best = max(
            range(len(cards)),
            key=lambda i: (_suit(cards[i]) in (trump, _suit(cards[0])), _high(cards[i], trump)),
        )
        if t.plays[best][0] != t.winner:
            out.append(f"KL-23 trick {k + 1} went to the wrong seat")
        if t.points != sum(_pts(c, trump) for c in cards):
            out.append(f"KL-26 trick {k + 1} has the wrong points")
        leader = t.winner
    if state.trick and state.trick[0][0] != leader:
        out.append("KL-24 the current trick was led by the wrong seat")
    for g in groups:
        for i in range(1, len(g)):
            if g[i][0] != state.next_seat(g[i - 1][0]):
                out.append("KL-1 a card was played out of turn")
    held = [set(h) for h in state.hands]
    for g in reversed(groups):
        for i in range(len(g) - 1, -1, -1):
            seat, c = g[i]
            held[seat].add(c)
            problem = _violation(held[seat], [x for _, x in g[:i]], c, trump)
            if problem:
                out.append(f"{problem}: seat {seat} played {NAMES[c]}")
    return out


def _hand_at_first_trick(state: KlapperState, seat: int) -> set[int]:
    hand = set(state.hands[seat])
    hand |= {c for t in state.tricks for s, c in t.plays if s == seat}
    hand |= {c for s, c in state.trick if s == seat}
    return hand


def _roem(state: KlapperState) -> list[str]:
    """KL-29 to KL-35, KL-42, KL-R12: declared melds are real; only the highest scores."""
    out: list[str] = []
    assert state.trump is not None
    totals = []
    for seat in range(state.n):
        melds = list(state.roem[seat])
        hand = _hand_at_first_trick(state, seat)
        for m in melds:
            if not hand.issuperset(m[1]) or meld_problem(m, state.trump) is not None:
                out.append(f"KL-31 seat {seat} declared an invalid meld {m}")
        if overlap_problem(melds) is not None:
            out.append(f"KL-33 seat {seat} used a card in two melds")
        totals.append(sum(MELD_VALUES[k] for k, _ in melds))
    if not state.roem_settled:
        if any(state.roem_scored):
            out.append("KL-35 roem scored before the first trick ended")
        return out
    expected = [0] * state.num_sides
    top = max(totals)
    if top > 0:
        order = [state.table[(state.table.index(state.voorhand) + k) % state.n] for k in range(state.n)]
        best = [s for s in order if totals[s] == top]
        sides = {state.side_of[s] for s in best}
        if len(sides) == 1 or state.opts.roem_tie == "voorhand_first":
            side = state.side_of[best[0]]
            expected[side] = sum(totals[s] for s in range(state.n) if state.side_of[s] == side)
    if expected != state.roem_scored:
        out.append(f"KL-35 roem scored {state.roem_scored}, expected {expected}")
    return out


def _deal_score(state: KlapperState) -> list[str]:
    """KL-26 to KL-28, KL-36 to KL-38, KL-41, KL-46: card points and the deal's scoring."""
    out: list[str] = []
    trump = "SHDC"[state.trump] if state.trump is not None else ""
    won = [0] * state.num_sides
    for t in state.tricks:
        won[state.side_of[t.winner]] += sum(_pts(c, trump) for _, c in t.plays)
    if won != state.card_points:
        out.append(f"KL-26 card points {state.card_points}, tricks hold {won}")
    if len(state.tricks) < state.tricks_per_deal:
        if state.deal_scored or state.last_trick_side is not None:
            out.append("KL-27 deal scored before its last trick")
        return out
    last_side = state.side_of[state.tricks[-1].winner]
    if state.last_trick_side != last_side:
        out.append("KL-27 last-trick bonus went to the wrong side")
    dead = sum(_pts(c, trump) for c in state.dead_hand)
    if sum(won) + _LAST != _DECK_TOTAL + _LAST - dead:
        out.append(f"KL-28 card points in play sum to {sum(won) + _LAST}, not {_DECK_TOTAL + _LAST - dead}")
    if not state.deal_scored:
        return out
    ps = state.side_of[state.speler] if state.speler is not None else -1
    points = [
        won[s] + (_LAST if s == last_side else 0) + state.roem_scored[s] for s in range(state.num_sides)
    ]
    basis = (
        points
        if state.opts.compare_with_roem
        else [p - r for p, r in zip(points, state.roem_scored, strict=True)]
    )
    success = all(basis[ps] > basis[s] for s in range(state.num_sides) if s != ps)
    expected = [p if success or s != ps else 0 for s, p in enumerate(points)]
    last = state.results[-1] if state.results else {}
    if last.get("deal_no") != state.deal_no or last.get("added") != expected:
        out.append(f"KL-37 deal {state.deal_no} added {last.get('added')}, expected {expected}")
    return out


def _scores(state: KlapperState) -> list[str]:
    """KL-39, KL-43, KL-R18: scores are the sum of the deals; the game ends exactly at the target."""
    out: list[str] = []
    sums = [0] * state.num_sides
    for r in state.results:
        for s, a in enumerate(r.get("added", [0] * state.num_sides)):
            sums[s] += a
    if sums != state.score:
        out.append(f"KL-37 scores {state.score} are not the sum of the deals {sums}")
    top = max(state.score)
    decided = top >= state.opts.target and state.score.count(top) == 1
    if decided != (state.phase == "game_over"):
        out.append(f"KL-39 game over is {state.phase == 'game_over'} with scores {state.score}")
    if state.phase == "game_over" and (state.winner is None or state.score[state.winner] != top):
        out.append("KL-39 the winner is not the side with the highest score")
    return out
