"""The question bank over HTTP (issue item 5): import JSON/CSV, per-row errors, versions, hashes, export."""

from __future__ import annotations

import copy
import json

import pytest
from flask.testing import FlaskClient

from shared.auth import PlayerDirectory
from shared.cityhopper.questions import content_hash, import_csv, import_json, sample_pack
from tests.integration.questions.conftest import AUTH, club_pack

pytestmark = pytest.mark.integration


def post_json(client: FlaskClient, data: object, headers: dict[str, str] = AUTH):  # type: ignore[no-untyped-def]
    return client.post(
        "/v1/packs", data=json.dumps(data), headers={**headers, "Content-Type": "application/json"}
    )


def post_csv(client: FlaskClient, text: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/v1/packs", data=text.encode(), headers={**AUTH, "Content-Type": "text/csv; charset=utf-8"}
    )


def test_sample_pack_is_loaded_on_first_start_and_marked(client: FlaskClient) -> None:
    r = client.get("/v1/packs", headers=AUTH)
    assert r.status_code == 200
    (entry,) = r.json["packs"]
    assert entry["id"] == "speltafel-sample" and entry["sample"] is True
    assert entry["latest_version"] == 1 and entry["source_format"] == "bundled"
    assert entry["hash"] == sample_pack().content_hash
    assert entry["question_count"] == len(sample_pack().questions)


def test_bank_endpoints_need_the_admin_token(client: FlaskClient, app) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/v1/packs")
    assert r.status_code == 401 and r.mimetype == "application/problem+json"
    assert r.headers["WWW-Authenticate"] == "Bearer"
    assert client.get("/v1/packs", headers={"Authorization": "Bearer nope"}).status_code == 401
    _, token = PlayerDirectory(app.extensions["questions_service"].uow.pool).register("Speler")
    r = post_json(client, club_pack(), {"Authorization": f"Bearer {token}"})
    assert r.status_code == 403 and "Authorization" in r.json["errors"]


def test_import_json_versions_and_hash(client: FlaskClient) -> None:
    r = post_json(client, club_pack())
    assert r.status_code == 201, r.json
    first = r.json
    assert first["id"] == "club-test" and first["version"] == 1 and first["declared_version"] == "2024-05"
    assert first["question_count"] == 5 and first["sample"] is False and first["source_format"] == "json"
    assert first["hash"] == content_hash(club_pack()["questions"])

    again = post_json(client, club_pack()).json
    assert again["version"] == 2 and again["hash"] == first["hash"]

    changed = club_pack()
    changed["questions"][3]["info"] = "Gesticht in 1575 door Willem van Oranje."
    third = post_json(client, changed).json
    assert third["version"] == 3 and third["hash"] != first["hash"]

    detail = client.get("/v1/packs/club-test", headers=AUTH).json
    assert detail["latest_version"] == 3 and detail["hash"] == third["hash"]
    assert [v["version"] for v in detail["versions"]] == [1, 2, 3]
    assert client.get("/v1/packs/nope", headers=AUTH).status_code == 404


def test_pack_with_one_bad_row_imports_nothing_and_names_the_row(client: FlaskClient) -> None:
    bad = club_pack()
    bad["questions"][2]["city"] = "atlantis"
    r = post_json(client, bad)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    body = r.json
    assert body["rows"] == [{"row": 2, "field": "city", "message": "unknown place id 'atlantis'"}]
    assert body["errors"] == {"questions[2].city": ["unknown place id 'atlantis'"]}
    assert "row" in body["detail"] and "2" in body["detail"] and "nothing was imported" in body["detail"]
    ids = [p["id"] for p in client.get("/v1/packs", headers=AUTH).json["packs"]]
    assert ids == ["speltafel-sample"]


def test_every_bad_row_is_listed(client: FlaskClient) -> None:
    bad = club_pack()
    bad["questions"][0]["answer"] = "a"  # haarlem's photo, not leiden's
    bad["questions"][1]["options"][0]["media"] = None  # mayor without photo
    bad["questions"][4]["colours"] = ["rood"]  # one colour only
    del bad["pack"]["licence"]
    r = post_json(client, bad)
    assert r.status_code == 422
    where = {(e["row"], e["field"]) for e in r.json["rows"]}
    assert (0, "answer") in where and (1, "options[0].media") in where and (4, "colours") in where
    assert (None, "pack.licence") in where
    assert "pack.licence" in r.json["errors"] and "questions[4].colours" in r.json["errors"]


def test_csv_bad_row_names_its_line(client: FlaskClient) -> None:
    good = post_json(client, club_pack()).json
    text = client.get("/v1/packs/club-test/versions/1?format=csv", headers=AUTH).get_data(as_text=True)
    lines = text.splitlines()
    lines[3] = lines[3].replace(",INHABITANTS,leiden,", ",INHABITANTS,nergenshuizen,")
    r = post_csv(client, "\n".join(lines) + "\n")
    assert r.status_code == 422
    (row,) = r.json["rows"]
    assert row["row"] == 2 and row["line"] == 4 and row["field"] == "city"
    detail = client.get("/v1/packs/club-test", headers=AUTH).json
    assert detail["latest_version"] == 1 and detail["hash"] == good["hash"]


def test_export_then_import_gives_the_same_hash(client: FlaskClient) -> None:
    original = post_json(client, club_pack()).json
    exported_json = client.get("/v1/packs/club-test/versions/1", headers=AUTH)
    assert exported_json.status_code == 200 and exported_json.mimetype == "application/json"
    assert "club-test-v1.json" in exported_json.headers["Content-Disposition"]
    exported_csv = client.get("/v1/packs/club-test/versions/1?format=csv", headers=AUTH)
    assert exported_csv.status_code == 200 and exported_csv.mimetype == "text/csv"
    csv_text = exported_csv.get_data(as_text=True)
    assert import_csv(csv_text).content_hash == original["hash"]
    assert import_json(exported_json.get_data(as_text=True)).content_hash == original["hash"]

    via_json = post_json(client, exported_json.json).json
    via_csv = post_csv(client, csv_text).json
    assert (via_json["version"], via_csv["version"]) == (2, 3)
    assert via_json["hash"] == via_csv["hash"] == original["hash"]
    assert via_csv["source_format"] == "csv"
    # the sample pack round-trips too
    sample_csv = client.get("/v1/packs/speltafel-sample/versions/1?format=csv", headers=AUTH).get_data(
        as_text=True
    )
    assert post_csv(client, sample_csv).json["hash"] == sample_pack().content_hash


def test_media_urls_and_files_keep_licence_and_attribution(client: FlaskClient) -> None:
    post_json(client, club_pack())
    data = client.get("/v1/packs/club-test/versions/1", headers=AUTH).json
    options = data["questions"][0]["options"]
    assert options[2]["media"] == {
        "src": "photos/delft.jpg",
        "licence": "CC-BY-4.0",
        "attribution": "Foto delft",
    }
    bad = club_pack()
    bad["questions"][0]["options"][1]["media"] = {
        "src": "http://example.org/x.jpg",
        "licence": "",
        "attribution": "x",
    }
    rows = post_json(client, bad).json["rows"]
    assert {r["field"] for r in rows} == {"options[1].media.src", "options[1].media.licence"}


@pytest.mark.parametrize(
    ("body", "content_type", "status", "field"),
    [
        (b"{not json", "application/json", 422, "json"),
        (b"id;city\n", "text/csv", 422, "csv"),
        (b"hello", "text/plain", 415, "Content-Type"),
        (b"\xff\xfe\x00", "application/json", 400, "body"),  # NUL bytes are refused at the door
        (b"[]", "application/json", 422, "pack"),
    ],
)
def test_malformed_packs_are_4xx_naming_the_field(
    client: FlaskClient, body: bytes, content_type: str, status: int, field: str
) -> None:
    r = client.post("/v1/packs", data=body, headers={**AUTH, "Content-Type": content_type})
    assert r.status_code == status and r.mimetype == "application/problem+json"
    assert field in r.json["errors"], r.json


def test_export_unknown_version_and_bad_format(client: FlaskClient) -> None:
    assert client.get("/v1/packs/speltafel-sample/versions/9", headers=AUTH).status_code == 404
    r = client.get("/v1/packs/speltafel-sample/versions/1?format=xml", headers=AUTH)
    assert r.status_code == 422 and "format" in r.json["errors"]


def test_new_version_replaces_the_old_one_in_the_bank(client: FlaskClient) -> None:
    post_json(client, club_pack())
    changed = copy.deepcopy(club_pack())
    changed["questions"][3]["prompt"] = "Nieuwe vraag over Leiden?"
    post_json(client, changed)
    r = client.post("/v1/questions/draw", json={"city": "leiden", "category": "FACTS", "selector": 0})
    q = r.json["question"]
    assert q["prompt"] == "Nieuwe vraag over Leiden?" and q["pack"]["version"] == "2"
