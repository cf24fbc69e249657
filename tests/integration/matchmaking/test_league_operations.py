"""Running a league end to end over real PostgreSQL and Redis (the games service behind the queue,
in-process through its RQ job): a 12-player Swiss league of 3 rounds at two-player tables with a
withdrawal after round 1, a late entry in round 2, a forfeit and an aborted game that is re-seated,
finished with standings and tie-breaks worked out by hand below.

Rules of this league: withdrawal ``not_paired``, forfeit ``win`` (the present player scores a win,
1 point), bye ``win`` (1 point), late entry ``half`` (half a point for each missed round).
Game points at a two-player table: win 1, draw 0.5, loss 0. The test's game results carry scores
of 10 - rank (a win scores 9, a loss 8, a draw 9 each); forfeits have no game score.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from flask import Flask
from redis import Redis

from tests.integration.matchmaking.test_matchmaking_flow import (
    ADMIN,
    bearer,
    deliver,
    finished,
    players,
    pump,
)

pytestmark = pytest.mark.integration

RULES = {"withdrawal": "not_paired", "forfeit": "win", "bye": "win", "late_entry": "half"}
WIN, LOSS, DRAW = [1, 2], [2, 1], [1, 1]


def aborted(game_id: str, seats: list[str]) -> dict[str, Any]:
    return {"message_id": f"{game_id}:GameAborted", "type": "GameAborted",
            "body": {"game_id": game_id, "reason": "the server was restarted", "players": seats,
                     "game_type": "diceduel", "revealed_seed": "00" * 32}}


class Organiser:
    def __init__(self, client: Any, league_id: str, names: dict[str, str]) -> None:
        self.client, self.id, self.names = client, league_id, names

    def post(self, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        r = self.client.post(f"/v1/leagues/{self.id}{path}", json=body, headers=bearer(ADMIN))
        assert r.status_code == status, r.get_json()
        answer: dict[str, Any] = r.get_json()
        return answer

    def tables(self, round_no: int) -> list[dict[str, Any]]:
        league = self.client.get(f"/v1/leagues/{self.id}").get_json()
        return [t for t in league["schedule"][round_no - 1]["tables"] if t["status"] != "replaced"]

    def seating(self, round_no: int) -> list[tuple[str, ...]]:
        return [tuple(self.names[p] for p in t["seats"]) for t in self.tables(round_no)]

    def byes(self, round_no: int) -> list[str]:
        league = self.client.get(f"/v1/leagues/{self.id}").get_json()
        return [self.names[p] for p in league["schedule"][round_no - 1]["byes"]]

    def result(self, queue: Redis, round_no: int, table_no: int, ranks: list[int]) -> None:
        t = self.tables(round_no)[table_no - 1]
        assert t["game_id"] and t["status"] == "created", t
        deliver(queue, finished(t["game_id"], t["seats"], ranks))


def test_swiss_league_with_withdrawal_late_entry_forfeit_and_reseat(app: Flask, pool: Any, redis: Redis) -> None:
    client = app.test_client()
    ids = [p for p, _ in players(pool, 13)]
    names = {p: f"P{k}" for k, p in enumerate(ids, start=1)}
    by_name = {v: k for k, v in names.items()}
    r = client.post("/v1/leagues", json={"name": "Club Swiss", "game_type": "diceduel", "participants": ids[:12],
                                         "rounds": 3, "table_sizes": [2], "format": "swiss", "rules": RULES},
                    headers=bearer(ADMIN))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["rules"] == RULES
    org = Organiser(client, r.get_json()["id"], names)
    pump(pool, redis)

    # ---- round 1: seeding order, 1 v 2, 3 v 4, ... (no history: the better seed has seat 0)
    assert org.seating(1) == [("P1", "P2"), ("P3", "P4"), ("P5", "P6"), ("P7", "P8"), ("P9", "P10"),
                              ("P11", "P12")]
    for table_no, ranks in ((1, WIN), (2, WIN), (3, DRAW), (4, LOSS), (5, WIN)):
        org.result(redis, 1, table_no, ranks)  # P1, P3 win; P5-P6 draw; P8, P9 win
    # P2 (lost at table 1) withdraws before the round is over: from round 2, not paired
    league = org.post("/withdraw", {"player_id": by_name["P2"], "reason": "moved abroad"})
    assert league["withdrawals"][0]["from_round"] == 2 and league["seated_rounds"] == 1
    org.result(redis, 1, 6, WIN)  # P11 wins: round 1 complete, round 2 seated without P2
    pump(pool, redis)

    # ---- round 2: 11 players. Standings after round 1 (points, buchholz, wins, score, seed):
    #   P1 P3 P8 P9 P11: 1 point, buchholz 0 (opponents on 0), 1 win, score 9 -> seed order
    #   P5 P6: 0.5, buchholz 0.5, 1 "win" (a draw ranks both first), score 9
    #   P4 P7 P10 P12: 0, buchholz 1, 0 wins, score 8 -> seed order
    # The lowest placed, P12, gets the bye; the rest pair down the list with no repeats:
    # P1-P3, P8-P9, P11-P5, P6-P4, P7-P10. Seats: who sat nearer the end sits first (P8 was
    # seat 1 in round 1, P9 seat 0; P10 seat 1, P7 seat 0; P6 and P4 both seat 1: seed order).
    assert org.byes(2) == ["P12"]
    assert org.seating(2) == [("P1", "P3"), ("P8", "P9"), ("P11", "P5"), ("P6", "P4"), ("P10", "P7")]
    # P13 enters late during round 2: plays from round 3, missed rounds 1 and 2 at half a point each
    league = org.post("/enter", {"player_id": by_name["P13"]})
    assert league["late_entries"][0]["from_round"] == 3 and league["late_entries"][0]["missed_rounds"] == [1, 2]
    # table 1: P3 does not show -> forfeit: P1 wins (1 point), P3 loses (0)
    forfeited_game = org.tables(2)[0]["game_id"]
    league = org.post("/rounds/2/tables/1/forfeit", {"absent": [by_name["P3"]], "reason": "did not show"})
    assert league["schedule"][1]["tables"][0]["status"] == "forfeited"
    # its game, running in the games service, is aborted through the queue (GameAbortRequested), so a
    # later result neither counts nor gets rated; the GameAborted coming back leaves the forfeit standing
    pump(pool, redis)
    with pool.connection() as conn:
        status, reason = conn.execute(
            "SELECT status, (SELECT payload->>'reason' FROM games.events e WHERE e.stream_id = g.id::text"
            " AND e.type = 'GameAborted') FROM games.games g WHERE g.id::text = %s", (forfeited_game,)).fetchone()
    assert status == "aborted" and "forfeit recorded (did not show)" in reason
    assert org.tables(2)[0]["status"] == "forfeited"
    # table 2: the game is aborted; it counts for nobody until re-seated
    first = org.tables(2)[1]
    deliver(redis, aborted(first["game_id"], first["seats"]))
    assert org.tables(2)[1]["status"] == "aborted"
    org.post("/rounds/2/tables/3/reseat", {"reason": "not aborted"}, status=409)
    league = org.post("/rounds/2/tables/2/reseat", {"reason": "server restart"})
    old, new = [t for t in league["schedule"][1]["tables"] if t["table_no"] == 2]
    assert old["status"] == "replaced" and new["replay_of"] == old["request_id"] and new["seats"] == old["seats"]
    pump(pool, redis)
    assert org.tables(2)[1]["game_id"] not in (None, first["game_id"])
    org.result(redis, 2, 2, LOSS)  # the re-seated game: P9 beats P8
    org.result(redis, 2, 3, WIN)  # P11 beats P5
    org.result(redis, 2, 4, LOSS)  # P4 beats P6
    org.result(redis, 2, 5, DRAW)  # P10-P7 draw: round 2 complete, round 3 seated
    pump(pool, redis)

    # ---- round 3: 12 players (P13 in, P2 out). Points after round 2 and buchholz (opponents' points):
    #   P9  1+1=2   bh P10 .5 + P8 1  = 1.5  wins 2 score 18
    #   P11 1+1=2   bh P12 1 + P5 .5  = 1.5  wins 2 score 18   (P9 before P11 by seed)
    #   P1  1+1=2   bh P2 0 + P3 1    = 1    (forfeit counts for points, wins and buchholz)
    #   P3  1+0=1   bh P4 1 + P1 2    = 3
    #   P8  1+0=1   bh P7 .5 + P9 2   = 2.5
    #   P12 0+1=1   bh P11 2          = 2    (the bye adds a point, no buchholz)
    #   P4  0+1=1   bh P3 1 + P6 .5   = 1.5
    #   P13 .5+.5=1 bh 0                     (late entry: two missed rounds at half a point)
    #   P5  .5+0    bh P6 .5 + P11 2  = 2.5  wins 1 score 17
    #   P10 0+.5    bh P9 2 + P7 .5   = 2.5  wins 1 score 17   (P5 before P10 by seed)
    #   P6  .5+0    bh P5 .5 + P4 1   = 1.5  wins 1 score 17
    #   P7  0+.5    bh P8 1 + P10 .5  = 1.5  wins 1 score 17   (P6 before P7 by seed)
    # Pairing down the list without repeats: P9-P11, P1-P8 (P1 met P3), P3-P12, P4-P13, P5-P10, P6-P7.
    # Seats by mean earlier seat (1 = last): P8 .5 > P1 0; P12 1 > P3 .5; P4 1 > P13 (none: .5).
    assert org.byes(3) == []
    assert org.seating(3) == [("P9", "P11"), ("P8", "P1"), ("P12", "P3"), ("P4", "P13"), ("P5", "P10"),
                              ("P6", "P7")]
    for table_no, ranks in ((1, WIN), (2, DRAW), (3, WIN), (4, LOSS), (5, LOSS), (6, LOSS)):
        org.result(redis, 3, table_no, ranks)  # P9, P12, P13, P10, P7 win; P8-P1 draw
    league = client.get(f"/v1/leagues/{org.id}").get_json()
    assert league["status"] == "completed"

    # ---- final standings, by hand. Points: P9 2+1=3; P1 2+.5=2.5; P11 2+0, P12 1+1, P13 1+1 = 2;
    # P8 1+.5, P10 .5+1, P7 .5+1 = 1.5; P3 1+0, P4 1+0 = 1; P5, P6 .5+0 = .5; P2 0.
    # Buchholz (final points of every opponent in a counted game):
    #   P11: P12 2 + P5 .5 + P9 3 = 5.5 | P12: P11 2 + P3 1 = 3 | P13: P4 1 = 1
    #   P8: P7 1.5 + P9 3 + P1 2.5 = 7 | P10: P9 3 + P7 1.5 + P5 .5 = 5 | P7: P8 1.5 + P10 1.5 + P6 .5 = 3.5
    #   P3: P4 1 + P1 2.5 + P12 2 = 5.5 | P4: P3 1 + P6 .5 + P13 2 = 3.5
    #   P5: P6 .5 + P11 2 + P10 1.5 = 4 | P6: P5 .5 + P4 1 + P7 1.5 = 3
    #   P9: P10 1.5 + P8 1.5 + P11 2 = 5 | P1: P2 0 + P3 1 + P8 1.5 = 2.5 | P2: P1 2.5
    expected = [  # name, points, buchholz, wins, score, games, byes, decided_by
        ("P9", 3.0, 5.0, 3, 27.0, 3, 0, "points"),
        ("P1", 2.5, 2.5, 3, 18.0, 3, 0, "points"),  # the forfeit has no game score: 9 + 9
        ("P11", 2.0, 5.5, 2, 26.0, 3, 0, "buchholz"),
        ("P12", 2.0, 3.0, 1, 17.0, 2, 1, "buchholz"),
        ("P13", 2.0, 1.0, 1, 9.0, 1, 0, "buchholz"),
        ("P8", 1.5, 7.0, 2, 26.0, 3, 0, "buchholz"),
        ("P10", 1.5, 5.0, 2, 26.0, 3, 0, "buchholz"),
        ("P7", 1.5, 3.5, 2, 26.0, 3, 0, "buchholz"),
        ("P3", 1.0, 5.5, 1, 17.0, 3, 0, "buchholz"),
        ("P4", 1.0, 3.5, 1, 25.0, 3, 0, "buchholz"),
        ("P5", 0.5, 4.0, 1, 25.0, 3, 0, "buchholz"),
        ("P6", 0.5, 3.0, 1, 25.0, 3, 0, "buchholz"),
        ("P2", 0.0, 2.5, 0, 8.0, 1, 0, "points"),
    ]
    standings = client.get(f"/v1/leagues/{org.id}/standings").get_json()
    got = [(names[r["player_id"]], r["points"], r["buchholz"], r["wins"], r["score"], r["games"], r["byes"],
            r["decided_by"]) for r in standings["rows"]]
    assert got == expected
    rows = {names[r["player_id"]]: r for r in standings["rows"]}
    assert [r["place"] for r in standings["rows"]] == list(range(1, 14))
    assert rows["P2"]["withdrawn_from_round"] == 2
    assert rows["P13"]["entered_round"] == 3 and rows["P13"]["missed_rounds"] == [1, 2]
    assert rows["P11"]["explanation"].startswith(f"behind {by_name['P1']}: points 2 to 2.5")
    assert f"ahead of {by_name['P12']}: level on points (2), buchholz 5.5 to 3" in rows["P11"]["explanation"]

    # ---- round 2 results export: every table (the replaced one too), seat, score and tie-break
    doc = client.get(f"/v1/leagues/{org.id}/rounds/2/results").get_json()
    assert [(g["table_no"], g["status"], g["counted"]) for g in doc["games"]] == [
        (1, "forfeited", True), (2, "replaced", False), (2, "finished", True), (3, "finished", True),
        (4, "finished", True), (5, "finished", True)]
    assert doc["byes"] == [{"player_id": by_name["P12"], "display_name": "player 11", "points": 1.0}]
    assert [s["points"] for s in doc["games"][0]["seats"]] == [1.0, 0.0]
    after2 = {names[r["player_id"]]: (r["place"], r["points"], r["buchholz"]) for r in doc["standings"]}
    assert after2["P9"] == (1, 2.0, 1.5) and after2["P11"] == (2, 2.0, 1.5) and after2["P1"] == (3, 2.0, 1.0)
    assert after2["P13"][1] == 1.0 and "P2" in after2
    text = client.get(f"/v1/leagues/{org.id}/rounds/2/results?format=csv")
    assert text.mimetype == "text/csv"
    lines = list(csv.DictReader(io.StringIO(text.get_data(as_text=True))))
    assert len(lines) == 6 * 2 + 1  # six tables of two (one replaced) and a bye
    p9 = next(line for line in lines if line["player_id"] == by_name["P9"] and line["status"] == "finished")
    assert (p9["points"], p9["place_after_round"], p9["buchholz"], p9["decided_by"]) == ("1.0", "1", "1.5", "seed")
    trf = client.get(f"/v1/leagues/{org.id}/rounds/3/results?format=trf").get_data(as_text=True)
    p1 = next(line for line in trf.splitlines() if line.startswith("001    1 "))
    # P1: round 1 beat P2 (white), round 2 forfeit win over P3, round 3 drew P8 with black
    assert p1.endswith("   2 w 1     3 w +     8 b =") and " 2.5    2" in p1
    assert client.get(f"/v1/leagues/{org.id}/rounds/4/results").status_code == 404

    # ---- the league's event log tells the story
    events = [e["type"] for e in client.get(f"/v1/leagues/{org.id}/events").get_json()["events"]]
    for kind in ("PlayerWithdrew", "PlayerEntered", "ForfeitRecorded", "GameAbortRecorded", "TableReseated"):
        assert events.count(kind) == 1, kind
    assert events.count("RoundSeated") == 3 and events[-1] == "LeagueCompleted"


def test_organiser_commands_are_checked(app: Flask, pool: Any, redis: Redis) -> None:
    client = app.test_client()
    ids = [p for p, _ in players(pool, 5)]
    bad = client.post("/v1/leagues", json={"name": "x", "game_type": "diceduel", "participants": ids[:4],
                                           "rounds": 2, "table_sizes": [2], "format": "swiss",
                                           "rules": {"bye": "double"}}, headers=bearer(ADMIN))
    assert bad.status_code == 422 and "rules" in bad.get_json()["errors"]
    league = client.post("/v1/leagues", json={"name": "x", "game_type": "diceduel", "participants": ids[:4],
                                              "rounds": 2, "table_sizes": [2], "format": "swiss"},
                         headers=bearer(ADMIN)).get_json()
    assert league["rules"] == {"withdrawal": "not_paired", "forfeit": "win", "bye": "half", "late_entry": "zero"}
    base = f"/v1/leagues/{league['id']}"
    body = {"player_id": ids[0], "reason": "ill"}
    assert client.post(f"{base}/withdraw", json=body).status_code == 401
    assert client.post(f"{base}/withdraw", json={"player_id": ids[4], "reason": "?"},
                       headers=bearer(ADMIN)).status_code == 422  # not in this league
    assert client.post(f"{base}/enter", json={"player_id": ids[0]}, headers=bearer(ADMIN)).status_code == 409
    assert client.post(f"{base}/rounds/1/tables/9/forfeit", json={"absent": [ids[0]], "reason": "x"},
                       headers=bearer(ADMIN)).status_code == 422
    assert client.post(f"{base}/rounds/1/tables/1/forfeit", json={"absent": [ids[3]], "reason": "x"},
                       headers=bearer(ADMIN)).status_code == 422  # not seated at table 1
    pair = {"tables": [[ids[0], ids[2]]], "byes": [], "reason": "test"}
    r = client.post(f"{base}/rounds/2/pair", json=pair, headers=bearer(ADMIN))
    assert r.status_code == 422 and "missing" in r.get_json()["detail"]
    pair = {"tables": [[ids[0], ids[3]], [ids[1], ids[2]]], "reason": "the club asked"}
    assert client.post(f"{base}/rounds/1/pair", json=pair, headers=bearer(ADMIN)).status_code == 409
    league = client.post(f"{base}/rounds/2/pair", json=pair, headers=bearer(ADMIN)).get_json()
    assert league["pairing_overrides"][0]["reason"] == "the club asked"
    pump(pool, redis)
    for t in league["schedule"][0]["tables"]:
        t = client.get(base).get_json()["schedule"][0]["tables"][t["table_no"] - 1]
        deliver(redis, finished(t["game_id"], t["seats"], WIN))
    seated = client.get(base).get_json()["schedule"][1]["tables"]
    assert [t["seats"] for t in seated] == pair["tables"]
    assert all("manual pairing by the organiser (admin): the club asked" in t["reason"] for t in seated)
    assert client.get(f"{base}/rounds/1/results?format=trf").status_code == 200
