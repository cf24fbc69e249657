"""Every green chance card K01-K50 (rules/cityhopper.md section 5, CH-54 to CH-56), drawn after a
correct answer at a provincial capital and resolved to the purchase window."""

from __future__ import annotations

import pytest

from services.games.engines.cityhopper.state import CARDS

from .helpers import CARD_IDS, Game


def _setup(card: str) -> Game:
    g = Game(3)
    start, edge = (
        ("hoogeveen", "road:assen--hoogeveen") if card == "K46" else ("kampen", "road:kampen--zwolle")
    )
    g.turn(0, start, 6, money=20)
    g.give_end_cities(0, "breda", "hoorn")
    g.give_end_cities(1, "tilburg", "venlo")
    g.own(0, "hoorn", "sneek", "emmen")
    s = g.edit()
    s.players[0].penalty = 1
    s.ticket_stock["FREE_BOAT"] -= 1
    s.players[1].tickets.append("FREE_BOAT")
    g.top_green(card)
    g.top_yellow("meppel")
    g.do(0, {"type": "move", "edge": edge})
    return g


@pytest.mark.parametrize("card", CARD_IDS)
def test_chance_card(card: str) -> None:
    """CH-54: each card is drawn from the top, resolved fully and returned to the bottom."""
    g = _setup(card)
    c = CARDS[card]
    money = [p.money for p in g.s.players]
    g.arrive_and_answer(True)
    assert g.s.green[-1] == card
    money[0] += 3
    me = g.s.players[0]
    effect, params = c.effect, dict(c.params)
    if effect == "TICKET":
        assert params["kind"] in me.tickets
    elif effect == "SWAP_END_CITY":
        assert g.s.chance is not None and g.s.chance["stage"] == "offer"
        g.do(0, {"type": "choose_chance", "opponent": 1, "city": "hoorn"})
        assert g.s.chance is not None and g.s.chance["awaiting"] == 1
        g.do(1, {"type": "choose_chance", "city": "tilburg"})
        assert sorted(g.s.players[0].end_cities()) == ["breda", "tilburg"]
        assert sorted(g.s.players[1].end_cities()) == ["hoorn", "venlo"]
        assert g.s.owners.get("tilburg") == 0 and "hoorn" not in g.s.owners  # the house followed its card
    elif effect == "RIGHT_NEIGHBOUR_TAKES_CITY":
        assert g.s.chance is not None and g.s.chance["awaiting"] == 2  # seated just before seat 0
        g.do(2, {"type": "choose_chance", "city": "sneek"})
        assert g.s.owners["sneek"] == 2 and g.s.players[0].supply == 13
    elif effect == "TAKE_TICKET":
        g.do(0, {"type": "choose_chance", "opponent": 1, "kind": "FREE_BOAT"})
        assert (
            me is not g.s.players[0]
            and g.s.players[0].tickets == ["FREE_BOAT"]
            and not g.s.players[1].tickets
        )
    elif effect == "FREE_CITY_YELLOW":
        assert g.s.owners["meppel"] == 0 and g.s.yellow[-1] == "meppel"
    elif effect == "TRADE_IN_END_CITY":
        g.top_blue("delfzijl")
        g.do(0, {"type": "choose_chance", "city": "hoorn"})
        assert g.s.chance is not None and g.s.chance["stage"] == "trade_house"
        g.do(0, {"type": "choose_chance", "move_house": True})
        assert sorted(g.s.players[0].end_cities()) == ["breda", "delfzijl"]
        assert g.s.owners.get("delfzijl") == 0 and "hoorn" not in g.s.owners and g.s.blue[-1] == "hoorn"
    elif effect == "GAIN":
        money[0] += int(params["amount"])
    elif effect == "PAY_BANK":
        money[0] -= int(params["amount"])
    elif effect == "COLLECT_FROM_EACH":
        money = [money[0] + 4, money[1] - 2, money[2] - 2]
    elif effect == "PAY_TO_EACH":
        money = [money[0] - 4, money[1] + 2, money[2] + 2]
    elif effect == "PAY_PER_HOUSE":
        money[0] -= 3
    elif effect == "GO_TO":
        if g.s.chance is not None and g.s.chance.get("stage") == "route":
            g.do(0, {"type": "choose_chance"})
        assert g.s.players[0].pos.at == params["city"]
    elif effect == "GO_TO_START_CITY":
        if g.s.chance is not None and g.s.chance.get("stage") == "route":
            g.do(0, {"type": "choose_chance"})
        assert g.s.players[0].pos.at == g.s.players[0].start_city
    elif effect == "REMOVE_PENALTY":
        assert g.s.players[0].penalty == 0
    elif effect == "ADD_PENALTY":
        assert g.s.players[0].penalty == 2
    else:  # pragma: no cover
        raise AssertionError(effect)
    if effect not in ("GO_TO", "GO_TO_START_CITY", "TAKE_TICKET"):
        assert [p.money for p in g.s.players] == money
    assert g.s.phase == "PURCHASE" and g.s.chance is None
    assert g.problems() == []


def test_chance_ticket_lapses_when_stock_empty() -> None:
    """CH-48 / TICKET: lapses when that kind's stock is empty."""
    g = _setup("K01")
    g.edit().ticket_stock["FREE_FLIGHT"] = 0
    g.edit().players[2].tickets += ["FREE_FLIGHT"] * 4
    ev = g.arrive_and_answer(True)
    assert "ChanceLapsed" in g.types(ev) and "FREE_FLIGHT" not in g.s.players[0].tickets


def test_chance_go_to_lapses_on_target() -> None:
    """CH-55: already on X, the card lapses."""
    g2 = Game(3).turn(0, "kampen", 6)
    g2.top_green("K46")
    g2.do(0, {"type": "move", "edge": "road:kampen--zwolle"})
    ev = g2.arrive_and_answer(True)
    assert "ChanceLapsed" in g2.types(ev) and g2.s.players[0].pos.at == "zwolle"


def test_chance_choices_can_be_declined() -> None:
    """K13/K17/K22 are optional: decline closes the card."""
    for card in ("K13", "K17", "K22"):
        g = _setup(card)
        g.arrive_and_answer(True)
        assert {"type": "choose_chance", "decline": True} in g.legal()
        ev = g.do(0, {"type": "choose_chance", "decline": True})
        assert g.types(ev) == ["ChanceDeclined", "PurchaseOpened"]


def test_chance_free_city_takeover_and_own_city_lapse() -> None:
    """FREE_CITY_YELLOW: opponent-owned may be taken over; own city lapses."""
    g = _setup("K19")
    g.own(1, "meppel")
    g.arrive_and_answer(True)
    assert g.s.chance is not None and g.s.chance["stage"] == "free_city"
    g.do(0, {"type": "choose_chance", "take": True})
    assert g.s.owners["meppel"] == 0 and g.s.players[1].supply == 15
    g = _setup("K19")
    g.own(0, "meppel")
    ev = g.arrive_and_answer(True)
    assert "ChanceLapsed" in g.types(ev)
