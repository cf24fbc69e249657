"""Worked examples E1-E15 of rules/cityhopper.md section 6."""

from __future__ import annotations

from shared.cityhopper.questions import distance_question

from .helpers import E, Game, fact, steps_of


def _correct_and_skip(g: Game) -> None:
    g.arrive_and_answer(True)
    g.do(0, {"type": "skip_purchase"})


def test_example_E1_leiden_roll_6() -> None:
    g = Game(2).turn(0, "amsterdam", 6)
    assert steps_of("road:amsterdam--leiden") == 4
    ev = g.do(0, {"type": "move", "edge": "road:amsterdam--leiden"})
    assert g.types(ev) == ["Moved", "QuestionStarted"]  # Leiden unowned: no toll
    assert g.s.steps == 2 and g.s.players[0].pos.at == "leiden"
    g.resolve(5)  # white die 5: interesting facts
    assert g.s.question is not None and g.s.question["category"] == 5
    g.resolve(0)
    g.provide(fact("leiden"))
    ev = g.answer(True)
    assert "ChanceDrawn" not in g.types(ev) and g.s.players[0].money == 13 and g.s.phase == "PURCHASE"
    g.do(0, {"type": "skip_purchase"})
    ev = g.do(0, {"type": "move", "edge": "road:den-haag--leiden"})
    assert g.s.players[0].pos.at == "den-haag" and g.s.steps == 0
    ev = g.arrive_and_answer(True)
    assert g.s.players[0].money == 16 and "ChanceDrawn" in g.types(ev) and g.s.phase == "PURCHASE"
    ev = g.do(0, {"type": "skip_purchase"})
    assert g.types(ev)[-1] == "TurnEnded" and g.s.active == 1


def test_example_E2_wrong_at_leiden() -> None:
    g = Game(2).turn(0, "amsterdam", 6)
    g.do(0, {"type": "move", "edge": "road:amsterdam--leiden"})
    ev = g.arrive_and_answer(False)
    assert g.types(ev) == ["QuestionAnswered", "PenaltyTaken", "TurnEnded"]
    assert ev[-1]["lost_steps"] == 2 and g.s.players[0].penalty == 1 and g.s.players[0].pos.at == "leiden"
    assert g.s.players[0].barred == ["leiden"] and g.s.active == 1
    s = g.edit()
    s.active = 0
    g.do(0, {"type": "roll"})
    g.resolve(3)
    assert g.s.phase == "MOVE" and g.s.question is None  # CH-18: no Leiden question


def test_example_E3_third_penalty_point() -> None:
    g = Game(2).turn(0, "amsterdam", 6)
    g.edit().players[0].penalty = 2
    g.top_blue("venlo")
    g.do(0, {"type": "move", "edge": "road:amsterdam--leiden"})
    ev = g.arrive_and_answer(False)
    assert g.types(ev) == [
        "QuestionAnswered",
        "PenaltyTaken",
        "EndCityDrawn",
        "PenaltiesReturned",
        "TurnEnded",
    ]
    assert "venlo" in g.s.players[0].end_cities() and g.s.players[0].penalty == 0
    assert len(g.s.players[0].end_cards) == 3


def test_example_E4_revisit() -> None:
    g = Game(2).turn(0, "zoetermeer", 2)
    g.do(0, {"type": "move", "edge": "road:gouda--zoetermeer"})
    g.arrive_and_answer(False)
    assert g.s.players[0].barred == ["gouda"]
    g.turn(0, "hilversum", 2)
    g.do(0, {"type": "move", "edge": "road:hilversum--utrecht"})
    g.arrive_and_answer(False)
    assert g.s.players[0].barred == ["gouda", "utrecht"]
    g.turn(0, "utrecht", 5)
    edges = [m.get("edge") for m in g.legal()]
    assert "road:gouda--utrecht" not in edges and "road:amersfoort--utrecht" in edges
    g.do(0, {"type": "move", "edge": "road:amersfoort--utrecht"})
    g.arrive_and_answer(True)
    assert g.s.players[0].barred == ["amersfoort"]


def test_example_E5_dead_end() -> None:
    g = Game(2).turn(0, "hengelo", 5)
    g.do(0, {"type": "move", "edge": "road:enschede--hengelo"})
    assert g.s.steps == 3
    _correct_and_skip(g)
    assert g.legal() == [{"type": "move", "edge": "road:enschede--hengelo"}]
    g.do(0, {"type": "move", "edge": "road:enschede--hengelo"})
    assert g.s.players[0].pos.at == "hengelo" and g.s.steps == 1


def test_example_E6_afsluitdijk_roll_5() -> None:
    g = Game(2).turn(0, "den-helder", 5)
    g.do(0, {"type": "move", "edge": "dike:den-helder--harlingen"})
    assert g.s.players[0].pos.at == "harlingen" and g.s.steps == 4
    _correct_and_skip(g)
    g.do(0, {"type": "move", "edge": "road:harlingen--leeuwarden"})
    assert g.s.players[0].pos.at == "leeuwarden" and g.s.steps == 1
    g.top_green("K24")  # not K43-K47
    ev = g.arrive_and_answer(True)
    assert "ChanceDrawn" in g.types(ev) and g.s.phase == "PURCHASE"
    g.do(0, {"type": "skip_purchase"})
    ev = g.do(0, {"type": "move", "edge": "road:dokkum--leeuwarden"})
    pos = g.s.players[0].pos
    assert pos.kind == "edge" and pos.heading == "dokkum" and g.types(ev)[-1] == "TurnEnded"
    s = g.edit()
    s.active = 0
    g.do(0, {"type": "roll"})
    g.resolve(1)
    assert g.legal() == [{"type": "move"}]  # CH-12: keep the heading
    g.do(0, {"type": "move"})
    assert g.s.players[0].pos.heading == "dokkum"


def test_example_E7_boat() -> None:
    g = Game(2).turn(0, "den-helder", 3, money=10)
    g.do(0, {"type": "move", "edge": "boat:den-helder--texel"})
    assert g.s.players[0].money == 7 and g.s.players[0].pos.at == "texel" and g.s.steps == 2
    _correct_and_skip(g)
    assert g.s.players[0].money == 10
    g.do(0, {"type": "move", "edge": "boat:texel--vlieland"})
    assert g.s.players[0].money == 8 and g.s.players[0].pos.at == "vlieland"
    assert g.s.phase == "QUESTION"


def test_example_E8_no_money_on_an_island() -> None:
    for correct in (True, False):
        g = Game(2).turn(0, "vlieland", 4, money=0)
        s = g.edit()
        s.phase, s.steps = "AWAIT_ROLL", 0
        g.do(0, {"type": "roll"})
        g.resolve(4)
        assert g.s.phase == "QUESTION" and g.s.question is not None and g.s.question["stuck"]
        ev = g.arrive_and_answer(correct)
        assert "TollPaid" not in g.types(ev)
        if correct:
            assert g.s.players[0].money == 3
            g.do(0, {"type": "skip_purchase"})
            g.do(0, {"type": "move", "edge": "boat:terschelling--vlieland"})
            assert g.s.players[0].money == 1 and g.s.players[0].pos.at == "terschelling"
            assert g.s.phase == "QUESTION"
        else:
            assert g.s.players[0].penalty == 1 and g.s.active == 1
            s = g.edit()
            s.active = 0
            g.do(0, {"type": "roll"})
            g.resolve(2)
            assert g.s.phase == "QUESTION"  # same again next turn


def test_example_E9_final_question() -> None:
    for last in (True, False):
        g = Game(2).turn(0, "kampen", 2)
        g.give_end_cities(0, *(["zwolle"] if last else ["zwolle", "breda"]))
        g.own(0, "zwolle")
        g.do(0, {"type": "move", "edge": "road:kampen--zwolle"})
        assert g.s.question is not None and g.s.question["final"]
        ev = g.arrive_and_answer(True)
        assert g.s.players[0].money == 15 and "zwolle" not in g.s.players[0].end_cities()
        assert g.s.blue[-1] == "zwolle" and g.s.owners["zwolle"] == 0
        if last:
            assert g.types(ev)[-1] == "GameWon" and g.s.phase == "GAME_OVER"
            outcome = E.outcome(g.s)
            assert outcome is not None and outcome.ranks == [1, 2]
        else:
            assert "ChanceDrawn" in g.types(ev) and g.s.phase == "PURCHASE"
    g = Game(2).turn(0, "kampen", 2)
    g.give_end_cities(0, "zwolle", "breda")
    g.own(0, "zwolle")
    g.do(0, {"type": "move", "edge": "road:kampen--zwolle"})
    g.arrive_and_answer(False)
    assert g.s.players[0].penalty == 1 and "zwolle" in g.s.players[0].barred


def test_example_E10_takeover() -> None:
    g = Game(2).turn(0, "tilburg", 3, money=20)
    g.give_end_cities(0, "breda", "assen")
    g.own(1, "breda")
    p2 = g.s.players[1].money
    g.do(0, {"type": "move", "edge": "road:breda--tilburg"})
    assert g.s.players[1].money == p2 + 5 and g.s.players[0].money == 15
    g.arrive_and_answer(True)
    assert g.s.players[0].money == 18
    supply = g.s.players[1].supply
    g.do(0, {"type": "buy_end_city", "city": "breda"})
    assert g.s.players[0].money == 3 and g.s.players[1].money == p2 + 20
    assert g.s.owners["breda"] == 0 and g.s.players[1].supply == supply + 1


def test_example_E11_house_sale() -> None:
    g = Game(2).turn(0, "amsterdam", 3, money=6)
    g.give_end_cities(0, "tilburg", "assen")
    cities = ("hoorn", "alkmaar", "zaandam", "haarlem", "leiden", "gouda", "delft", "breda", "venlo")
    cities += ("emmen", "sneek", "meppel", "kampen", "almelo", "deventer")
    g.own(0, *cities)
    assert g.s.players[0].supply == 0
    g.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    g.arrive_and_answer(True)
    assert g.s.players[0].money == 9
    g.do(0, {"type": "buy_end_city", "city": "tilburg", "sell_house": "hoorn"})
    assert "hoorn" not in g.s.owners and g.s.owners["tilburg"] == 0 and g.s.players[0].money == 2


def test_example_E12_flight() -> None:
    g = Game(2).turn(0, "haarlem", 6, money=7)
    g.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    assert g.s.steps == 4
    g.arrive_and_answer(True)
    assert g.s.players[0].money == 10
    assert {"type": "buy_flight", "to": "airport:maastricht"} in g.legal()
    g.do(0, {"type": "buy_flight", "to": "airport:maastricht"})
    assert g.s.players[0].money == 2 and g.s.steps == 2
    assert g.s.players[0].pos.kind == "airport" and g.s.players[0].pos.at == "airport:maastricht"
    assert g.legal() == [{"type": "move"}]
    g.do(0, {"type": "move"})
    assert g.s.players[0].pos.at == "maastricht" and g.s.steps == 1 and g.s.phase == "QUESTION"
    g2 = Game(2).turn(0, "haarlem", 3, money=7)
    g2.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    g2.arrive_and_answer(True)
    assert not [m for m in g2.legal() if m["type"] == "buy_flight"]  # 1 step left


def test_example_E13_chance_movement() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.own(1, "delft")
    g.do(0, {"type": "move", "edge": "road:delft--den-haag"})
    assert g.s.steps == 2
    g.top_green("K45")
    before = g.s.players[1].money
    ev = g.arrive_and_answer(True)
    moved = [e for e in ev if e["type"] == "Moved"]
    assert moved[0]["route"] == ["den-haag", "delft", "rotterdam"]
    assert g.s.players[1].money == before + 5 and "QuestionStarted" not in g.types(ev)
    assert g.s.players[0].pos.at == "rotterdam" and g.s.phase == "PURCHASE" and g.s.steps == 2
    g.do(0, {"type": "skip_purchase"})
    assert g.s.phase == "MOVE" and any(m.get("edge") == "road:delft--rotterdam" for m in g.legal())


def test_example_E14_no_debts() -> None:
    g = Game(2).turn(0, "amsterdam", 2, money=2)
    g.own(1, "haarlem")
    before = g.s.players[1].money
    ev = g.do(0, {"type": "move", "edge": "road:amsterdam--haarlem"})
    toll = next(e for e in ev if e["type"] == "TollPaid")
    assert toll["amount"] == 2 and toll["due"] == 5
    assert g.s.players[0].money == 0 and g.s.players[1].money == before + 2
    assert g.problems() == []


def test_example_E15_same_yellow_card() -> None:
    g = Game(2).turn(0, "groningen", 3)
    g.top_yellow("assen")
    g.do(0, {"type": "move", "edge": "road:assen--groningen"})
    g.resolve(1)
    assert g.s.question is not None and g.s.question["yellow_city"] == "assen"
    g.resolve(0)
    g.provide(distance_question("assen", "assen"))
    assert g.legal() == [{"type": "answer", "payload": {}}]
    ev = g.do(0, {"type": "answer", "payload": {}})
    assert ev[0]["correct"] is True
