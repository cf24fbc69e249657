"""Folding Klapper events into a new state (``evolve``). Never mutates its input."""

from __future__ import annotations

from typing import Any

from services.games.engines.base import CHANCE_EVENT, Event

from .cards import DECK_SIZE, parse, parse_suit
from .melds import Meld
from .rules import deal, omboeren
from .state import KlapperState, Trick

RESULT_KEYS = (
    "deal_no",
    "dealer",
    "speler",
    "playing_side",
    "trump",
    "card_points",
    "last_trick_side",
    "roem",
    "deal_points",
    "compared",
    "won",
    "added",
)


def _card(text: Any) -> int:
    c = parse(text)
    if c is None:
        raise ValueError(f"unknown card {text!r} in event")
    return c


def _permutation(event: Event) -> list[int]:
    values = event.get("values")
    if not isinstance(values, list) or sorted(values) != list(range(DECK_SIZE)):
        raise ValueError("a Klapper shuffle needs a permutation of range(24)")
    return [int(v) for v in values]


def sides_for(n: int, table: list[int]) -> list[int]:
    """Side of every seat: 4 and 6 players alternate round the table; 2 and 3 play alone."""
    side_of = [0] * n
    for p, seat in enumerate(table):
        side_of[seat] = p % 2 if n in (4, 6) else seat
    return side_of


def apply(state: KlapperState, event: Event) -> KlapperState:
    kind = event.get("type")
    new = state.clone()
    if kind == CHANCE_EVENT:
        if event.get("purpose") == "omboeren":
            table, dealer, dealt = omboeren(new.n, _permutation(event))
            new.table = table
            new.side_of = sides_for(new.n, table)
            new.dealer = dealer
            new.omboeren_cards = dealt
            new.phase, new.pending = "dealing", "deal"
        elif event.get("purpose") == "deal":
            _start_deal(new, _permutation(event))
        else:
            raise ValueError(f"unknown chance purpose {event.get('purpose')!r}")
    elif kind == "BidMade":
        seat = int(event["seat"])
        new.bids.append((seat, int(event["round"]), str(event["bid"])))
        if event["bid"] == "pass":
            new.round_passes += 1
            new.turn = new.next_seat(seat)
    elif kind == "SecondRoundStarted":
        new.phase, new.round_passes, new.turn = "bidding_2", 0, new.voorhand
    elif kind == "SpelerFixed":
        trump = parse_suit(event["trump"])
        if trump is None:
            raise ValueError("bad trump in SpelerFixed")
        new.speler, new.trump = int(event["speler"]), trump
        new.phase, new.turn, new.trick_leader = "play", new.voorhand, new.voorhand
    elif kind == "ExtrasTakenUp":
        for seat in range(new.n):
            new.hands[seat] = sorted(new.hands[seat] + new.extras[seat])
        new.extras = [[] for _ in range(new.n)]
    elif kind == "DealVoided":
        new.results.append({"deal_no": new.deal_no, "dealer": new.dealer, "void": True})
        new.phase, new.pending, new.turn = "dealing", "deal", None
    elif kind == "RoemDeclared":
        seat = int(event["seat"])
        melds: list[Meld] = [
            (str(m["type"]), tuple(sorted(_card(c) for c in m["cards"]))) for m in event["melds"]
        ]
        new.roem[seat] = tuple(melds)
        new.declared[seat] = True
    elif kind == "CardPlayed":
        seat, c = int(event["seat"]), _card(event["card"])
        new.hands[seat].remove(c)
        if not new.trick:
            new.trick_leader = seat
        new.trick.append((seat, c))
        new.turned_on_table = False
        new.turn = new.next_seat(seat) if len(new.trick) < new.n else None
    elif kind == "TrickWon":
        winner = int(event["winner"])
        assert new.trick_leader is not None
        new.tricks.append(Trick(new.trick_leader, tuple(new.trick), winner, int(event["points"])))
        new.card_points[new.side_of[winner]] += int(event["points"])
        new.trick = []
        if event["last"]:
            new.last_trick_side = new.side_of[winner]
            new.turn = new.trick_leader = None
        else:
            new.turn = new.trick_leader = winner
    elif kind == "RoemScored":
        new.roem_settled = True
        new.roem_scored = [int(v) for v in event["roem"]]
        holder = event["holder"]
        new.roem_holder = None if holder is None else int(holder)
    elif kind == "DealScored":
        added = [int(v) for v in event["added"]]
        new.score = [s + a for s, a in zip(new.score, added, strict=True)]
        new.results.append({k: event[k] for k in RESULT_KEYS})
        new.deal_scored = True
        winner = event["winner"]
        if winner is not None:
            new.winner = int(winner)
            new.phase, new.pending, new.turn = "game_over", None, None
        else:
            new.phase, new.pending, new.turn = "dealing", "deal", None
    else:
        raise ValueError(f"unknown event type {kind!r}")
    return new


def _start_deal(new: KlapperState, deck: list[int]) -> None:
    """KL-6 to KL-8, KL-44: a fresh deal from the shuffled deck."""
    n = new.n
    if new.deal_no > 0:  # KL-9, KL-R7: the next seat deals after every deal, played or void
        new.dealer = new.next_seat(new.dealer)
    hands, extras, dead, turned = deal(n, new.table, new.dealer, deck)
    new.deal_no += 1
    new.voorhand = new.next_seat(new.dealer)
    new.hands, new.extras, new.dead_hand = hands, extras if n == 2 else [], dead
    new.turned_card, new.turned_on_table = turned, True
    new.phase, new.pending, new.turn = "bidding_1", None, new.voorhand
    new.bids, new.round_passes = [], 0
    new.speler = new.trump = new.trick_leader = None
    new.trick, new.tricks = [], []
    new.card_points = [0] * new.num_sides
    new.last_trick_side = None
    new.roem = [() for _ in range(n)]
    new.declared = [False] * n
    new.roem_settled, new.roem_scored, new.roem_holder = False, [0] * new.num_sides, None
    new.deal_scored = False
