"""``determinize``: a full CityHopper ``State`` sampled from one seat's view (issue 18, item 3).

What a seat does not see (cityhopper.md 3.3) and how it is sampled:

- **others' hidden end cards**: drawn uniformly, without replacement, from the cities on no card the
  seat can see (its own cards, public ones bought as end cities CH-38, cards it saw in a swap K13-K14);
  every city is on exactly one blue card, so the blue deck is then what is left, in random order;
- **deck orders** (blue, yellow, green): uniform shuffles, except that the chance card on show is at
  the bottom of the green deck (CH-54: it returned there when drawn);
- **the open question's key and selector**: the question is external content (section 4), so its key
  is a guess: a distance is the built-in road estimate from ``cities.json`` (public data), a choice a
  uniformly random option, a flag two random palette colours; the selector is a random number;
- **a chance choice's hidden card** (a swap offered to someone else, a trade-in by someone else):
  one of the sampled cards that fits.

Everything else is copied from the view, so ``view(determinize(view, seat, rng), seat) == view``
(tests/unit/bots/test_cityhopper_determinize.py). The FLAG answer list is shuffled by the hidden
selector (``legal.answer_payloads``), so there the legal moves agree as a set, not in order. The
bank's totals are not in a view: they are set so that the money balances (``invariants``).
Pure: all randomness comes from ``rng`` (``Rng``: ``random()`` and ``shuffle`` only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.games.engines.base import Rng
from shared.cityhopper.grading import CHOICE_CATEGORIES, COLOURS, FLAG, ROAD_DISTANCE
from shared.cityhopper.roads import default_routing

from .board import CITY_IDS
from .state import CARD_IDS, SELECTOR_RANGE, EndCard, Player, State, pos_from_dict


def determinize(view: Mapping[str, Any], seat: int, rng: Rng) -> State:
    n = int(view["num_players"])
    visible: set[str] = set()
    for pv in view["players"]:
        for card in pv["end_cities"]:
            if card.get("city") is not None:
                visible.add(str(card["city"]))
    pool = [c for c in CITY_IDS if c not in visible]
    rng.shuffle(pool)
    players: list[Player] = []
    for pv in view["players"]:
        holder = int(pv["seat"])
        cards: list[EndCard] = []
        for card in pv["end_cities"]:
            city = card.get("city")
            if city is None:
                cards.append(EndCard(pool.pop()))
            elif holder == seat or card.get("public"):
                cards.append(EndCard(str(city), bool(card.get("public"))))
            else:  # seen in a swap: known to this seat
                cards.append(EndCard(str(city), False, (seat,)))
        p = Player(seat=holder, money=int(pv["money"]))
        p.penalty = int(pv["penalty_points"])
        p.start_city = str(pv["start_city"])
        p.end_cards = cards
        p.played_away = [str(c) for c in pv["played_away"]]
        p.tickets = [str(t) for t in pv["tickets"]]
        p.supply = int(pv["houses_in_supply"])
        p.barred = [str(c) for c in pv["barred"]]
        p.pos = pos_from_dict(pv["position"])
        players.append(p)
    yellow = list(CITY_IDS)
    rng.shuffle(yellow)
    green = list(CARD_IDS)
    rng.shuffle(green)
    chance = _chance(view, players, pool)
    if chance is not None:
        green.remove(str(chance["card"]))
        green.append(str(chance["card"]))
    blue = _blue(view, chance, pool)
    total = sum(p.money for p in players)
    s = State(num_players=n, starting_money=int(view["starting_money"]))
    s.__dict__.update(
        phase=str(view["phase"]),
        players=players,
        owners={str(c): int(o) for c, o in view["owners"].items()},
        blue=blue,
        yellow=yellow[: int(view["decks"]["yellow"])],
        green=green[: int(view["decks"]["green"])],
        ticket_stock={str(k): int(v) for k, v in view["ticket_stock"].items()},
        shuffled=3,
        start_rolls=list(view["start_rolls"]),
        start_rollers=list(view["start_rollers"]),
        start_history=[dict(r) for r in view["start_history"]],
        pending_start=None,
        active=int(view["active"]),
        turn_no=int(view["turn_no"]),
        roll=view["roll"],
        roll_pending=bool(view["roll_pending"]),
        steps=int(view["steps_remaining"]),
        question=_question(view.get("question"), rng),
        last_question=None if view.get("last_question") is None else dict(view["last_question"]),
        chance=chance,
        requests=int(view["requests"]),
        winner=view["winner"],
        bank_out=max(0, total - n * int(view["starting_money"])),
        bank_in=max(0, n * int(view["starting_money"]) - total),
    )
    return s


def _blue(view: Mapping[str, Any], chance: dict[str, Any] | None, pool: list[str]) -> list[str]:
    """The rest of the cities in random order (``pool`` is already shuffled); a city traded in by
    someone else (hidden from this seat) lies at the bottom, where the trade put it."""
    rest = list(pool)
    if chance is not None and chance.get("stage") == "trade_house" and chance.get("city") in rest:
        rest.remove(str(chance["city"]))
        rest.append(str(chance["city"]))
    want = int(view["decks"]["blue"])
    return rest[len(rest) - want :] if want <= len(rest) else rest


def _chance(view: Mapping[str, Any], players: list[Player], pool: list[str]) -> dict[str, Any] | None:
    cv = view.get("chance")
    if cv is None:
        return None
    ch = {k: v for k, v in cv.items() if k not in ("title", "text")}
    stage = ch.get("stage")
    me = int(ch["seat"])
    if stage == "swap_answer" and ch.get("city") is None:
        # the offered card is one of the offering seat's cards (sampled: any of them)
        ch["city"] = players[me].end_cards[0].city
    if stage == "trade_house" and ch.get("city") is None:
        # the trader owned the card traded in (else no house question) and drew its last card
        owned = sorted(c for c, o in view["owners"].items() if o == me and c not in players[me].end_cities())
        ch["drawn"] = players[me].end_cards[-1].city
        ch["city"] = owned[0] if owned else (pool[0] if pool else ch["drawn"])
    return ch


def _question(qv: Mapping[str, Any] | None, rng: Rng) -> dict[str, Any] | None:
    if qv is None:
        return None
    q = dict(qv)
    if q.get("stage") in ("external", "answer"):
        q["selector"] = min(SELECTOR_RANGE - 1, int(rng.random() * SELECTOR_RANGE))
    public = q.get("question")
    if public is not None:
        q["question"] = _with_key(dict(public), rng)
    return q


def _with_key(q: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """A guessed key for a public question (the real one is the question service's secret)."""
    category = q.get("category")
    if category == ROAD_DISTANCE:
        city, yellow = str(q["city"]), str(q.get("yellow_city") or q["city"])
        km = default_routing().route(city, yellow).km
        q["key"] = {"km": km}
        q["reveal"] = {"km": km}
    elif category == FLAG:
        palette = [str(c) for c in q.get("palette") or COLOURS]
        rng.shuffle(palette)
        colours = palette[:2]
        q["key"] = {"colours": colours}
        q["reveal"] = {"colours": colours}
    elif category in CHOICE_CATEGORIES:
        options = [str(o["id"]) for o in q.get("options") or []]
        rng.shuffle(options)
        right = options[0] if options else ""
        q["key"] = {"option": right}
        q["reveal"] = {"answer": right}
    return q
