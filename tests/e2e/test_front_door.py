"""The HTTP front door of every service (issue 14 items 6 and 8, issue 15 item 1): hostile input is a 4xx
problem+json naming the field, never a 500; rate limits answer 429 with Retry-After; CORS answers a real
preflight and a real cross-origin request for an allowed origin only."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import requests.adapters

from shared.config import RateLimits
from tests.e2e.conftest import ADMIN, Server, service_app, settings_for
from tests.e2e.test_api_conformance import SERVICES, make_app

pytestmark = pytest.mark.e2e
HUGE = str(2**63)
PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert response.content_type == PROBLEM
    body: dict[str, Any] = response.get_json()
    assert body["status"] == status
    if field is not None:
        assert field in (body.get("errors") or {}), body
    return body


@pytest.fixture
def apps(database_url: str, redis_url: str, closing: Any) -> dict[str, Any]:
    return {name: closing(make_app(name, database_url, redis_url)) for name in SERVICES}


# -- item 6: hostile input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "path"),
    [("games", "/v1/games"), ("matchmaking", "/v1/leagues"), ("ratings", "/v1/pools/klapper%2F4/leaderboard")],
)
def test_offset_beyond_64_bits_is_422_naming_offset(apps: dict[str, Any], service: str, path: str) -> None:
    client = apps[service].test_client()
    headers = {"Authorization": f"Bearer {ADMIN}"}
    for bad in (HUGE, "-" + HUGE):
        assert_problem(client.get(f"{path}?offset={bad}", headers=headers), 422, "offset")
    assert_problem(client.get(f"{path}?limit={HUGE}", headers=headers), 422, "limit")
    assert client.get(f"{path}?offset=0", headers=headers).status_code == 200


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def _unbounded_integers(spec: dict[str, Any], schema: dict[str, Any], where: str, seen: set[str]) -> list[str]:
    if "$ref" in schema:
        if schema["$ref"] in seen:
            return []
        seen = seen | {schema["$ref"]}
    schema = _resolve(spec, schema)
    found: list[str] = []
    if schema.get("type") == "integer" and not ("minimum" in schema and "maximum" in schema):
        found.append(where)
    for name, sub in (schema.get("properties") or {}).items():
        if not sub.get("readOnly"):
            found += _unbounded_integers(spec, sub, f"{where}.{name}", seen)
    if isinstance(schema.get("items"), dict):
        found += _unbounded_integers(spec, schema["items"], f"{where}[]", seen)
    return found


@pytest.mark.parametrize("service", SERVICES)
def test_openapi_states_a_minimum_and_maximum_for_every_integer_a_client_sends(
    apps: dict[str, Any], service: str
) -> None:
    spec = apps[service].test_client().get("/openapi.json").get_json()
    unbounded: list[str] = []
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            if not isinstance(op, dict):
                continue
            for param in [*operations.get("parameters", []), *op.get("parameters", [])]:
                if isinstance(param, dict) and "schema" in param:
                    unbounded += _unbounded_integers(spec, param["schema"], f"{method} {path} {param['name']}", set())
            for media in (op.get("requestBody") or {}).get("content", {}).values():
                if "schema" in media:
                    unbounded += _unbounded_integers(spec, media["schema"], f"{method} {path} body", set())
    assert unbounded == [], "\n".join(unbounded)


@pytest.mark.parametrize("service", SERVICES)
def test_deeply_nested_json_is_400_naming_the_body(apps: dict[str, Any], service: str) -> None:
    client = apps[service].test_client()
    spec = client.get("/openapi.json").get_json()
    posts = [p for p, ops in spec["paths"].items() if "post" in ops and "{" not in p]
    assert posts
    for body in ("[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000):
        response = client.post(posts[0], data=body, content_type="application/json",
                               headers={"Authorization": f"Bearer {ADMIN}"})
        problem = assert_problem(response, 400, "body")
        assert "nest" in problem["detail"]


def test_moderately_nested_json_still_reaches_the_schema(apps: dict[str, Any]) -> None:
    """A depth the limit allows is parsed and judged by the schema as before (not refused at the door)."""
    client = apps["games"].test_client()
    response = client.post("/v1/players", json={"display_name": [[[[["x"]]]]]})
    assert_problem(response, 422, "display_name")


def test_lone_surrogate_in_a_display_name_is_422_naming_the_field(apps: dict[str, Any]) -> None:
    client = apps["games"].test_client()
    for raw in ('{"display_name": "\\ud800"}', '{"display_name": "a\\udfff"}', '{"display_name": "\\ud83dx"}'):
        response = client.post("/v1/players", data=raw, content_type="application/json")
        assert_problem(response, 422, "display_name")
    # a proper surrogate pair is an ordinary character (U+1F600) and is accepted
    ok = client.post("/v1/players", data='{"display_name": "Anneke \\ud83d\\ude00"}', content_type="application/json")
    assert ok.status_code == 201, ok.get_data(as_text=True)
    assert ok.get_json()["display_name"] == "Anneke \U0001f600"
    # an escaped backslash followed by the letters u d 8 0 0 is not a surrogate at all
    ok = client.post("/v1/players", data='{"display_name": "x\\\\ud800"}', content_type="application/json")
    assert ok.status_code == 201, ok.get_data(as_text=True)


def test_numbers_an_event_could_not_keep_exactly_are_422_naming_the_field_and_change_nothing(
        apps: dict[str, Any]) -> None:
    """A move's numbers go into its MoveMade event, whose hash covers them: 1e20 would come back from
    PostgreSQL's jsonb as an integer and -0.0 as 0 (the game's audit would fail for good), 1e400 is
    infinity (not JSON), 2**70 would come back as a float. Refused at the door, in every service."""
    client = apps["games"].test_client()
    admin = {"Authorization": f"Bearer {ADMIN}"}
    players = [client.post("/v1/players", json={"display_name": f"Getal {k}"}).get_json() for k in range(2)]
    game = client.post("/v1/games", json={"game_type": "diceduel", "seats": [p["id"] for p in players]},
                       headers=admin).get_json()
    token = players[game["to_move"][0]]["token"]
    url = f"/v1/games/{game['id']}/moves"
    for number in ("1e400", "1e20", "-1.5e16", "-0.0", str(2**70)):
        for key in ({}, {"Idempotency-Key": uuid.uuid4().hex}):
            raw = f'{{"move": {{"type": "roll", "x": {number}}}, "expected_version": {game["version"]}}}'
            response = client.post(url, data=raw, content_type="application/json",
                                   headers={"Authorization": f"Bearer {token}"} | key)
            assert_problem(response, 422, "move.x")
    assert client.get(f"/v1/games/{game['id']}", headers=admin).get_json()["version"] == game["version"]
    for service in ("matchmaking", "ratings"):  # the same door in every service
        response = apps[service].test_client().post("/v1/leagues" if service == "matchmaking" else "/v1/predict",
                                                     data='{"n": [1, 2, 1e999]}', content_type="application/json")
        assert_problem(response, 422, "n.2")
    # numbers an event keeps exactly pass: a legal move with an ordinary float goes in and the audit holds
    raw = f'{{"move": {{"type": "roll", "x": 1234.5e-3}}, "expected_version": {game["version"]}}}'
    made = client.post(url, data=raw, content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    assert made.status_code == 201, made.get_data(as_text=True)
    assert client.get(f"/v1/games/{game['id']}/audit").get_json()["ok"] is True


def test_expected_version_must_be_a_json_integer(apps: dict[str, Any]) -> None:
    client = apps["games"].test_client()
    player = client.post("/v1/players", json={"display_name": "Kees"}).get_json()
    headers = {"Authorization": f"Bearer {player['token']}", "Idempotency-Key": uuid.uuid4().hex}
    url = f"/v1/games/{uuid.uuid4()}/moves"
    for bad in (1.5, "1", True, 2**63):
        response = client.post(url, json={"move": {"type": "roll"}, "expected_version": bad}, headers=headers)
        assert_problem(response, 422, "expected_version")
    # a proper integer passes the schema and reaches the game lookup (there is no such game)
    response = client.post(url, json={"move": {"type": "roll"}, "expected_version": 1}, headers=headers)
    assert response.status_code == 404, response.get_data(as_text=True)


def test_a_pack_csv_with_a_200_kb_field_is_422_naming_the_line_and_imports_nothing(apps: dict[str, Any]) -> None:
    client = apps["questions"].test_client()
    admin = {"Authorization": f"Bearer {ADMIN}"}
    packs = client.get("/v1/packs", headers=admin).get_json()["packs"]
    pack = packs[0]
    version = pack["versions"][-1]["version"]
    exported = client.get(f"/v1/packs/{pack['id']}/versions/{version}?format=csv", headers=admin)
    assert exported.status_code == 200
    rows = list(csv.reader(io.StringIO(exported.get_data(as_text=True))))
    prompt = rows[0].index("prompt")
    rows[2][prompt] = "x" * 200_000
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    response = client.post("/v1/packs", data=out.getvalue().encode(), content_type="text/csv", headers=admin)
    body = assert_problem(response, 422)
    assert any(r.get("line") == 3 for r in body["rows"]), body
    after = client.get(f"/v1/packs/{pack['id']}", headers=admin).get_json()
    assert [v["version"] for v in after["versions"]] == [v["version"] for v in pack["versions"]]


# -- item 8: rate limits ------------------------------------------------------------------------------


def limited_app(service: str, database_url: str, redis_url: str, gateway_secret: str | None = None,
                **limits: str) -> Any:
    settings = dataclasses.replace(
        settings_for(database_url, redis_url), rate_limits=dataclasses.replace(RateLimits(), enabled=True, **limits),
        gateway_secret=gateway_secret,
    )
    return service_app(service, settings)


def limited_games_app(database_url: str, redis_url: str, **limits: str) -> Any:
    return limited_app("games", database_url, redis_url, **limits)


def assert_429(response: Any) -> None:
    assert_problem(response, 429)
    assert int(response.headers["Retry-After"]) >= 1


def test_registrations_beyond_the_limit_are_429_with_retry_after(database_url: str, redis_url: str,
                                                                 closing: Any) -> None:
    client = closing(limited_games_app(database_url, redis_url, register="3/minute")).test_client()
    for n in range(3):
        assert client.post("/v1/players", json={"display_name": f"p{n}"}).status_code == 201
    assert_429(client.post("/v1/players", json={"display_name": "one too many"}))


def test_repeated_bad_tokens_are_429_but_a_good_token_from_elsewhere_is_served(
    database_url: str, redis_url: str, closing: Any
) -> None:
    client = closing(limited_games_app(database_url, redis_url, token_failures="5/minute")).test_client()
    player = client.post("/v1/players", json={"display_name": "Els"}).get_json()
    bad = {"Authorization": "Bearer not-a-token"}
    for _ in range(5):
        assert_problem(client.get(f"/v1/games/{uuid.uuid4()}", headers=bad), 401, "Authorization")
    assert_429(client.get(f"/v1/games/{uuid.uuid4()}", headers=bad))
    other = {"Authorization": f"Bearer {player['token']}"}
    ok = client.get("/v1/games", headers=other, environ_base={"REMOTE_ADDR": "10.9.8.7"})
    assert ok.status_code == 200


def test_moves_beyond_the_per_player_limit_are_429_and_other_players_still_move(
    database_url: str, redis_url: str, closing: Any
) -> None:
    client = closing(limited_games_app(database_url, redis_url, moves="2/minute")).test_client()
    tokens = [client.post("/v1/players", json={"display_name": n}).get_json()["token"] for n in ("A", "B")]
    url = f"/v1/games/{uuid.uuid4()}/moves"

    def move(token: str) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
        return client.post(url, json={"move": {"type": "roll"}, "expected_version": 1}, headers=headers)

    assert [move(tokens[0]).status_code for _ in range(2)] == [404, 404]
    assert_429(move(tokens[0]))
    assert move(tokens[1]).status_code == 404  # the limit is per player, not per address


WRITES = ("post", "put", "patch", "delete")


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in ("get", *WRITES):
                yield path, method, op


def reads_the_token(method: str, op: dict[str, Any]) -> bool:
    """A bearer-authenticated operation, or a write (every write's role-token check reads a token sent,
    unless the write only computes an answer: ``x-reads-only``)."""
    writes = method in WRITES and not op.get("x-reads-only")
    return writes or any("bearerAuth" in s for s in op.get("security") or [])


@pytest.mark.parametrize("service", SERVICES)
def test_rate_limited_endpoints_document_429(apps: dict[str, Any], service: str) -> None:
    """Registration and moves have limits of their own; a token failure can be a 429 on every operation
    that reads the bearer token, in every service: each documents 429 (problem+json with Retry-After), and
    each bearer-authenticated one 401."""
    spec = apps[service].test_client().get("/openapi.json").get_json()
    if service == "games":
        assert "429" in spec["paths"]["/v1/players"]["post"]["responses"]
        assert "429" in spec["paths"]["/v1/games/{game_id}/moves"]["post"]["responses"]
    missing = []
    for path, method, op in operations(spec):
        if not reads_the_token(method, op):
            continue
        answer = op["responses"].get("429")
        if answer is None or PROBLEM not in answer.get("content", {}) or "Retry-After" not in answer.get("headers", {}):
            missing.append(f"{method.upper()} {path}: 429")
        if op.get("security") and "401" not in op["responses"]:
            missing.append(f"{method.upper()} {path}: 401")
    assert missing == [], missing


def _filled(path: str) -> str:
    """A path template with a value in every parameter (ints for the int converters' names)."""
    ints = {"seat", "version", "round_no", "table_no"}
    return re.sub(r"\{([^}]+)\}", lambda m: "1" if m.group(1) in ints else str(uuid.uuid4()), path)


@pytest.mark.parametrize("service", ["games", "matchmaking", "questions"])  # ratings reads no token
def test_every_operation_that_answers_a_token_failure_429_documents_it(
    database_url: str, redis_url: str, service: str, closing: Any
) -> None:
    """Once one address is over its token-failure limit, every operation that looks at the token answers it
    429: each of them is documented with 429 (the documentation is checked against the service itself)."""
    client = closing(limited_app(service, database_url, redis_url, token_failures="1/minute")).test_client()
    spec = client.get("/openapi.json").get_json()
    bad = {"Authorization": "Bearer not-a-token"}
    first = next((p, m) for p, m, op in operations(spec) if op.get("security") and m == "get")
    assert_problem(client.get(_filled(first[0]), headers=bad), 401, "Authorization")
    limited, undocumented = [], []
    for path, method, op in operations(spec):
        if path.endswith(("/stream", "/tick")):
            continue  # a live stream stays open; the matching tick is admin-only and does work
        got = client.open(_filled(path), method=method.upper(), headers=bad, json={} if method in WRITES else None)
        if got.status_code == 429:
            limited.append(f"{method.upper()} {path}")
            assert_429(got)
            if "429" not in op["responses"]:
                undocumented.append(f"{method.upper()} {path}")
    print(f"{service}: {len(limited)} operations answered 429 to a bad token once over the limit")
    assert limited and undocumented == [], undocumented


@pytest.mark.parametrize(
    ("service", "method", "path"),
    [("matchmaking", "POST", "/v1/tickets"), ("questions", "GET", "/v1/packs"), ("questions", "POST", "/v1/packs")],
)
def test_token_failures_are_429_on_the_other_services_too(
    database_url: str, redis_url: str, service: str, method: str, path: str, closing: Any
) -> None:
    client = closing(limited_app(service, database_url, redis_url, token_failures="3/minute")).test_client()
    bad = {"Authorization": "Bearer not-a-token"}
    answers = [client.open(path, method=method, headers=bad, json={} if method == "POST" else None)
               for _ in range(4)]
    assert all(a.status_code != 429 for a in answers[:3]), [a.status_code for a in answers]
    assert_429(answers[3])
    # another address is not limited by this one's failures
    other = client.open(path, method=method, headers=bad, json={} if method == "POST" else None,
                        environ_base={"REMOTE_ADDR": "10.9.8.7"})
    assert other.status_code != 429


def session_from(address: str) -> requests.Session:
    """A client whose connections leave from ``address`` (any 127.x.y.z reaches a server on 127.0.0.1)."""
    session = requests.Session()

    class FromAddress(requests.adapters.HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            kwargs["source_address"] = (address, 0)
            super().init_poolmanager(*args, **kwargs)

    session.mount("http://", FromAddress())
    return session


SECRET = "the-runs-gateway-secret"


@pytest.fixture
def gateway_and_games(database_url: str, redis_url: str) -> Iterator[tuple[str, str]]:
    """`make run`'s arrangement: the games service (2 registrations a minute per client address) behind the
    gateway, which proves itself to the services with the run's gateway secret."""
    from services.gateway.app import create_gateway_app

    games = Server(limited_app("games", database_url, redis_url, gateway_secret=SECRET, register="2/minute"))
    gateway = Server(create_gateway_app({"games": games.url}, forward_secret=SECRET))
    yield gateway.url, games.url
    gateway.stop()
    games.stop()


def test_clients_at_two_addresses_through_the_gateway_have_a_bucket_each(gateway_and_games: tuple[str, str]) -> None:
    gateway, _ = gateway_and_games
    anna, bram = session_from("127.0.0.2"), session_from("127.0.0.3")

    def register(client: requests.Session, name: str) -> requests.Response:
        return client.post(gateway + "/games/v1/players", json={"display_name": name}, timeout=10)

    assert [register(anna, f"anna{n}").status_code for n in range(2)] == [201, 201]
    over = register(anna, "anna2")
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1, over.text
    assert register(bram, "bram").status_code == 201, "a client at another address shares the first one's bucket"


def test_a_forged_x_forwarded_for_without_the_gateway_secret_is_ignored(gateway_and_games: tuple[str, str]) -> None:
    """Straight to the service's own port, X-Forwarded-For is the client's word: not trusted, so a client
    cannot get a fresh bucket per request by naming another address (nor with a guessed secret)."""
    _, games = gateway_and_games
    client = session_from("127.0.0.4")
    codes = [client.post(games + "/v1/players", json={"display_name": f"f{n}"}, timeout=10,
                         headers={"X-Forwarded-For": f"10.0.0.{n}", "X-Speltafel-Gateway": "a guess"}).status_code
             for n in range(3)]
    assert codes == [201, 201, 429]


# -- issue 15 item 1: CORS --------------------------------------------------------------------------------


@pytest.fixture
def games_server(database_url: str, redis_url: str) -> Iterator[str]:
    settings = dataclasses.replace(
        settings_for(database_url, redis_url), cors_origins=("https://play.speltafel.example", "http://localhost:*")
    )
    from services.games.bootstrap import create_app
    from services.games.engines.registry import default_registry

    server = Server(create_app(settings, default_registry("tests.support.diceduel:DiceDuel")))
    yield server.url
    server.stop()


@pytest.mark.parametrize("origin", ["https://play.speltafel.example", "http://localhost:5173"])
def test_cors_preflight_and_cross_origin_request_for_an_allowed_origin(games_server: str, origin: str) -> None:
    preflight = requests.options(
        games_server + "/v1/players",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, idempotency-key, authorization",
        },
        timeout=10,
    )
    assert preflight.status_code in (200, 204)
    assert preflight.headers["Access-Control-Allow-Origin"] == origin
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert {"idempotency-key", "authorization", "content-type"} <= {h.strip() for h in allowed.split(",")}

    created = requests.post(games_server + "/v1/players", json={"display_name": "Web"}, headers={"Origin": origin},
                            timeout=10)
    assert created.status_code == 201
    assert created.headers["Access-Control-Allow-Origin"] == origin
    exposed = {h.strip().lower() for h in created.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after", "x-request-id"} <= exposed
    # error answers carry the CORS headers too, so a browser client can read the problem
    problem = requests.get(games_server + "/v1/games/nope", headers={"Origin": origin}, timeout=10)
    assert problem.status_code == 404
    assert problem.headers["Access-Control-Allow-Origin"] == origin


def test_cors_headers_are_absent_for_a_disallowed_origin(games_server: str) -> None:
    for origin in ("https://evil.example", "http://localhost.evil.example", "https://play.speltafel.example.evil"):
        preflight = requests.options(
            games_server + "/v1/players",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
            timeout=10,
        )
        assert "Access-Control-Allow-Origin" not in preflight.headers
        response = requests.get(games_server + "/healthz", headers={"Origin": origin}, timeout=10)
        assert response.status_code == 200
        assert "Access-Control-Allow-Origin" not in response.headers
