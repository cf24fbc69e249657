"""Question bank (section 4: content comes from organisers' packs), generated questions and draw."""

import copy
import json
from typing import Any

import pytest

from shared.cityhopper import catalog
from shared.cityhopper.errors import PackError, QuestionError, UnknownPlaceError
from shared.cityhopper.grading import CATEGORIES, grade, public_question
from shared.cityhopper.questions import (
    CSV_COLUMNS,
    QuestionPack,
    draw,
    export_csv,
    export_json,
    import_csv,
    import_json,
    inhabitants_question,
    load_pack,
    province_question,
    sample_pack,
    validate_pack,
)
from shared.cityhopper.roads import EstimateBackend

PHOTO = {"src": "photos/leiden.jpg", "licence": "CC BY-SA 4.0", "attribution": "Jan Jansen"}


def photo(name: str) -> dict[str, str]:
    return {**PHOTO, "src": f"https://example.org/{name}.jpg"}


def pack_data() -> dict[str, Any]:
    return {
        "pack": {
            "id": "test-pack",
            "version": "2",
            "title": 'Test, with "quotes" and, commas',
            "licence": "CC BY 4.0",
            "attribution": "Testers",
            "sample": False,
        },
        "questions": [
            {
                "id": "photos:leiden:1",
                "category": "CITY_PHOTOS",
                "city": "leiden",
                "prompt": "Welke foto is Leiden?",
                "options": [
                    {"id": "p1", "city": "delft", "media": photo("delft")},
                    {"id": "p2", "city": "leiden", "media": dict(PHOTO)},
                    {"id": "p3", "city": "gouda", "media": photo("gouda")},
                ],
                "answer": "p2",
            },
            {
                "id": "mayor:leiden:1",
                "category": "MAYOR",
                "city": "leiden",
                "prompt": "Wie is de burgemeester van Leiden?",
                "options": [
                    {"id": "m1", "text": "A. Een", "city": "leiden", "media": photo("m1")},
                    {"id": "m2", "text": "B. Twee", "city": "delft", "media": photo("m2")},
                    {"id": "m3", "text": "C. Drie", "city": "gouda", "media": photo("m3")},
                ],
                "answer": "m1",
            },
            {
                "id": "inh:leiden:1",
                "category": "INHABITANTS",
                "city": "leiden",
                "prompt": "Hoeveel inwoners heeft Leiden?",
                "options": [
                    {"id": "a", "text": "ca. 60.000"},
                    {"id": "b", "text": "ca. 125.000"},
                    {"id": "c", "text": "ca. 250.000"},
                ],
                "answer": "b",
                "number": 125000,
                "info": "Multi-line\ninfo, with a comma",
            },
            {
                "id": "facts:leiden:1",
                "category": "FACTS",
                "city": "leiden",
                "prompt": "Stelling: Leiden ligt in Zuid-Holland.",
                "answer": "true",
                "info": "Klopt.",
            },
            {
                "id": "flag:leiden:1",
                "category": "FLAG",
                "city": "leiden",
                "prompt": "Twee kleuren?",
                "colours": ["Rood", "wit"],
                "media": {"src": "flags/leiden.svg", "licence": "public domain", "attribution": "Leiden"},
            },
        ],
    }


# --- validation ---------------------------------------------------------------------------------


def test_valid_pack_has_no_errors() -> None:
    assert validate_pack(pack_data()) == []


@pytest.mark.parametrize(
    ("mutate", "row", "field"),
    [
        (lambda d: d["questions"][2].update(city="atlantis"), 2, "city"),
        (lambda d: d["questions"][0].update(answer="p1"), 0, "answer"),  # answer is not A's photo
        (lambda d: d["questions"][0]["options"][2].update(city="delft"), 0, "options"),
        (lambda d: d["questions"][0]["options"][1]["media"].pop("licence"), 0, "options[1].media.licence"),
        (lambda d: d["questions"][1]["options"].pop(), 1, "options"),
        (lambda d: d["questions"][2].pop("number"), 2, "number"),
        (lambda d: d["questions"][3].update(info=""), 3, "info"),
        (lambda d: d["questions"][4].update(colours=["red", "rood"]), 4, "colours"),
        (lambda d: d["questions"][4].update(colours=["red", "plaid"]), 4, "colours"),
        (lambda d: d["questions"][4]["media"].update(src="../../etc/passwd"), 4, "media.src"),
        (lambda d: d["questions"][4]["media"].update(src="http://insecure.example/x.png"), 4, "media.src"),
        (lambda d: d["questions"][3].update(id="inh:leiden:1"), 3, "id"),
        (lambda d: d["questions"][3].update(category="ROAD_DISTANCE"), 3, "category"),
        (lambda d: d["questions"][3].update(colour="red"), 3, "colour"),
        (lambda d: d["pack"].update(sample="yes"), None, "pack.sample"),
        (lambda d: d["pack"].update(licence=""), None, "pack.licence"),
    ],
)
def test_validation_names_the_bad_row_and_field(mutate: Any, row: int | None, field: str) -> None:
    data = pack_data()
    mutate(data)
    errors = validate_pack(data)
    assert errors, "expected an error"
    assert any(e.row == row and e.field == field for e in errors), errors
    with pytest.raises(PackError) as err:
        load_pack(data)  # a pack with any error imports nothing
    assert err.value.errors == errors


def test_every_error_is_reported_not_just_the_first() -> None:
    data = pack_data()
    data["questions"][0]["city"] = "nowhere"
    data["questions"][4]["colours"] = ["red"]
    rows = {e.row for e in validate_pack(data)}
    assert {0, 4} <= rows


def test_not_a_pack() -> None:
    assert validate_pack([])[0].field == "pack"
    assert validate_pack({"pack": pack_data()["pack"], "questions": []})[0].field == "questions"
    with pytest.raises(PackError):
        import_json("{not json")


# --- hashing and exchange -------------------------------------------------------------------------


def test_json_round_trip_keeps_the_hash() -> None:
    pack = load_pack(pack_data())
    again = import_json(export_json(pack))
    assert again.content_hash == pack.content_hash and len(pack.content_hash) == 64
    assert again == pack


def test_csv_round_trip_keeps_the_hash() -> None:
    pack = load_pack(pack_data())
    text = export_csv(pack)
    assert text.splitlines()[0].split(",") == list(CSV_COLUMNS)
    again = import_csv(text)
    assert again.content_hash == pack.content_hash
    assert again.header() == pack.header()
    assert import_csv(export_csv(sample_pack())).content_hash == sample_pack().content_hash


def test_csv_errors_name_the_line() -> None:
    text = export_csv(load_pack(pack_data()))
    broken = text.replace("inh:leiden:1,INHABITANTS,leiden", "inh:leiden:1,INHABITANTS,atlantis")
    with pytest.raises(PackError) as err:
        import_csv(broken)
    assert [(e.row, e.field) for e in err.value.errors] == [(2, "city")]


def test_hash_is_canonical() -> None:
    data = pack_data()
    base = load_pack(data).content_hash
    shuffled = copy.deepcopy(data)
    shuffled["questions"].reverse()  # order of rows does not matter
    shuffled["questions"][0]["colours"] = ["red", "white"]  # aliases normalise
    assert load_pack(shuffled).content_hash == base
    changed = copy.deepcopy(data)
    changed["questions"][3]["info"] = "Klopt!"
    assert load_pack(changed).content_hash != base


# --- sample pack ----------------------------------------------------------------------------------


def test_sample_pack_is_valid_and_marked_sample() -> None:
    pack = sample_pack()
    assert pack.sample is True
    raw = json.loads(export_json(pack))
    assert validate_pack(raw) == []
    cats = {q["category"] for q in pack.questions}
    assert cats == {"FACTS", "FLAG"}
    amsterdam = next(q for q in pack.served() if q["id"] == "flag:amsterdam")
    assert grade(amsterdam, {"colours": ["red", "white"]}).correct
    assert amsterdam["pack"] == pack.ref()


def test_sample_capital_facts_match_the_data() -> None:
    for q in sample_pack().served():
        if q["id"].endswith(":capital"):
            assert catalog.place(q["city"]).is_capital
            assert grade(q, {"option": "true"}).correct


# --- served questions ------------------------------------------------------------------------------


def test_served_photo_question_hides_the_cities() -> None:
    served = {q["id"]: q for q in load_pack(pack_data()).served()}
    photos = served["photos:leiden:1"]
    assert all("city" not in o for o in public_question(photos)["options"])
    g = grade(photos, {"option": "p2"})
    assert g.correct and g.reveal["cities"] == {"p1": "delft", "p2": "leiden", "p3": "gouda"}
    facts = served["facts:leiden:1"]
    assert [o["id"] for o in facts["options"]] == ["true", "false"]
    assert grade(served["inh:leiden:1"], {"option": "b"}).reveal["population"] == 125000
    assert grade(served["flag:leiden:1"], {"colours": ["white", "red"]}).correct


# --- generated questions ----------------------------------------------------------------------------


def test_generated_inhabitants_options() -> None:
    positions = set()
    for selector in range(3):
        q = inhabitants_question("groningen", selector)  # population 244807
        texts = [o["text"] for o in q["options"]]
        values = [int(t.removeprefix("ca. ").replace(".", "")) for t in texts]
        assert values == sorted(values) and len(set(values)) == 3
        assert "ca. 240.000" in texts
        positions.add(q["key"]["option"])
        assert grade(q, {"option": q["key"]["option"]}).reveal["population"] == 244807
    assert positions == {"a", "b", "c"}  # the right answer is not always in the middle
    assert inhabitants_question("groningen", 7) == inhabitants_question("groningen", 7)


def test_inhabitants_for_every_place_with_a_population() -> None:
    for p in catalog.places():
        if p.population is not None:
            for s in range(3):
                assert len({o["text"] for o in inhabitants_question(p, s)["options"]}) == 3
    with pytest.raises(QuestionError):
        inhabitants_question("lauwersoog", 0)


def test_province_question() -> None:
    q = province_question("lauwersoog", 5)
    assert grade(q, {"option": q["key"]["option"]}).reveal["info"].endswith("Groningen.")
    assert len({o["text"] for o in q["options"]}) == 3
    assert len({tuple(o["text"] for o in province_question("texel", s)["options"]) for s in range(40)}) > 5


# --- draw -------------------------------------------------------------------------------------------

BANK = load_pack(pack_data()).served() + sample_pack().served()


def test_draw_picks_from_the_bank_by_selector() -> None:
    extra = dict(BANK[3], id="facts:leiden:2")
    bank = [*BANK, extra]
    picks = [draw(bank, "leiden", "FACTS", s).question["id"] for s in range(4)]
    assert picks == ["facts:leiden:1", "facts:leiden:2", "facts:leiden:1", "facts:leiden:2"]
    first = draw(bank, "leiden", "FACTS", 1)
    assert not first.generated and first.reason.startswith("bank")
    assert draw(list(reversed(bank)), "leiden", "FACTS", 1) == first  # caller's order is irrelevant


def test_draw_is_deterministic() -> None:
    for category in CATEGORIES:
        for s in (0, 1, 2, 99, -3):
            a = draw(BANK, "utrecht", category, s, yellow_city="leiden")
            b = draw(BANK, "utrecht", category, s, yellow_city="leiden")
            assert a == b


def test_draw_falls_back_to_inhabitants() -> None:
    r = draw(BANK, "zwolle", "MAYOR", 4)
    assert r.generated and r.question["category"] == "INHABITANTS"
    assert "no MAYOR question for zwolle" in r.reason and r.requested_category == "MAYOR"


def test_draw_road_distance_is_generated() -> None:
    routing = EstimateBackend()
    r = draw(BANK, "amsterdam", "ROAD_DISTANCE", 0, yellow_city="leiden", routing=routing)
    assert r.generated and r.question["yellow_city"] == "leiden"
    assert r.question["key"]["km"] == routing.route("amsterdam", "leiden").km
    same = draw(BANK, "assen", "ROAD_DISTANCE", 0, yellow_city="assen")  # E15
    assert same.question["key"]["km"] == 0.0 and grade(same.question, {}).correct


def test_draw_never_fails_for_lack_of_content() -> None:
    # Lauwersoog has no population: distance with a yellow card, else the province question.
    assert draw([], "lauwersoog", "FLAG", 0, yellow_city="dokkum").question["category"] == "ROAD_DISTANCE"
    r = draw([], "lauwersoog", "FLAG", 0)
    assert r.question["id"].startswith("gen:province:") and "no population" in r.reason
    r = draw([], "leiden", "ROAD_DISTANCE", 0)  # no yellow card given
    assert r.generated and "no yellow city" in r.reason
    for p in catalog.places():
        for category in CATEGORIES:
            q = draw([], p.id, category, 3).question
            assert q["city"] == p.id and "key" in q


def test_draw_rejects_unknown_ids() -> None:
    with pytest.raises(UnknownPlaceError):
        draw(BANK, "atlantis", "FACTS", 0)
    with pytest.raises(UnknownPlaceError):
        draw(BANK, "leiden", "ROAD_DISTANCE", 0, yellow_city="atlantis")


def test_pack_model_groups_by_city() -> None:
    pack: QuestionPack = load_pack(pack_data())
    grouped = pack.by_city()
    assert set(grouped["leiden"]) == {"CITY_PHOTOS", "MAYOR", "INHABITANTS", "FACTS", "FLAG"}
