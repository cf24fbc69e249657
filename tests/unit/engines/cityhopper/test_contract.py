"""Engine contract: moves documented with examples, options, malformed moves, hidden information,
the question contract (external requests, redaction, self-play provider)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import IllegalMove
from services.games.service_layer.selfplay import seeds_for
from shared.cityhopper.provider import draw_for_request
from shared.cityhopper.questions import sample_pack

from .helpers import E, Game, config


def test_moves_are_the_spec_actions_with_examples() -> None:
    docs = {d.type: d for d in E.moves()}
    assert list(docs) == [
        "roll_start", "roll", "move", "answer", "buy_city", "buy_end_city", "buy_flight",
        "skip_purchase", "fly_with_ticket", "choose_chance",
    ]  # fmt: skip
    for d in docs.values():
        assert d.example["type"] == d.type and d.rules and d.description
    assert E.game_type == "cityhopper" and E.player_counts == (2, 3, 4)
    assert [c.num_players for c in E.variants()] == [2, 3, 4]


def test_options_schema_defaults() -> None:
    schema = E.options_schema()
    prop = schema["properties"]["starting_money"]
    assert prop["default"] == 10 and "R-2" in prop["description"]


@pytest.mark.parametrize(
    "move",
    [
        {},
        {"type": 3},
        {"type": "fly"},
        {"type": "move"},
        {"type": "move", "edge": 5},
        {"type": "move", "edge": "road:nowhere"},
        {"type": "move", "edge": "road:amsterdam--leiden", "extra": 1},
        {"type": "buy_city"},
        {"type": "answer", "payload": {"option": "a"}},
        {"type": "choose_chance", "decline": True},
    ],
)
def test_malformed_or_out_of_phase_moves_raise_illegal_move(move: dict[str, Any]) -> None:
    g = Game(2).turn(0, "amsterdam", 4)
    with pytest.raises(IllegalMove) as info:
        E.decide(g.s, 0, move)
    assert info.value.rule.startswith("CH-") and info.value.message


@pytest.mark.parametrize(
    "payload",
    ["a", {}, {"option": 7}, {"option": "zz"}, {"km": 3}],
)
def test_bad_answer_payloads_raise_CH14(payload: Any) -> None:
    g = Game(2).turn(0, "amsterdam", 4)
    g.do(0, {"type": "move", "edge": "road:amsterdam--zaandam"})
    g.ask(5)
    with pytest.raises(IllegalMove) as info:
        E.decide(g.s, 0, {"type": "answer", "payload": payload})
    assert info.value.rule == "CH-14"


def test_any_well_formed_answer_is_accepted() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.ask(1)
    ev = g.do(0, {"type": "answer", "payload": {"km": "12,5"}})
    assert ev[0]["type"] == "QuestionAnswered" and "km" in ev[0]["reveal"]


def test_question_hidden_until_answered_and_revealed_after() -> None:
    g = Game(2).turn(0, "delft", 4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.ask(5)
    ext = g.log[-1]
    for seat in (None, 0, 1):
        red = E.redact_event(ext, seat, g.s, g.s)
        assert "key" not in red["result"]["question"] and "reveal" not in red["result"]["question"]
        v = E.view(g.s, seat)
        assert "key" not in v["question"]["question"] and "reveal" not in v["question"]["question"]
    assert "key" in E.full_view(g.s)["question"]["question"]
    ev = g.answer(True)
    assert ev[0]["correct"] is True and ev[0]["reveal"]["answer"] == "a"
    assert E.view(g.s, 1)["last_question"]["reveal"]["answer"] == "a"


def test_selfplay_provider_uses_the_question_service_draw() -> None:
    provide = E.selfplay_provider()
    assert provide is not None
    g = Game(2).turn(0, "delft", 4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.resolve(5)
    g.resolve(99)
    ext = E.external_request(g.s)
    assert ext is not None
    result = provide(ext)
    body = {"game_id": "x", "request_no": ext.request_no, **dict(ext.params)}
    expected = draw_for_request(sample_pack().served(), body, question_id=result["question"]["id"])
    assert result["question"] == expected["question"]


def test_hidden_information_in_random_games() -> None:
    """3.3: end cities secret to their holder, deck orders never shown, question keys hidden."""
    provider = E.selfplay_provider()
    for n in (2, 3, 4):
        cfg = config(n)
        seeds = seeds_for(4242 + n)
        chooser = random.Random(n)
        checked = 0
        progress, _ = open_game(E, cfg, seeds, None, provider)
        for _ in range(1500):
            if E.outcome(progress.state) is not None:
                break
            seat = chooser.choice(E.to_move(progress.state))
            move = chooser.choice(E.legal_moves(progress.state, seat))
            before = progress.state
            events = apply_move(E, progress, seat, move, seeds, None, provider)
            after = progress.state
            for viewer in [None, *range(n)]:
                v = E.view(after, viewer)
                assert "deck_order" not in v
                for p in v["players"]:
                    if p["seat"] != viewer:
                        shown = {e["city"] for e in p["end_cities"] if e["city"] is not None}
                        hidden = {c.city for c in after.players[p["seat"]].end_cards if not c.public}
                        known = {c.city for c in after.players[p["seat"]].end_cards if viewer in c.known}
                        assert not (shown & (hidden - known))
                if v["question"] and v["question"]["question"]:
                    assert "key" not in v["question"]["question"]
                for e in events:
                    red = E.redact_event(e, viewer, before, after)
                    if e["type"] == "ChanceResolved" and e["purpose"] in ("blue", "yellow", "green"):
                        assert red["values"] == "hidden"
                    if e["type"] == "EndCityDrawn" and viewer != e["seat"]:
                        assert red["city"] is None
                    if e["type"] == "ExternalResolved":
                        assert "key" not in red["result"]["question"]
                    checked += 1
        assert checked > 0


def test_spectator_sees_no_secret_end_city() -> None:
    g = Game(4)
    v = E.view(g.s, None)
    assert all(e == {"city": None} for p in v["players"] for e in p["end_cities"])
    assert v["decks"] == {"blue": 74, "yellow": 82, "green": 50} and v["num_players"] == 4
    assert E.full_view(g.s)["num_players"] == 4


def test_answer_lists_right_and_wrong_and_selfplay_mostly_right() -> None:
    """legal_moves lists right and wrong answers; selfplay_moves offers wrong ones for one question
    in 64, so random games end (see legal.selfplay_answers)."""
    from shared.cityhopper.grading import grade

    g = Game(2).turn(0, "delft", 4)
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.ask(5)
    assert g.s.question is not None and g.s.question["request_no"] == 0
    q = g.s.question["question"]
    graded = [grade(q, m["payload"]).correct for m in g.legal()]
    assert True in graded and False in graded
    assert E.selfplay_moves(g.s, 0) == g.legal()  # request 0: wrong answers offered too
    g.answer(True)
    g.do(0, {"type": "skip_purchase"})
    g.do(0, {"type": "move", "edge": "road:delft--rotterdam"})
    g.ask(1)
    q = g.s.question["question"]
    assert all(grade(q, m["payload"]).correct for m in E.selfplay_moves(g.s, 0))
    assert not all(grade(q, m["payload"]).correct for m in g.legal())
