"""Numbered rules CH-1 to CH-56 and rulings R-1 to R-34 of rules/cityhopper.md (see RULES.md)."""

from __future__ import annotations

import pytest

from services.games.engines.base import IllegalMove, InvalidOptions
from services.games.engines.cityhopper.board import CITY_IDS, go_to_routes

from .helpers import E, Game


def _illegal(g: Game, seat: int, move: dict[str, object]) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        E.decide(g.s, seat, move)
    return info.value


def test_CH1_R1_two_to_four_players() -> None:
    for n in (2, 3, 4):
        assert E.normalize_options(n, {})["starting_money"] == 10
    for n in (1, 5):
        with pytest.raises(InvalidOptions) as info:
            E.normalize_options(n, {})
        assert info.value.rule == "CH-1"
    assert all(p.supply == 15 for p in Game(4).s.players)


def test_CH2_seat_order_is_clockwise() -> None:
    # covers CH-2 (see RULES.md)
    g = Game(3).turn(1, "den-haag", 2)
    g.do(1, {"type": "move", "edge": "road:den-haag--zoetermeer"})
    g.arrive_and_answer(False)
    assert g.s.active == 2


def test_CH3_R2_starting_money_configurable() -> None:
    assert [p.money for p in Game(3, starting_money=25).s.players] == [25, 25, 25]
    assert E.options_schema()["properties"]["starting_money"]["default"] == 10
    for bad in (-1, 101, "10", True):
        with pytest.raises(InvalidOptions):
            E.normalize_options(2, {"starting_money": bad})


def test_CH4_R32_decks_shuffled_by_chance_and_ticket_stock() -> None:
    s = E.initial_state(E.variants()[0])
    reqs = []
    for _ in range(3):
        r = E.chance_request(s)
        assert r is not None and r.kind == "shuffle"
        reqs.append((r.purpose, r.n))
        s = E.evolve(
            s, {"type": "ChanceResolved", **r.as_dict(), "counter": 0, "values": list(range(r.n))[::-1]}
        )
    assert reqs == [("blue", 82), ("yellow", 82), ("green", 50)]
    assert s.yellow[0] == CITY_IDS[-1] and s.green[0] == "K50"
    assert s.ticket_stock == {"FREE_FLIGHT": 4, "FREE_BOAT": 4, "FREE_END_CITY": 4, "END_CITY_20": 4}


def test_CH5_CH6_CH7_start_and_end_cities() -> None:
    # covers CH-5 (see RULES.md)
    g = Game(3)
    s = g.s
    assert [p.start_city for p in s.players] == list(CITY_IDS[:3])
    assert [p.pos.at for p in s.players] == list(CITY_IDS[:3])
    assert s.blue[-3:] == list(CITY_IDS[:3])  # back to the bottom in seat order
    assert [p.end_cities() for p in s.players] == [
        list(CITY_IDS[3:5]),
        list(CITY_IDS[5:7]),
        list(CITY_IDS[7:9]),
    ]
    assert s.phase == "START_ROLL" and s.question is None  # CH-6: no start question
    v = E.view(s, 1)
    assert v["players"][0]["end_cities"] == [{"city": None}, {"city": None}]  # CH-7: secret
    assert v["players"][1]["end_cities"][0]["city"] == CITY_IDS[5]


def test_CH8_R4_start_roll_ties_reroll_among_tied() -> None:
    g = Game(3)
    assert E.to_move(g.s) == [0, 1, 2]
    for seat, v in ((0, 6), (1, 6), (2, 2)):
        g.do(seat, {"type": "roll_start"})
        g.resolve(v)
    assert g.s.start_rollers == [0, 1] and E.to_move(g.s) == [0, 1]
    assert _illegal(g, 2, {"type": "roll_start"}).rule == "CH-8"
    g.do(1, {"type": "roll_start"})
    g.resolve(4)
    g.do(0, {"type": "roll_start"})
    g.resolve(3)
    assert g.s.phase == "AWAIT_ROLL" and g.s.active == 1


def test_CH9_roll_sets_steps() -> None:
    g = Game(2, start_rolls=(6, 1))
    g.do(0, {"type": "roll"})
    req = g.request()
    assert (req.purpose, req.kind, req.n, req.sides) == ("roll", "dice", 1, 6)
    g.resolve(4)
    assert g.s.steps == 4 and g.s.roll == 4 and g.s.phase == "MOVE"
    assert _illegal(g, 0, {"type": "roll"}).rule == "CH-9"


def test_CH10_R5_steps_lost_without_legal_step() -> None:
    # covers CH-10 (see RULES.md)
    g = Game(2).turn(0, "hengelo", 5)
    g.edit().players[0].barred = ["almelo"]
    g.do(0, {"type": "move", "edge": "road:enschede--hengelo"})
    ev = g.arrive_and_answer(True)  # barred = [enschede]: Hengelo is the only way and is free
    ev = g.do(0, {"type": "skip_purchase"})
    assert g.s.phase == "MOVE"
    g2 = Game(2).turn(0, "delft", 5)
    g2.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    g2.arrive_and_answer(True)
    s = g2.edit()
    s.players[0].barred = ["den-haag", "leiden", "zoetermeer", "delft"]
    ev = g2.do(0, {"type": "skip_purchase"})
    assert ev[-1]["type"] == "TurnEnded" and ev[-1]["lost_steps"] == 3


def test_CH11_CH12_forks_only_at_cities_heading_kept() -> None:
    g = Game(2).turn(0, "amsterdam", 2)
    g.do(0, {"type": "move", "edge": "road:amsterdam--leiden"})
    pos = g.s.players[0].pos
    assert pos.kind == "edge" and pos.heading == "leiden" and g.s.active == 1
    s = g.edit()
    s.active, s.phase, s.steps = 0, "MOVE", 3
    assert g.legal() == [{"type": "move"}]
    assert _illegal(g, 0, {"type": "move", "edge": "road:amsterdam--leiden"}).rule == "CH-11"
    g.do(0, {"type": "move"})
    assert g.s.players[0].pos.at == "leiden" and g.s.steps == 1


def test_CH13_entering_a_city_stops_the_pawn() -> None:
    # covers CH-13 (see RULES.md)
    g = Game(2).turn(0, "amsterdam", 6)
    g.do(0, {"type": "move", "edge": "road:amsterdam--zaandam"})
    assert g.s.players[0].pos.at == "zaandam" and g.s.steps == 4 and g.s.phase == "QUESTION"


def test_CH14_R12_toll_then_category_then_question() -> None:
    g = Game(2).turn(0, "amsterdam", 6)
    g.own(1, "zaandam")
    ev = g.do(0, {"type": "move", "edge": "road:amsterdam--zaandam"})
    assert g.types(ev) == ["Moved", "TollPaid", "QuestionStarted"]
    assert g.request().purpose == "category" and E.to_move(g.s) == []
    g.resolve(3)
    assert g.request().purpose == "selector" and g.request().n == 2**31
    g.resolve(12345)
    ext = E.external_request(g.s)
    assert ext is not None and ext.kind == "question" and ext.request_no == 0
    assert dict(ext.params) == {"city": "zaandam", "category": 3, "yellow_city": None, "selector": 12345}
    assert E.to_move(g.s) == [] and E.chance_request(g.s) is None


def test_CH15_R14_correct_answer_order() -> None:
    # covers CH-15 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.top_green("K27")
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    ev = g.arrive_and_answer(True)
    assert g.types(ev) == [
        "QuestionAnswered",
        "RewardPaid",
        "ChanceDrawn",
        "MoneyTransferred",
        "PurchaseOpened",
    ]
    g.do(0, {"type": "skip_purchase"})
    assert g.s.phase == "MOVE" and g.s.steps == 3


def test_CH16_wrong_answer_ends_turn() -> None:
    # covers CH-16 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    ev = g.arrive_and_answer(False)
    assert "ChanceDrawn" not in g.types(ev) and "PurchaseOpened" not in g.types(ev)
    assert g.s.players[0].pos.at == "den-haag" and g.s.active == 1 and g.s.players[0].money == 10


def test_CH17_R7_three_points_extra_end_city() -> None:
    # covers CH-17 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.edit().players[0].penalty = 2
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    g.arrive_and_answer(False)
    assert g.s.players[0].penalty == 0 and len(g.s.players[0].end_cards) == 3


def test_CH18_CH19_no_question_on_the_city_you_stand_on_and_sharing() -> None:
    g = Game(2).turn(0, "delft", 2)
    g.edit().players[1].pos = g.s.players[0].pos.__class__("city", "den-haag")
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    g.arrive_and_answer(True)
    g.do(0, {"type": "skip_purchase"})
    assert g.s.players[1].pos == g.s.players[0].pos  # CH-19
    s = g.edit()
    s.active = 0
    g.do(0, {"type": "roll"})
    g.resolve(2)
    assert g.s.phase == "MOVE"


def test_CH20_R31_barred_cities() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.edit().players[0].barred = ["rotterdam"]
    assert {"type": "move", "edge": "road:delft--rotterdam"} not in g.legal()
    assert _illegal(g, 0, {"type": "move", "edge": "road:delft--rotterdam"}).rule == "CH-20"


def test_CH21_R8_stuck_at_turn_start_asks_without_toll() -> None:
    # covers CH-21 (see RULES.md)
    g = Game(2).turn(0, "enschede", 0)
    g.own(1, "enschede")
    s = g.edit()
    s.phase = "AWAIT_ROLL"
    s.players[0].barred = ["hengelo"]
    g.do(0, {"type": "roll"})
    g.resolve(3)
    assert g.s.question is not None and g.s.question["stuck"] and not g.s.question["final"]
    assert g.s.players[1].money == 10
    g.arrive_and_answer(True)
    g.do(0, {"type": "skip_purchase"})
    assert g.s.phase == "MOVE" and g.legal() == [{"type": "move", "edge": "road:enschede--hengelo"}]


def test_CH22_R9_dike_one_step() -> None:
    # covers CH-22 (see RULES.md)
    g = Game(2).turn(0, "enkhuizen", 3)
    g.do(0, {"type": "move", "edge": "dike:enkhuizen--lelystad"})
    assert g.s.players[0].pos.at == "lelystad" and g.s.steps == 2


def test_CH23_CH24_CH25_R15_boats() -> None:
    # covers CH-23 (see RULES.md)
    g = Game(2).turn(0, "harlingen", 3, money=3)
    legal = g.legal()
    assert {"type": "move", "edge": "boat:harlingen--vlieland"} not in legal  # EUR 4 > 3
    assert _illegal(g, 0, {"type": "move", "edge": "boat:harlingen--vlieland"}).rule == "CH-24"
    g.set_money(0, 4)
    g.do(0, {"type": "move", "edge": "boat:harlingen--vlieland"})
    assert g.s.players[0].money == 0 and g.s.steps == 2 and g.s.phase == "QUESTION"  # CH-25


def test_CH26_R17_airports_entered_only_by_flight() -> None:
    g = Game(2).turn(0, "amsterdam", 6)
    assert all("airport" not in str(m.get("edge")) for m in g.legal())
    assert _illegal(g, 0, {"type": "move", "edge": "airport_link:amsterdam"}).rule == "CH-11"


def test_CH27_R10_buy_flight_conditions() -> None:
    g = Game(2).turn(0, "haarlem", 6, money=10)
    g.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    g.arrive_and_answer(True)
    assert _illegal(g, 0, {"type": "buy_flight", "to": "airport:amsterdam"}).rule == "CH-26"
    g.edit().players[0].barred.append("groningen")
    assert _illegal(g, 0, {"type": "buy_flight", "to": "airport:groningen"}).rule == "CH-20"
    s = g.edit()
    s.players[0].tickets.append("FREE_FLIGHT")
    s.ticket_stock["FREE_FLIGHT"] -= 1
    assert _illegal(g, 0, {"type": "buy_flight", "to": "airport:eindhoven"}).rule == "CH-27"


def test_CH28_CH29_CH49_ticket_flight_and_waiting_on_the_airport() -> None:
    # covers CH-49 (see RULES.md)
    # covers CH-29 (see RULES.md)
    # covers CH-28 (see RULES.md)
    g = Game(2).turn(0, "amsterdam", 2)
    s = g.edit()
    s.players[0].tickets.append("FREE_FLIGHT")
    s.ticket_stock["FREE_FLIGHT"] -= 1
    assert {"type": "fly_with_ticket", "to": "airport:enschede"} in g.legal()
    ev = g.do(0, {"type": "fly_with_ticket", "to": "airport:enschede"})
    assert g.types(ev) == ["TicketSpent", "FlightTaken", "TurnEnded"]
    assert g.s.players[0].pos.at == "airport:enschede" and g.s.ticket_stock["FREE_FLIGHT"] == 4
    s = g.edit()
    s.active = 0
    g.do(0, {"type": "roll"})
    g.resolve(1)
    g.do(0, {"type": "move"})
    assert g.s.players[0].pos.at == "enschede" and g.s.phase == "QUESTION"


def test_CH30_CH37_buy_normal_city() -> None:
    g = Game(2).turn(0, "delft", 5, money=10)
    g.give_end_cities(0, "breda", "assen")
    g.own(1, "gouda")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    assert _illegal(g, 0, {"type": "buy_city", "city": "gouda"}).rule == "CH-30"
    assert _illegal(g, 0, {"type": "buy_city", "city": "breda"}).rule == "CH-37"
    g.do(0, {"type": "buy_city", "city": "venlo"})
    assert g.s.owners["venlo"] == 0 and g.s.players[0].money == 5 and g.s.players[0].supply == 14


def test_CH31_R11_toll_on_each_entry_only() -> None:
    # covers CH-31 (see RULES.md)
    g = Game(2).turn(0, "delft", 6)
    g.own(1, "rotterdam")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    assert g.s.players[1].money == 15
    g.arrive_and_answer(False)
    assert g.s.players[1].money == 15  # no toll for standing


def test_CH32_start_city_can_be_bought() -> None:
    # covers CH-32 (see RULES.md)
    g = Game(2).turn(0, "delft", 5, money=10)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    start = g.s.players[1].start_city
    assert {"type": "buy_city", "city": start} in g.legal()


def test_CH33_only_capitals_draw_chance_cards() -> None:
    # covers CH-33 (see RULES.md)
    g = Game(2).turn(0, "haarlem", 5)
    ev = g.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    ev = g.arrive_and_answer(True)
    assert "ChanceDrawn" not in g.types(ev)  # Amsterdam is not a capital


def test_CH34_purchases_not_forced_and_no_debt() -> None:
    g = Game(2).turn(0, "delft", 5, money=4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    assert [m["type"] for m in g.legal()] == ["skip_purchase"]
    assert _illegal(g, 0, {"type": "buy_city", "city": "venlo"}).rule == "CH-34"


def test_CH35_no_trading_moves() -> None:
    # covers CH-35 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    assert _illegal(g, 0, {"type": "give_money", "to": 1}).code == "unknown_move"
    assert {d.type for d in E.moves()} == {
        "roll_start", "roll", "move", "answer", "buy_city", "buy_end_city", "buy_flight",
        "skip_purchase", "fly_with_ticket", "choose_chance",
    }  # fmt: skip


def test_CH36_R6_R13_one_purchase_after_a_correct_answer() -> None:
    g = Game(2).turn(0, "delft", 5, money=30)
    assert _illegal(g, 0, {"type": "buy_city", "city": "venlo"}).rule == "CH-36"
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    g.do(0, {"type": "buy_city", "city": "venlo"})
    assert g.s.phase == "MOVE" and g.s.steps == 3
    assert _illegal(g, 0, {"type": "buy_city", "city": "sneek"}).rule == "CH-36"


def test_CH38_R21_end_city_purchase_is_public() -> None:
    # covers CH-38 (see RULES.md)
    g = Game(2).turn(0, "delft", 5, money=20)
    g.give_end_cities(0, "breda", "assen")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    g.do(0, {"type": "buy_end_city", "city": "breda"})
    assert g.s.players[0].money == 8
    v = E.view(g.s, 1)
    assert {"city": "breda", "public": True} in v["players"][0]["end_cities"]
    assert {"city": None} in v["players"][0]["end_cities"]


def test_CH39_takeover_pays_the_owner() -> None:
    # covers CH-39 (see RULES.md)
    g = Game(2).turn(0, "delft", 5, money=20)
    g.give_end_cities(0, "breda", "assen")
    g.own(1, "breda")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    g.do(0, {"type": "buy_end_city", "city": "breda"})
    assert g.s.players[1].money == 25 and g.s.owners["breda"] == 0


def test_CH40_R30_sale_only_with_empty_supply() -> None:
    g = Game(2).turn(0, "delft", 5, money=20)
    g.give_end_cities(0, "breda", "assen")
    g.own(0, "venlo")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(True)
    assert _illegal(g, 0, {"type": "buy_end_city", "city": "breda", "sell_house": "venlo"}).rule == "CH-40"
    g.edit().players[0].supply = 0
    g.edit().bank_in += 0
    with pytest.raises(IllegalMove):
        E.decide(g.s, 0, {"type": "buy_end_city", "city": "breda"})


def test_CH41_R19_answering_at_own_city_keeps_the_house() -> None:
    # covers CH-41 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.own(0, "rotterdam")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.arrive_and_answer(False)
    assert g.s.owners["rotterdam"] == 0


def test_CH42_CH45_R20_final_only_when_entering_an_owned_end_city() -> None:
    # covers CH-42 (see RULES.md)
    g = Game(2).turn(0, "delft", 5, money=20)
    g.give_end_cities(0, "rotterdam", "assen")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    assert g.s.question is not None and not g.s.question["final"]  # CH-45
    g.arrive_and_answer(True)
    g.do(0, {"type": "buy_end_city", "city": "rotterdam"})
    assert "rotterdam" in g.s.players[0].end_cities()  # buying there is not a final visit


def test_CH43_CH44_CH47_final_answer_and_win() -> None:
    # covers CH-43 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.give_end_cities(0, "rotterdam")
    g.own(0, "rotterdam")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    ev = g.arrive_and_answer(True)
    assert g.types(ev)[-3:] == ["RewardPaid", "EndCityPlayedAway", "GameWon"] and ev[-3]["amount"] == 5
    assert E.outcome(g.s) is not None and E.to_move(g.s) == []
    assert _illegal(g, 0, {"type": "roll"}).rule == "CH-47"


def test_CH46_owning_counts_however_the_house_got_there() -> None:
    # covers CH-46 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.own(0, "rotterdam")
    g.give_end_cities(0, "rotterdam", "assen")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    assert g.s.question is not None and g.s.question["final"]


def test_CH48_CH50_R16_free_boat_ticket() -> None:
    # covers CH-50 (see RULES.md)
    g = Game(2).turn(0, "harlingen", 3, money=0)
    s = g.edit()
    s.players[0].tickets.append("FREE_BOAT")
    s.ticket_stock["FREE_BOAT"] -= 1
    ev = g.do(0, {"type": "move", "edge": "boat:harlingen--terschelling"})
    assert g.types(ev)[0] == "TicketSpent" and g.s.ticket_stock["FREE_BOAT"] == 4


def test_CH51_CH52_CH53_R22_R23_end_city_tickets() -> None:
    def buy(tickets: list[str], owner: int | None) -> Game:
        g = Game(2).turn(0, "delft", 5, money=30)
        g.give_end_cities(0, "breda", "assen")
        if owner is not None:
            g.own(owner, "breda")
        s = g.edit()
        for t in tickets:
            s.players[0].tickets.append(t)
            s.ticket_stock[t] -= 1
        g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
        g.arrive_and_answer(True)
        g.do(0, {"type": "buy_end_city", "city": "breda"})
        return g

    g = buy(["FREE_END_CITY"], None)
    assert g.s.players[0].money == 33 and not g.s.players[0].tickets  # CH-51: EUR 0
    g = buy(["FREE_END_CITY"], 1)
    assert g.s.players[0].money == 33 and g.s.players[1].money == 25  # the bank pays the owner
    g = buy(["END_CITY_20"], 1)
    assert g.s.players[0].money == 13 and g.s.players[1].money == 30  # CH-52: EUR 20 to the owner
    g = buy(["FREE_END_CITY", "END_CITY_20"], None)
    assert g.s.players[0].tickets == ["FREE_END_CITY"] and g.s.players[0].money == 13  # CH-53 / R-22
    assert g.problems() == []


def test_CH54_CH56_R26_swap_with_blocked_house() -> None:
    g = Game(2).turn(0, "kampen", 4)
    g.give_end_cities(0, "breda", "hoorn")
    g.give_end_cities(1, "tilburg", "venlo")
    g.own(0, "hoorn")
    g.own(1, "tilburg")
    g.top_green("K13")
    g.do(0, {"type": "move", "edge": "road:kampen--zwolle"})
    g.arrive_and_answer(True)
    g.do(0, {"type": "choose_chance", "opponent": 1, "city": "hoorn"})
    assert E.view(g.s, None)["chance"]["city"] is None
    g.do(1, {"type": "choose_chance", "city": "tilburg"})
    assert g.s.owners == {"tilburg": 0, "hoorn": 1}
    assert g.problems() == []


def test_CH55_R25_go_to_routes() -> None:
    assert go_to_routes("den-haag", "rotterdam") == (("den-haag", "delft", "rotterdam"),)
    routes = go_to_routes("groningen", "texel")
    assert routes and all(r[-1] == "texel" for r in routes)
    assert not any("ameland" in r for r in go_to_routes("groningen", "amsterdam"))


def test_R3_start_question_skipped_only_at_start() -> None:
    g = Game(2, start_rolls=(6, 1))
    g.do(0, {"type": "roll"})
    g.resolve(3)
    assert g.s.phase == "MOVE"


def test_R18_R28_yellow_card_returns_to_the_bottom() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.top_yellow("venlo")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.resolve(1)
    assert g.s.yellow[-1] == "venlo" and len(g.s.yellow) == 82


def test_R24_R27_right_neighbour_and_empty_supply() -> None:
    g = Game(3).turn(1, "kampen", 4)
    g.own(1, "sneek")
    g.top_green("K15")
    g.do(1, {"type": "move", "edge": "road:kampen--zwolle"})
    g.arrive_and_answer(True)
    assert g.s.chance is not None and g.s.chance["awaiting"] == 0


def test_R29_distance_bound_inclusive() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.ask(category=1)
    q = g.s.question
    assert q is not None
    km = float(q["question"]["key"]["km"])
    upper = float(q["question"]["reveal"]["upper_km"])
    ev = g.do(0, {"type": "answer", "payload": {"km": upper}})
    assert ev[0]["correct"] is True and km > 0


def test_R33_R34_deck_and_board_from_data() -> None:
    g = Game(2)
    assert len(g.s.green) == 50 and len(g.s.blue) + 4 == 82
    from services.games.engines.cityhopper.board import WALKS

    assert WALKS["road:amsterdam--leiden"].steps == 4


def test_CH44_final_wrong_bars_the_end_city() -> None:
    # covers CH-44 (see RULES.md)
    g = Game(2).turn(0, "delft", 5)
    g.give_end_cities(0, "rotterdam", "assen")
    g.own(0, "rotterdam")
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    ev = g.arrive_and_answer(False)
    assert g.types(ev) == ["QuestionAnswered", "PenaltyTaken", "TurnEnded"]
    assert "rotterdam" in g.s.players[0].end_cities() and "rotterdam" in g.s.players[0].barred


def test_R27_free_city_with_empty_supply_only_for_an_end_city() -> None:
    def draw(yellow: str, ends: tuple[str, ...]) -> Game:
        g = Game(2).turn(0, "kampen", 4)
        g.give_end_cities(0, *ends)
        g.own(0, "hoorn", "alkmaar", "zaandam", "haarlem", "leiden", "gouda", "delft", "breda")
        g.own(0, "venlo", "emmen", "sneek", "meppel", "almelo", "deventer", "tiel")
        g.top_green("K19")
        g.top_yellow(yellow)
        g.do(0, {"type": "move", "edge": "road:kampen--zwolle"})
        g.arrive_and_answer(True)
        return g

    g = draw("assen", ("breda", "tilburg"))
    assert g.s.phase == "PURCHASE" and "assen" not in g.s.owners  # lapsed
    g = draw("assen", ("assen", "tilburg"))
    assert {"type": "choose_chance", "take": True, "sell_house": "hoorn"} in g.legal()
    g.do(0, {"type": "choose_chance", "take": True, "sell_house": "hoorn"})
    assert g.s.owners["assen"] == 0 and "hoorn" not in g.s.owners and g.s.players[0].money == 21
    assert g.problems() == []


def test_R18_empty_blue_deck_skips_the_draw() -> None:
    g = Game(2).turn(0, "delft", 5)
    s = g.edit()
    s.players[1].end_cards += [type(s.players[1].end_cards[0])(c) for c in s.blue]
    s.blue = []
    s.players[0].penalty = 2
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    ev = g.arrive_and_answer(False)
    assert "EndCityDrawn" not in g.types(ev) and g.s.players[0].penalty == 0
    assert g.problems() == []
