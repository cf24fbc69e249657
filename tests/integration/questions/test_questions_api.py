"""Places, distance, map, drawing and grading over HTTP (issue items 2, 3, 4, 6; spec section 4)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from flask.testing import FlaskClient

from shared.cityhopper.roads import EstimateBackend
from tests.integration.questions.conftest import AUTH, club_pack

pytestmark = pytest.mark.integration

SVG = "{http://www.w3.org/2000/svg}"


def draw(client: FlaskClient, **body: Any) -> dict[str, Any]:
    r = client.post("/v1/questions/draw", json=body)
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def answer(client: FlaskClient, question_id: str, given: Any) -> Any:
    return client.post(f"/v1/questions/{question_id}/answer", json={"answer": given})


def load_club_pack(client: FlaskClient) -> None:
    r = client.post("/v1/packs", data=json.dumps(club_pack()), headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 201


def test_cities(client: FlaskClient) -> None:
    r = client.get("/v1/cities")
    assert r.status_code == 200 and len(r.json) == 82
    leeuwarden = client.get("/v1/cities/leeuwarden").json
    assert leeuwarden["name"] == "Leeuwarden" and leeuwarden["province"] == "Friesland"
    r = client.get("/v1/cities/atlantis")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"


def test_distance_is_an_estimate_with_route_and_bounds(client: FlaskClient) -> None:
    r = client.get("/v1/distance?from=amsterdam&to=leiden")
    assert r.status_code == 200
    d = r.json
    expected = EstimateBackend().route("amsterdam", "leiden")
    assert d["km"] == expected.km and d["from"] == "amsterdam" and d["to"] == "leiden"
    assert d["lower_km"] == expected.lower_km and d["upper_km"] == expected.upper_km
    assert d["place_ids"][0] == "amsterdam" and d["place_ids"][-1] == "leiden"
    assert d["geometry"]["type"] == "LineString" and len(d["geometry"]["coordinates"]) >= 2
    assert d["estimate"] is True and d["method"].startswith("estimate") and "estimate" in d["note"].lower()
    back = client.get("/v1/distance?from=leiden&to=amsterdam").json
    assert back["km"] == d["km"] and back["place_ids"] == d["place_ids"][::-1]
    same = client.get("/v1/distance?from=assen&to=assen").json
    assert (same["km"], same["lower_km"], same["upper_km"]) == (0.0, 0.0, 0.0)


def test_distance_over_the_ferry(client: FlaskClient) -> None:
    d = client.get("/v1/distance?from=den-helder&to=texel").json
    assert any(e.startswith("boat:") for e in d["edge_ids"])


@pytest.mark.parametrize(
    ("query", "field"),
    [("from=atlantis&to=leiden", "from"), ("from=leiden&to=", "to"), ("to=leiden", "from"), ("from=leiden&to=atlantis", "to")],
)
def test_distance_bad_input_names_the_field(client: FlaskClient, query: str, field: str) -> None:
    for path in ("/v1/distance", "/v1/distance/map.svg"):
        r = client.get(f"{path}?{query}")
        assert r.status_code == 422 and r.mimetype == "application/problem+json"
        assert field in r.json["errors"], r.json


def test_map_svg_renders_the_route(client: FlaskClient) -> None:
    r = client.get("/v1/distance/map.svg?from=groningen&to=maastricht")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    root = ET.fromstring(r.data)
    assert root.tag == f"{SVG}svg"
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "Groningen" in texts and "Maastricht" in texts
    assert list(root.iter(f"{SVG}polyline")) or list(root.iter(f"{SVG}path"))


def test_drawn_question_has_no_key_and_is_stored(client: FlaskClient) -> None:
    d = draw(client, city="groningen", category=5, selector=0)
    q = d["question"]
    assert "key" not in q and "reveal" not in q
    assert d["generated"] is False and q["pack"]["id"] == "speltafel-sample"
    state = client.get(f"/v1/questions/{d['question_id']}").json
    assert state["answered"] is False and "reveal" not in state and state["question"] == q
    result = answer(client, d["question_id"], {"option": "true"}).json
    assert result["correct"] is True and result["reveal"]["answer"] == "true"
    state = client.get(f"/v1/questions/{d['question_id']}").json
    assert state["answered"] is True and state["correct"] is True and state["reveal"] == result["reveal"]


def test_answering_twice_is_a_conflict(client: FlaskClient) -> None:
    d = draw(client, city="groningen", category="FACTS", selector=0)
    assert answer(client, d["question_id"], {"option": "false"}).json["correct"] is False
    r = answer(client, d["question_id"], {"option": "true"})
    assert r.status_code == 409 and r.mimetype == "application/problem+json"


# -- grading of every category (spec section 4 table) --------------------------------------------


def test_road_distance_15_percent_bound_is_inclusive(client: FlaskClient) -> None:
    route = EstimateBackend().route("amsterdam", "leiden")
    for guess, correct in [
        (route.lower_km, True),
        (route.upper_km, True),
        (route.km, True),
        (round(route.lower_km - 0.01, 2), False),
        (round(route.upper_km + 0.01, 2), False),
    ]:
        d = draw(client, city="amsterdam", category=1, yellow_city="leiden")
        assert d["question"]["format"] == "distance" and d["question"]["yellow_city"] == "leiden"
        r = answer(client, d["question_id"], {"km": guess}).json
        assert r["correct"] is correct, (guess, r)
        assert r["reveal"]["km"] == route.km
        assert (r["reveal"]["lower_km"], r["reveal"]["upper_km"]) == (route.lower_km, route.upper_km)
        assert r["reveal"]["route"]["geometry"]["type"] == "LineString"


def test_road_distance_to_the_same_city_is_correct_at_once(client: FlaskClient) -> None:
    d = draw(client, city="assen", category="ROAD_DISTANCE", yellow_city="assen")
    r = client.post(f"/v1/questions/{d['question_id']}/answer", json={}).json
    assert r["correct"] is True and r["reveal"]["km"] == 0


def shown_id(drawn: dict[str, Any], text: str = "", src: str = "") -> str:
    """The id under which the drawn question shows the option with this text or photo (options
    come in a drawn order, relabelled a, b, c ... by position)."""
    for o in drawn["question"]["options"]:
        if (text and o["text"] == text) or (src and (o["media"] or {}).get("src", "").endswith(src)):
            return str(o["id"])
    raise AssertionError(f"no option {text or src!r}")


def test_city_photos_and_mayor(client: FlaskClient) -> None:
    load_club_pack(client)
    photos = draw(client, city="leiden", category=2)
    assert photos["question"]["category"] == "CITY_PHOTOS" and photos["generated"] is False
    assert all("city" not in o and o["media"]["licence"] for o in photos["question"]["options"])
    leiden = shown_id(photos, src="leiden.jpg")
    r = answer(client, photos["question_id"], {"option": leiden}).json
    assert r["correct"] is True and r["reveal"]["cities"] == {
        shown_id(photos, src=f"{c}.jpg"): c for c in ("haarlem", "leiden", "delft")
    }
    assert r["reveal"]["source_id"] == "photos:leiden"
    mayor = draw(client, city="leiden", category=6)
    r = answer(client, mayor["question_id"], {"option": shown_id(mayor, text="Burgemeester Twee")}).json
    assert r["correct"] is False and r["reveal"]["cities"][shown_id(mayor, text="Burgemeester Een")] == "leiden"


def test_inhabitants_from_the_bank_and_generated(client: FlaskClient) -> None:
    load_club_pack(client)
    banked = draw(client, city="leiden", category=3)
    right = shown_id(banked, text="ca. 125.000")
    assert answer(client, banked["question_id"], {"option": right}).json["reveal"]["population"] == 125000
    generated = draw(client, city="zwolle", category=3, selector=1)
    assert generated["generated"] is True and generated["question"]["category"] == "INHABITANTS"
    assert generated["question"]["id"] == generated["question_id"]  # opaque: names no city or pattern
    wrong = next(o["id"] for o in generated["question"]["options"])
    r = answer(client, generated["question_id"], {"option": wrong}).json
    assert r["correct"] is (wrong == r["reveal"]["answer"]) and r["reveal"]["population"] > 0
    assert r["reveal"]["source_id"] == "gen:inhabitants:zwolle"  # shown after the answer


def test_flag_needs_two_different_colours_of_the_flag(client: FlaskClient) -> None:
    d = draw(client, city="amsterdam", category=4)
    assert d["question"]["format"] == "colours" and "red" in d["question"]["palette"]
    assert answer(client, d["question_id"], {"colours": ["rood", "zwart"]}).json["correct"] is True
    d = draw(client, city="amsterdam", category=4)
    assert answer(client, d["question_id"], {"colours": ["red", "blue"]}).json["correct"] is False
    d = draw(client, city="amsterdam", category=4)
    r = answer(client, d["question_id"], {"colours": ["red", "red"]})
    assert r.status_code == 422 and "colours" in r.json["errors"]


def test_facts_choice(client: FlaskClient) -> None:
    load_club_pack(client)
    d = draw(client, city="leiden", category="facts")
    assert d["question"]["format"] == "choice"
    r = answer(client, d["question_id"], {"option": shown_id(d, text="Leiden")}).json
    assert r["correct"] is True and "1575" in r["reveal"]["info"]


def test_no_bank_question_says_it_is_generated(client: FlaskClient) -> None:
    d = draw(client, city="breda", category="MAYOR", selector=3)
    assert d["generated"] is True and d["requested_category"] == "MAYOR"
    assert "no MAYOR question for breda" in d["reason"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"city": "atlantis", "category": 1}, "city"),
        ({"city": "breda", "category": 7}, "category"),
        ({"city": "breda", "category": "weather"}, "category"),
        ({"city": "breda", "category": True}, "category"),
        ({"city": "breda", "category": 1, "yellow_city": "nowhere"}, "yellow_city"),
        ({"city": "breda", "category": 1, "selector": "x"}, "selector"),
        ({"category": 1}, "city"),
        ({"city": "breda", "category": 1, "extra": 1}, "extra"),
    ],
)
def test_draw_bad_input_names_the_field(client: FlaskClient, body: dict[str, Any], field: str) -> None:
    r = client.post("/v1/questions/draw", json=body)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert field in r.json["errors"], r.json


@pytest.mark.parametrize(
    ("given", "field"),
    [({"km": "veel"}, "km"), ({}, "km"), ({"km": -3}, "km"), ("42", "answer")],
)
def test_ungradable_distance_answers_name_the_field(client: FlaskClient, given: Any, field: str) -> None:
    d = draw(client, city="amsterdam", category=1, yellow_city="leiden")
    r = answer(client, d["question_id"], given)
    assert r.status_code == 422 and field in r.json["errors"], r.json
    assert answer(client, d["question_id"], {"km": 40}).status_code == 200  # still answerable


def test_unknown_question_is_404(client: FlaskClient) -> None:
    for qid in ("00000000-0000-0000-0000-000000000000", "not-a-uuid"):
        assert client.get(f"/v1/questions/{qid}").status_code == 404
        assert answer(client, qid, {"option": "a"}).status_code == 404


def test_openapi_documents_every_endpoint(client: FlaskClient) -> None:
    doc = client.get("/openapi.json").json
    paths = doc["paths"]
    for path in (
        "/v1/cities",
        "/v1/cities/{place_id}",
        "/v1/distance",
        "/v1/distance/map.svg",
        "/v1/packs",
        "/v1/packs/{pack_id}",
        "/v1/packs/{pack_id}/versions/{version}",
        "/v1/questions/draw",
        "/v1/questions/{question_id}",
        "/v1/questions/{question_id}/answer",
    ):
        assert path in paths, path
    assert "estimate" in paths["/v1/distance"]["get"]["description"].lower()
    assert set(paths["/v1/packs"]["post"]["requestBody"]["content"]) == {"application/json", "text/csv"}
    assert "image/svg+xml" in paths["/v1/distance/map.svg"]["get"]["responses"]["200"]["content"]
