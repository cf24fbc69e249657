"""Sampling a full Klapper state from one seat's view (``KlapperEngine.determinize``).

Everything public is copied from the view (section 4, "Hidden information": bids, Speler, trump,
declared melds with their cards, played cards, tricks, points, scores). The seat's own hand is its
own. What the seat cannot see is dealt at random (``sampling.deal``) so that it agrees with what the
seat has seen:

- the turned card stays in the dealer's hand until he plays it (KL-8, KL-R4); with 2 players it is
  the last card of the dead hand (KL-44, KL-46);
- declared roem cards not yet played are still in the declarer's hand (KL-30, KL-R10);
- a player who did not follow suit holds none of the led suit (KL-17); one who neither followed nor
  trumped holds no trump (KL-19); one who played a trump under the trick's highest trump holds no
  trump above it (KL-20);
- every hidden place gets exactly its known size (``hand_sizes``; with 2 players ``extra_counts``
  and ``dead_hand_size``; the extra cards are unknown even to their owner until taken up, KL-45).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import Rng
from services.games.engines.sampling import deal

from .cards import DECK_SIZE, parse, parse_suit, strength, suit_of
from .melds import Meld
from .state import KlapperState, Options, Play, Trick

PENDING = {"omboeren": "omboeren", "dealing": "deal"}


def _card(text: Any) -> int:
    c = parse(text)
    if c is None:
        raise ValueError(f"unknown card {text!r} in view")
    return c


def _plays(cards: list[Mapping[str, Any]]) -> list[Play]:
    return [(int(p["seat"]), _card(p["card"])) for p in cards]


def shown_gaps(tricks: list[list[Play]], trump: int | None, n: int) -> list[set[int]]:
    """Per seat, the cards play has shown it cannot hold (KL-17, KL-19, KL-20)."""
    gaps: list[set[int]] = [set() for _ in range(n)]
    if trump is None:
        return gaps
    suit_cards = [set(range(s * 6, s * 6 + 6)) for s in range(4)]
    for plays in tricks:
        if not plays:
            continue
        led = suit_of(plays[0][1])
        for i in range(1, len(plays)):
            seat, c = plays[i]
            suit = suit_of(c)
            if suit != led:
                gaps[seat] |= suit_cards[led]  # KL-17: could not follow
                if suit != trump:
                    gaps[seat] |= suit_cards[trump]  # KL-19: could not trump either
            if suit == trump and (led == trump or suit != led):
                before = [strength(p, trump) for _, p in plays[:i] if suit_of(p) == trump]
                if before and strength(c, trump) < max(before):  # KL-20: had no higher trump
                    top = max(before)
                    gaps[seat] |= {t for t in suit_cards[trump] if strength(t, trump) > top}
    return gaps


def _bid_rounds(bids: list[tuple[int, int, str]]) -> int:
    if not bids:
        return 0
    last = max(r for _, r, _ in bids)
    return sum(1 for _, r, b in bids if r == last and b == "pass")


def determinize(view: Mapping[str, Any], seat: int, rng: Rng) -> KlapperState:
    v = view
    n = int(v["num_players"])
    opts = Options.from_dict(v["options"])
    phase = str(v["phase"])
    trump = parse_suit(v["trump"]) if v["trump"] is not None else None
    turned = _card(v["turned_card"]) if v["turned_card"] is not None else None
    trick_now = _plays(v["trick"]["cards"])
    tricks = [
        Trick(int(t["leader"]), tuple(_plays(t["cards"])), int(t["winner"]), int(t["points"]))
        for t in v["tricks"]
    ]
    bids = [(int(b["seat"]), int(b["round"]), str(b["bid"])) for b in v["bids"]]
    dealt = v.get("hand") is not None
    roem: list[tuple[Meld, ...]] = []
    if dealt:
        roem = [
            tuple((str(m["type"]), tuple(sorted(_card(c) for c in m["cards"]))) for m in melds)
            for melds in v["roem"]
        ]
    results = [dict(r) for r in v["results"]]
    state = KlapperState(
        n=n,
        opts=opts,
        table=[int(s) for s in v["table"]],
        side_of=[int(s) for s in v["side_of"]],
        num_sides=2 if n in (4, 6) else n,
        phase=phase,
        pending=PENDING.get(phase),
        omboeren_cards=_plays(v["omboeren"]),
        deal_no=int(v["deal_no"]),
        dealer=-1 if v["dealer"] is None else int(v["dealer"]),
        voorhand=-1 if v["voorhand"] is None else int(v["voorhand"]),
        turned_card=turned,
        turned_on_table=bool(v["turned_card_on_table"]),
        turn=v["turn"],
        bids=bids,
        round_passes=_bid_rounds(bids),
        speler=v["speler"],
        trump=trump,
        trick_leader=v["trick"]["leader"],
        trick=trick_now,
        tricks=tricks,
        card_points=[int(p) for p in v["card_points"]],
        last_trick_side=v["last_trick_side"],
        roem=roem,
        declared=[bool(d) for d in v["roem_declared"]] if dealt else [],
        roem_settled=bool(v["roem_settled"]),
        roem_scored=[int(r) for r in v["roem_scored"]],
        roem_holder=v["roem_holder"],
        deal_scored=phase in ("dealing", "game_over") and bool(results) and not results[-1].get("void"),
        score=[int(s) for s in v["score"]],
        results=results,
        winner=v["winner"],
    )
    if not dealt:
        return state
    _deal_hidden(state, v, seat, rng)
    return state


def _deal_hidden(state: KlapperState, v: Mapping[str, Any], seat: int, rng: Rng) -> None:
    n = state.n
    own = [_card(c) for c in v["hand"]]
    played = {c for t in state.tricks for _, c in t.plays} | {c for _, c in state.trick}
    known: list[list[int]] = [[] for _ in range(n)]  # cards of other hands the seat can name
    if state.turned_card is not None and n != 2 and state.turned_card not in played and state.dealer != seat:
        known[state.dealer].append(state.turned_card)  # KL-8
    for s, melds in enumerate(state.roem):
        if s == seat:
            continue
        for _, cards in melds:
            known[s] += [c for c in cards if c not in played and c not in known[s]]  # KL-30, KL-R10
    sizes = [int(h) for h in v["hand_sizes"]]
    places: list[int] = []  # hidden places: other seats' hands, then 2 players' extras and dead hand
    counts: list[int] = []
    for s in range(n):
        if s != seat:
            places.append(s)
            counts.append(sizes[s] - len(known[s]))
    extra_counts = [int(e) for e in v.get("extra_counts", [0] * n)] if n == 2 else []
    dead_size = int(v.get("dead_hand_size", 0)) if n == 2 else 0
    if n == 2:
        counts += extra_counts
        counts.append(max(0, dead_size - (1 if state.turned_card is not None and dead_size else 0)))
    taken = set(own) | played | {c for k in known for c in k}
    if n == 2 and state.turned_card is not None and dead_size:
        taken.add(state.turned_card)  # KL-44: the dead hand's last card is the turned card
    pool = [c for c in range(DECK_SIZE) if c not in taken]
    gaps = shown_gaps([list(t.plays) for t in state.tricks] + [state.trick], state.trump, n)
    hand_places = len(places)

    def allowed(place: int, c: int) -> bool:
        return place >= hand_places or c not in gaps[places[place]]

    dealt = deal(pool, counts, allowed, rng)
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = own
    for i, s in enumerate(places):
        hands[s] = sorted(dealt[i] + known[s])
    state.hands = hands
    if n == 2:
        state.extras = [sorted(dealt[hand_places]), sorted(dealt[hand_places + 1])]
        dead = dealt[hand_places + 2]
        if state.turned_card is not None and dead_size:
            dead = [*dead, state.turned_card]
        state.dead_hand = dead
