"""Sampling a full HopPaa state from one seat's view (``HopPaaEngine.determinize``).

Public parts are copied from the view (section 4, "Hidden information": dealer, opener, white pawn,
bids, trump, played cards, tricks won, pawns). The seat keeps its own hand and its own discard.
Everything else it cannot see is dealt at random (``sampling.deal``) into places of the sizes the
view gives: the other hands (``hand_sizes``), the other discards (one card each once ``discarded``,
HP-16, HP-R21), the 2-player reserve (``reserve_size``, HP-6) and last round's cards out of play
(``out_of_play_size``, HP-R1). A player who did not follow the led suit holds none of it (HP-21);
trumping is never compulsory (HP-22), so nothing more follows from a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import Rng
from services.games.engines.sampling import deal

from .cards import deck, suit_of
from .state import GAME_OVER, SCORING, HopPaaState, Table, Trick
from .track import PAWN_NAMES


def _plays(cards: list[Mapping[str, Any]]) -> list[tuple[int, str]]:
    return [(int(p["seat"]), str(p["card"])) for p in cards]


def shown_voids(tricks: list[list[tuple[int, str]]], n: int) -> list[set[str]]:
    """Per seat, the suits it has shown it does not hold (HP-21)."""
    voids: list[set[str]] = [set() for _ in range(n)]
    for plays in tricks:
        if plays:
            led = suit_of(plays[0][1])
            for seat, card in plays[1:]:
                if suit_of(card) != led:
                    voids[seat].add(led)
    return voids


def determinize(view: Mapping[str, Any], seat: int, rng: Rng) -> HopPaaState:
    v = view
    n = int(v["num_players"])
    per = int(v["pawns_per_player"])
    round_no = int(v["round"])
    dealer = int(v["dealer"])
    table = Table(
        num_players=n,
        team=v["mode"] == "team",
        pawns_per_player=per,
        age_rank=tuple(int(a) for a in v["age_rank"]),
        first_dealer=(dealer - max(0, round_no - 1)) % n,  # HP-2: the dealer moves one seat a round
        white_pawn_timing=str(v["white_pawn_timing"]),
        forward_move_optional=bool(v["forward_move_optional"]),
    )
    phase = str(v["phase"])
    white = v["white_pawn"]
    trick = _plays(v["trick"]["cards"])
    log = [Trick(int(t["leader"]), tuple(_plays(t["cards"])), int(t["winner"])) for t in v["trick_log"]]
    results = [dict(r) for r in v["results"]]
    state = HopPaaState(
        table=table,
        pawns=[[int(p[name]) for name in PAWN_NAMES[:per]] for p in v["pawns"]],
        round=round_no,
        dealer=dealer,
        opener=int(v["opener"]),
        phase=phase,
        trick=trick,
        trick_log=log,
        white_offer=white["offered_to"],
        white_used=white["used"],
        trump=v["trump"],
        bids=list(v["bids"]),
        bid_order=[int(s) for s in v["bid_order"]],
        discard_pending=bool(v["discard_pending"]),
        turn=v["turn"],
        trick_leader=v["trick"]["leader"],
        tricks_won=[int(t) for t in v["tricks_won"]],
        scoring_index=len(results) if phase in (SCORING, GAME_OVER) else 0,
        results=results,
        winner=v["winner"],
    )
    if int(v["deck_size"]) > 0:  # gathered for the shuffle: every card is in the deck
        state.deck = list(deck(n))
        state.hands = [[] for _ in v["hand_sizes"]]
        state.discards = [None for _ in v["discarded"]]
        return state
    _deal_hidden(state, v, seat, rng)
    return state


def _deal_hidden(state: HopPaaState, v: Mapping[str, Any], seat: int, rng: Rng) -> None:
    n = state.num_players
    own = [str(c) for c in (v.get("hand") or [])]
    own_discard = v.get("my_discard")
    sizes = [int(s) for s in v["hand_sizes"]]
    discarded = [bool(d) for d in v["discarded"]]
    played = {c for t in state.trick_log for _, c in t.cards} | {c for _, c in state.trick}
    taken = set(own) | played | ({str(own_discard)} if own_discard is not None else set())
    pool = [c for c in deck(n) if c not in taken]
    others = [s for s in range(n) if s != seat]
    hidden_discards = [s for s in others if discarded[s]]
    counts = [sizes[s] for s in others] + [1] * len(hidden_discards)
    counts += [int(v["reserve_size"]), int(v["out_of_play_size"])]
    voids = shown_voids([list(t.cards) for t in state.trick_log] + [state.trick], n)

    def allowed(place: int, card: str) -> bool:
        return place >= len(others) or suit_of(card) not in voids[others[place]]

    dealt = deal(pool, counts, allowed, rng)
    if sizes:
        hands: list[list[str]] = [[] for _ in range(n)]
        hands[seat] = own
        for i, s in enumerate(others):
            hands[s] = dealt[i]
        state.hands = hands
    if discarded:
        discards: list[str | None] = [None] * n
        discards[seat] = None if own_discard is None else str(own_discard)
        for j, s in enumerate(hidden_discards):
            discards[s] = dealt[len(others) + j][0]
        state.discards = discards
    state.reserve = dealt[-2]
    state.out_of_play = dealt[-1]
