"""Running a league end to end over real PostgreSQL and Redis (the games service behind the queue,
in-process through its RQ job), every organiser command with a minted organiser token (not the admin's):

* a 12-player Swiss league of 3 rounds at two-player tables: a withdrawal after round 1 (its player's
  round-2 game, already seated, is forfeited at once; from round 3 not paired), a late entry during
  round 2 (plays from round 3; the two missed rounds score the ``late_entry`` rule), a forfeit (a player
  does not show) and an aborted game that is re-seated, finished with standings and tie-breaks worked out
  by hand below;
* a table the games service refuses is re-seated with new seats and corrected options (checked at the
  door) and another voided, so the round completes;
* a league with a clock: a seat runs out of time (the games service's timeout, with explicit times) and
  the league scores the game by its ``forfeit`` rule with no organiser action.

Rules of the Swiss league: withdrawal ``not_paired``, forfeit ``win`` (the present player scores a win,
1 point), bye ``win`` (1 point), late entry ``half`` (half a point for each missed round).
Game points at a two-player table: win 1, draw 0.5, loss 0. The test's game results carry scores
of 10 - rank (a win scores 9, a loss 8, a draw 9 each); forfeits have no game score.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from redis import Redis

from tests.integration.matchmaking.test_matchmaking_flow import (
    ADMIN,
    bearer,
    deliver,
    finished,
    players,
    pump,
)
from tests.integration.matchmaking.test_roles_and_door import (  # noqa: F401  (fixtures)
    games,
    league_body,
    mint,
    next_version_worker,
)

pytestmark = pytest.mark.integration

RULES = {"withdrawal": "not_paired", "forfeit": "win", "bye": "win", "late_entry": "half", "void_table": "no_score"}
WIN, LOSS, DRAW = [1, 2], [2, 1], [1, 1]


def aborted(game_id: str, seats: list[str]) -> dict[str, Any]:
    return {"message_id": f"{game_id}:GameAborted", "type": "GameAborted",
            "body": {"game_id": game_id, "reason": "the server was restarted", "players": seats,
                     "game_type": "diceduel", "revealed_seed": "00" * 32}}


class Organiser:
    def __init__(self, client: Any, league_id: str, names: dict[str, str], token: str) -> None:
        self.client, self.id, self.names, self.token = client, league_id, names, token

    def post(self, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
        r = self.client.post(f"/v1/leagues/{self.id}{path}", json=body, headers=bearer(self.token))
        assert r.status_code == status, r.get_json()
        answer: dict[str, Any] = r.get_json()
        return answer

    def league(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.client.get(f"/v1/leagues/{self.id}").get_json()
        return answer

    def tables(self, round_no: int) -> list[dict[str, Any]]:
        return [t for t in self.league()["schedule"][round_no - 1]["tables"] if t["status"] != "replaced"]

    def seating(self, round_no: int) -> list[tuple[str, ...]]:
        return [tuple(self.names[p] for p in t["seats"]) for t in self.tables(round_no)]

    def byes(self, round_no: int) -> list[str]:
        return [self.names[p] for p in self.league()["schedule"][round_no - 1]["byes"]]

    def result(self, queue: Redis, round_no: int, table_no: int, ranks: list[int]) -> None:
        t = self.tables(round_no)[table_no - 1]
        assert t["game_id"] and t["status"] == "created", t
        deliver(queue, finished(t["game_id"], t["seats"], ranks))


def game_status(pool: Any, game_id: str) -> tuple[str, str | None]:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT status, (SELECT payload->>'reason' FROM games.events e WHERE e.stream_id = g.id::text"
            " AND e.type = 'GameAborted') FROM games.games g WHERE g.id::text = %s", (game_id,)).fetchone()
    return row[0], row[1]


def test_swiss_league_with_withdrawal_late_entry_forfeit_and_reseat(
    app: Flask, pool: Any, redis: Redis, games: FlaskClient  # noqa: F811
) -> None:
    client = app.test_client()
    ids = [p for p, _ in players(pool, 13)]
    names = {p: f"P{k}" for k, p in enumerate(ids, start=1)}
    by_name = {v: k for k, v in names.items()}
    token = mint(games, "organiser", "Club Swiss")["token"]
    r = client.post("/v1/leagues", json={"name": "Club Swiss", "game_type": "diceduel", "participants": ids[:12],
                                         "rounds": 3, "table_sizes": [2], "format": "swiss", "rules": RULES},
                    headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["rules"] == RULES
    org = Organiser(client, r.get_json()["id"], names, token)
    pump(pool, redis)

    # ---- round 1: seeding order, 1 v 2, 3 v 4, ... (no history: the better seed has seat 0)
    assert org.seating(1) == [("P1", "P2"), ("P3", "P4"), ("P5", "P6"), ("P7", "P8"), ("P9", "P10"),
                              ("P11", "P12")]
    for table_no, ranks in ((1, WIN), (2, WIN), (3, DRAW), (4, LOSS), (5, WIN), (6, WIN)):
        org.result(redis, 1, table_no, ranks)  # P1, P3 win; P5-P6 draw; P8, P9, P11 win
    pump(pool, redis)
    league = org.league()
    assert league["schedule"][0]["complete"] and league["seated_rounds"] == 2  # round 2 seated at once

    # ---- round 2: 12 players. Standings after round 1 (points, buchholz, wins, score):
    #   P1 P3 P8 P9 P11: 1, 0 (opponents on 0), 1, 9 -> seed order
    #   P5 P6: 0.5, 0.5, 1 (a draw ranks both first), 9
    #   P2 P4 P7 P10 P12: 0, 1, 0, 8 -> seed order
    # Paired down the list with no repeats: P1-P3, P8-P9, P11-P5, P6-P2, P4-P7, P10-P12. Seats: who sat
    # nearer the end sits first (P8 seat 1 in round 1, P9 seat 0; P4 seat 1, P7 seat 0); on equal seats
    # the higher placed first (P1/P3, P11/P5 both seat 0; P6/P2, P10/P12 both seat 1).
    assert org.byes(2) == []
    assert org.seating(2) == [("P1", "P3"), ("P8", "P9"), ("P11", "P5"), ("P6", "P2"), ("P4", "P7"),
                              ("P10", "P12")]

    # P2 withdraws after round 1 has finished: round 2 is seated, so his round-2 game is forfeited at once
    # (P6 scores the forfeit win, 1 point) and its running game aborted; from round 3 he is not paired
    p2_game = org.tables(2)[3]["game_id"]
    league = org.post("/withdraw", {"player_id": by_name["P2"], "reason": "moved abroad"})
    assert league["withdrawals"][0]["from_round"] == 3 and league["withdrawals"][0]["by"] != "admin"
    t4 = league["schedule"][1]["tables"][3]
    assert (t4["status"], t4["absent"], t4["points"]) == ("forfeited", [by_name["P2"]], [1.0, 0.0])
    # P13 enters late, during round 2: plays from round 3; rounds 1 and 2 missed at half a point each
    league = org.post("/enter", {"player_id": by_name["P13"]})
    entry = league["late_entries"][0]
    assert (entry["from_round"], entry["missed_rounds"], entry["points_per_missed_round"]) == (3, [1, 2], 0.5)
    # table 1: P3 does not show -> forfeit: P1 wins (1 point), P3 loses (0)
    forfeited_game = org.tables(2)[0]["game_id"]
    league = org.post("/rounds/2/tables/1/forfeit", {"absent": [by_name["P3"]], "reason": "did not show"})
    assert league["schedule"][1]["tables"][0]["status"] == "forfeited"
    # both forfeited games, running in the games service, are aborted through the queue
    # (GameAbortRequested), so a later result neither counts nor gets rated; the GameAborted coming back
    # leaves the forfeits standing
    pump(pool, redis)
    status, reason = game_status(pool, forfeited_game)
    assert status == "aborted" and reason is not None and "forfeit recorded (did not show)" in reason
    status, reason = game_status(pool, p2_game)
    assert status == "aborted" and reason is not None and "withdrawn: moved abroad" in reason
    assert [t["status"] for t in org.tables(2)][0::3] == ["forfeited", "forfeited"]
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
    org.result(redis, 2, 5, WIN)  # P4 beats P7
    org.result(redis, 2, 6, DRAW)  # P10-P12 draw: round 2 complete, round 3 seated
    pump(pool, redis)

    # ---- round 3: 12 players (P13 in, P2 out: not paired). After round 2 (points, buchholz = the
    # opponents' points now, wins, score):
    #   P9  1+1=2     bh P10 .5 + P8 1  = 1.5  wins 2  score 18
    #   P11 1+1=2     bh P12 .5 + P5 .5 = 1    wins 2  score 18
    #   P1  1+1=2     bh P2 0 + P3 1    = 1    wins 2  score 9   (a forfeit win: points, win, no score)
    #   P6  .5+1=1.5  bh P5 .5 + P2 0   = .5
    #   P3  1+0=1     bh P4 1 + P1 2    = 3
    #   P8  1+0=1     bh P7 0 + P9 2    = 2
    #   P4  0+1=1     bh P3 1 + P7 0    = 1
    #   P13 .5+.5=1   bh 0                     (late entry: two missed rounds at half a point, no games)
    #   P5  .5+0=.5   bh P6 1.5 + P11 2 = 3.5
    #   P10 0+.5=.5   bh P9 2 + P12 .5  = 2.5  wins 1 score 17
    #   P12 0+.5=.5   bh P11 2 + P10 .5 = 2.5  wins 1 score 17  (P10 before P12 by seed)
    #   P7  0+0=0
    # Order: P9, P11 (score 18 to 9), P1, P6, P3, P8, P4, P13, P5, P10, P12, P7; paired down the list
    # with no repeats: P9-P11, P1-P6, P3-P8, P4-P13, P5-P10, P12-P7. Seats by mean earlier seat (1 = last,
    # no games .5): P9 .5 > P11 0; P6 .5 > P1 0; P3 = P8 = .5, P4 = P13 = .5, P5 = P10 = .5 (the higher
    # placed first); P12 1 > P7 .5.
    assert org.byes(3) == []
    assert org.seating(3) == [("P9", "P11"), ("P6", "P1"), ("P3", "P8"), ("P4", "P13"), ("P5", "P10"),
                              ("P12", "P7")]
    for table_no, ranks in ((1, WIN), (2, LOSS), (3, DRAW), (4, LOSS), (5, WIN), (6, LOSS)):
        org.result(redis, 3, table_no, ranks)  # P9, P1, P13, P5, P7 win; P3-P8 draw
    assert org.league()["status"] == "completed"

    # ---- final standings, by hand. Points: P9 2+1 = 3; P1 2+1 = 3; P11 2+0, P13 1+1 = 2;
    # P8 1+.5, P3 1+.5, P6 1.5+0, P5 .5+1 = 1.5; P4 1+0, P7 0+1 = 1; P10, P12 .5+0 = .5; P2 0.
    # Buchholz (final points of every opponent in a counted game, forfeits included):
    #   P9: P10 .5 + P8 1.5 + P11 2 = 4     | P1: P2 0 + P3 1.5 + P6 1.5 = 3
    #   P11: P12 .5 + P5 1.5 + P9 3 = 5     | P13: P4 1 = 1
    #   P8: P7 1 + P9 3 + P3 1.5 = 5.5      | P3: P4 1 + P1 3 + P8 1.5 = 5.5
    #   P6: P5 1.5 + P2 0 + P1 3 = 4.5      | P5: P6 1.5 + P11 2 + P10 .5 = 4
    #   P4: P3 1.5 + P7 1 + P13 2 = 4.5     | P7: P8 1.5 + P4 1 + P12 .5 = 3
    #   P10: P9 3 + P12 .5 + P5 1.5 = 5     | P12: P11 2 + P10 .5 + P7 1 = 3.5
    #   P2: P1 3 + P6 1.5 = 4.5
    # Wins (ranked first; a draw ranks both first; forfeit wins count): P9 3, P1 3, P11 2, P13 1, P8 2
    # (r1, the r3 draw), P3 2 (r1, the draw), P6 2 (the r1 draw, the forfeit), P5 2, P4 1, P7 1, P10 1,
    # P12 1, P2 0. Score (finished games only, 10 - rank): P8 9+8+9 = 26 against P3 9+9 = 18 (his
    # forfeit has none), which decides P8 over P3 after points, buchholz and wins are level.
    expected = [  # name, points, buchholz, wins, score, games, byes, decided_by
        ("P9", 3.0, 4.0, 3, 27.0, 3, 0, "buchholz"),
        ("P1", 3.0, 3.0, 3, 18.0, 3, 0, "buchholz"),
        ("P11", 2.0, 5.0, 2, 26.0, 3, 0, "buchholz"),
        ("P13", 2.0, 1.0, 1, 9.0, 1, 0, "buchholz"),
        ("P8", 1.5, 5.5, 2, 26.0, 3, 0, "score"),
        ("P3", 1.5, 5.5, 2, 18.0, 3, 0, "score"),
        ("P6", 1.5, 4.5, 2, 17.0, 3, 0, "buchholz"),
        ("P5", 1.5, 4.0, 2, 26.0, 3, 0, "buchholz"),
        ("P4", 1.0, 4.5, 1, 25.0, 3, 0, "buchholz"),
        ("P7", 1.0, 3.0, 1, 25.0, 3, 0, "buchholz"),
        ("P10", 0.5, 5.0, 1, 25.0, 3, 0, "buchholz"),
        ("P12", 0.5, 3.5, 1, 25.0, 3, 0, "buchholz"),
        ("P2", 0.0, 4.5, 0, 8.0, 2, 0, "points"),
    ]
    standings = client.get(f"/v1/leagues/{org.id}/standings").get_json()
    got = [(names[r["player_id"]], r["points"], r["buchholz"], r["wins"], r["score"], r["games"], r["byes"],
            r["decided_by"]) for r in standings["rows"]]
    assert got == expected
    rows = {names[r["player_id"]]: r for r in standings["rows"]}
    assert [r["place"] for r in standings["rows"]] == list(range(1, 14))
    assert rows["P2"]["withdrawn_from_round"] == 3
    # the late entrant: entered for round 3, rounds 1 and 2 missed, 0.5 + 0.5 for them and 1 for his win
    assert rows["P13"]["entered_round"] == 3 and rows["P13"]["missed_rounds"] == [1, 2]
    assert rows["P8"]["explanation"] == (f"behind {by_name['P13']}: points 1.5 to 2; ahead of {by_name['P3']}: "
                                         "level on points (1.5), level on buchholz (5.5), level on wins (2), "
                                         "score 26 to 18")

    # ---- round 2 results export: every table (the replaced one too), seat, score and tie-break
    doc = client.get(f"/v1/leagues/{org.id}/rounds/2/results").get_json()
    assert [(g["table_no"], g["status"], g["counted"]) for g in doc["games"]] == [
        (1, "forfeited", True), (2, "replaced", False), (2, "finished", True), (3, "finished", True),
        (4, "forfeited", True), (5, "finished", True), (6, "finished", True)]
    assert doc["byes"] == []
    assert [s["points"] for s in doc["games"][0]["seats"]] == [1.0, 0.0]
    after2 = {names[r["player_id"]]: (r["place"], r["points"], r["buchholz"]) for r in doc["standings"]}
    assert after2["P9"] == (1, 2.0, 1.5) and after2["P11"] == (2, 2.0, 1.0) and after2["P1"] == (3, 2.0, 1.0)
    assert after2["P13"][1] == 1.0 and after2["P2"][1] == 0.0
    text = client.get(f"/v1/leagues/{org.id}/rounds/2/results?format=csv")
    assert text.mimetype == "text/csv"
    lines = list(csv.DictReader(io.StringIO(text.get_data(as_text=True))))
    assert len(lines) == 7 * 2  # seven tables of two (one replaced), no bye
    p9 = next(line for line in lines if line["player_id"] == by_name["P9"] and line["status"] == "finished")
    assert (p9["points"], p9["place_after_round"], p9["buchholz"], p9["decided_by"]) == ("1.0", "1", "1.5",
                                                                                        "buchholz")
    trf = client.get(f"/v1/leagues/{org.id}/rounds/3/results?format=trf").get_data(as_text=True)
    p1 = next(line for line in trf.splitlines() if line.startswith("001    1 "))
    # P1: round 1 beat P2 (white), round 2 forfeit win over P3 (white), round 3 beat P6 with black
    assert p1.endswith("   2 w 1     3 w +     6 b 1") and " 3.0    2" in p1
    p13 = next(line for line in trf.splitlines() if line.startswith("001   13 "))
    assert p13.endswith("0000 - H  0000 - H     4 b 1")  # two missed rounds at half a point, then a win
    assert client.get(f"/v1/leagues/{org.id}/rounds/4/results").status_code == 404

    # ---- the league's event log tells the story, every command by the organiser's token
    events = client.get(f"/v1/leagues/{org.id}/events").get_json()["events"]
    kinds = [e["type"] for e in events]
    for kind, count in (("PlayerWithdrew", 1), ("PlayerEntered", 1), ("ForfeitRecorded", 2),
                        ("GameAbortRecorded", 1), ("TableReseated", 1)):
        assert kinds.count(kind) == count, kind
    assert kinds.count("RoundSeated") == 3 and kinds[-1] == "LeagueCompleted"
    organiser = events[0]["payload"]["created_by"]
    assert organiser != "admin"
    assert {e["payload"]["by"] for e in events if e["type"] in ("PlayerWithdrew", "PlayerEntered",
                                                               "ForfeitRecorded", "TableReseated")} == {organiser}


def test_a_refused_table_is_reseated_with_corrected_settings_and_another_voided(
    app: Flask, pool: Any, redis: Redis, games: FlaskClient, next_version_worker: None  # noqa: F811
) -> None:
    """The games worker runs a later Dice Duel (DD-5: at most 50 squares) than the games service that
    answered at the door, so both tables of round 1 fail. The organiser re-seats one with new seats (the
    player with the bye plays, the one who left gets the bye) and corrected options and a clock (checked at
    the door: a wrong re-seat is a 422 naming the field and changes nothing), and voids the other (no
    result; the league's ``void_table`` rule ``bye`` scores a half-point bye each). The round completes."""
    client = app.test_client()
    ids = [p for p, _ in players(pool, 5)]
    names = {p: f"P{k}" for k, p in enumerate(ids, start=1)}
    by_name = {v: k for k, v in names.items()}
    token = mint(games, "organiser", "Club Refused")["token"]
    rules = {"bye": "half", "void_table": "bye"}
    r = client.post("/v1/leagues", json={**league_body(ids), "rounds": 1, "format": "swiss",
                                         "options": {"target": 60}, "rules": rules}, headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    org = Organiser(client, r.get_json()["id"], names, token)
    pump(pool, redis)
    assert org.seating(1) == [("P1", "P2"), ("P3", "P4")] and org.byes(1) == ["P5"]
    for t in org.tables(1):
        assert t["status"] == "failed" and (t["failure"]["field"], t["failure"]["rule"]) == ("options.target", "DD-5")
    version = org.league()["version"]

    # refused at the door, nothing recorded: options the game type's schema refuses, a player of another
    # table, a clock the games service refuses
    for body, field in [({"options": {"target": 500}}, "options.target"),
                        ({"seats": [by_name["P3"], by_name["P1"]]}, "seats"),
                        ({"clock": {"kind": "per_move", "seconds": 0}}, "clock.seconds")]:
        wrong = client.post(f"/v1/leagues/{org.id}/rounds/1/tables/2/reseat", json={"reason": "x", **body},
                            headers=bearer(token))
        assert wrong.status_code == 422 and field in wrong.get_json()["errors"], (body, wrong.get_json())
    assert org.league()["version"] == version

    # table 2: P4 had to leave; P5 (the bye) plays P3 instead, the race shortened to 40, with a clock
    league = org.post("/rounds/1/tables/2/reseat", {
        "reason": "the games service refuses 60 squares; P4 left", "seats": [by_name["P5"], by_name["P3"]],
        "options": {"target": 40}, "clock": {"kind": "per_move", "seconds": 300}})
    old, new = [t for t in league["schedule"][0]["tables"] if t["table_no"] == 2]
    assert old["status"] == "replaced" and new["status"] == "requested"
    assert new["seats"] == [by_name["P5"], by_name["P3"]] and new["options"] == {"target": 40}
    assert new["clock"] == {"kind": "per_move", "seconds": 300} and new["timeout_policy"] == "forfeit"
    assert league["schedule"][0]["byes"] == [by_name["P4"]]
    pump(pool, redis)
    table = org.tables(1)[1]
    assert table["status"] == "created", table
    with pool.connection() as conn:
        created = conn.execute("SELECT payload FROM games.events WHERE stream_id = %s AND version = 1",
                               (table["game_id"],)).fetchone()[0]
    assert created["options"]["target"] == 40 and created["seats"] == [by_name["P5"], by_name["P3"]]
    assert created["clock"] == {"kind": "per_move", "seconds": 300} and created["timeout_policy"] == "forfeit"
    org.result(redis, 1, 2, WIN)  # P5 beats P3

    # table 1: no result (TableVoided); the void_table rule "bye" scores a half-point bye each
    org.post("/rounds/1/tables/2/void", {"reason": "finished already"}, status=409)
    league = org.post("/rounds/1/tables/1/void", {"reason": "P1 and P2 found no time to play"})
    t1 = league["schedule"][0]["tables"][0]
    assert (t1["status"], t1["void_reason"], t1["points"]) == ("void", "P1 and P2 found no time to play",
                                                               [0.5, 0.5])
    org.post("/rounds/1/tables/1/reseat", {"reason": "too late"}, status=409)
    assert league["schedule"][0]["complete"] and league["status"] == "completed"

    # standings by hand: P5 1 (a win over P3, buchholz P3's 0); P1, P2 0.5 (the void table's byes), P4 0.5
    # (the bye he got when he left); level on everything but the seeding order; P3 0 (buchholz P5's 1)
    rows = client.get(f"/v1/leagues/{org.id}/standings").get_json()["rows"]
    assert [(names[r["player_id"]], r["points"], r["buchholz"], r["wins"], r["games"], r["byes"], r["decided_by"])
            for r in rows] == [
        ("P5", 1.0, 0.0, 1, 1, 0, "points"),
        ("P1", 0.5, 0.0, 0, 0, 0, "seed"),
        ("P2", 0.5, 0.0, 0, 0, 0, "seed"),
        ("P4", 0.5, 0.0, 0, 0, 1, "seed"),
        ("P3", 0.0, 1.0, 0, 1, 0, "points"),
    ]
    kinds = [e["type"] for e in client.get(f"/v1/leagues/{org.id}/events").get_json()["events"]]
    assert kinds.count("TableCreationFailed") == 2 and kinds.count("TableReseated") == 1
    assert kinds.count("TableVoided") == 1 and kinds[-1] == "LeagueCompleted"


def test_a_league_seat_out_of_time_is_scored_by_the_forfeit_rule_without_the_organiser(
    app: Flask, pool: Any, redis: Redis, games: FlaskClient  # noqa: F811
) -> None:
    """A league with a clock (checked at the door, sent in CreateGameRequested): a seat runs out of time,
    a waiting player claims it at an explicit time (the games service's injected clock: no sleeping), the
    game ends (TimeExpired, GameFinished naming the ``forfeited_seats``) and the league scores it by its
    ``forfeit`` rule (``win``: each present player n - 1 = 2 points at a table of 3, where the game's own
    ranks would give 1.5), completes the round and the league. Nobody runs an organiser command."""
    from services.games.adapters.postgres import UnitOfWork
    from services.games.engines.registry import default_registry
    from services.games.service_layer.errors import Conflict
    from services.games.service_layer.handlers import GamesService
    from shared.auth import Identity

    client = app.test_client()
    ids = [p for p, _ in players(pool, 3)]
    token = mint(games, "organiser", "Club Clock")["token"]
    body = {**league_body(ids), "rounds": 1, "table_sizes": [3], "clock": {"kind": "per_move", "seconds": 60},
            "rules": {"forfeit": "win"}}
    assert client.post("/v1/leagues", json={**body, "timeout_policy": "auto_move"},
                       headers=bearer(token)).status_code == 422  # Dice Duel: a seat cannot be played for
    r = client.post("/v1/leagues", json=body, headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    league = r.get_json()
    assert league["clock"] == {"kind": "per_move", "seconds": 60} and league["timeout_policy"] == "forfeit"
    pump(pool, redis)
    (table,) = client.get(f"/v1/leagues/{league['id']}").get_json()["schedule"][0]["tables"]
    game_id = table["game_id"]

    class At:
        at = datetime(2000, 1, 1).astimezone()

        def __call__(self) -> datetime:
            return self.at

    now = At()
    service = GamesService(default_registry("tests.support.diceduel:DiceDuel"), UnitOfWork(pool), now=now)
    game = service.game_view(game_id, Identity(admin=True))
    assert game["clock"]["seconds"] == 60 and game["clock"]["timeout_policy"] == "forfeit"
    late = game["to_move"][0]
    waiting = Identity(player_id=table["seats"][(late + 1) % 3])
    deadline = datetime.fromisoformat(game["clock"]["deadline"])
    now.at = deadline - timedelta(microseconds=1)
    with pytest.raises(Conflict):  # 1 µs before the deadline nobody is out of time
        service.claim_timeout(waiting, game_id)
    now.at = deadline
    ended = service.claim_timeout(waiting, game_id)
    assert ended["status"] == "finished" and ended["outcome"]["ranks"] == [2 if s == late else 1 for s in range(3)]
    pump(pool, redis)  # GameFinished -> matchmaking

    league = client.get(f"/v1/leagues/{league['id']}").get_json()
    (table,) = league["schedule"][0]["tables"]
    absent = table["seats"][late]
    assert (table["status"], table["absent"]) == ("forfeited", [absent])
    assert table["points"] == [0.0 if s == late else 2.0 for s in range(3)]  # the forfeit rule, not 1.5
    assert league["status"] == "completed"
    events = client.get(f"/v1/leagues/{league['id']}/events").get_json()["events"]
    assert [e["type"] for e in events] == ["LeagueCreated", "RoundSeated", "TableGameCreated", "ForfeitRecorded",
                                           "LeagueCompleted"]  # no organiser command
    forfeit = events[3]["payload"]
    assert (forfeit["by"], forfeit["game_id"], forfeit["rule"]) == ("clock", game_id, "win")
    assert "ran out of time" in forfeit["reason"]
    rows = {r["player_id"]: r for r in client.get(f"/v1/leagues/{league['id']}/standings").get_json()["rows"]}
    assert rows[absent]["points"] == 0.0 and rows[absent]["place"] == 3
    assert sorted(r["points"] for p, r in rows.items() if p != absent) == [2.0, 2.0]
    assert game_status(pool, game_id)[0] == "finished"  # not aborted: nothing was asked of the games service


def test_an_aborted_clocked_table_is_reseated_without_a_clock(
    app: Flask, pool: Any, redis: Redis, games: FlaskClient  # noqa: F811
) -> None:
    """A league with a clock (forfeit on time); the game of its one table is aborted. The organiser
    re-seats it with ``no_clock`` (the new game has no clock, whatever the league's): with a clock beside
    it that is a 422 naming ``no_clock`` and nothing is recorded; alone it shows as ``no_clock`` with no
    clock and no timeout policy, and the games service creates the new game without a clock, where the
    first game had the league's."""
    client = app.test_client()
    ids = [p for p, _ in players(pool, 2)]
    names = {p: f"P{k}" for k, p in enumerate(ids, start=1)}
    token = mint(games, "organiser", "Club No Clock")["token"]
    clock = {"kind": "per_move", "seconds": 60}
    r = client.post("/v1/leagues", json={**league_body(ids), "rounds": 1, "table_sizes": [2], "clock": clock},
                    headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    org = Organiser(client, r.get_json()["id"], names, token)
    pump(pool, redis)
    (first,) = org.tables(1)

    def created(game_id: str) -> dict[str, Any]:
        with pool.connection() as conn:
            payload: dict[str, Any] = conn.execute(
                "SELECT payload FROM games.events WHERE stream_id = %s AND version = 1", (game_id,)).fetchone()[0]
        return payload

    assert created(first["game_id"])["clock"] == clock and created(first["game_id"])["timeout_policy"] == "forfeit"
    deliver(redis, aborted(first["game_id"], first["seats"]))
    pump(pool, redis)
    assert org.tables(1)[0]["status"] == "aborted"
    version = org.league()["version"]

    both = client.post(f"/v1/leagues/{org.id}/rounds/1/tables/1/reseat", headers=bearer(token),
                       json={"reason": "x", "no_clock": True, "clock": clock})
    assert both.status_code == 422 and "no_clock" in both.get_json()["errors"], both.get_json()
    assert org.league()["version"] == version

    league = org.post("/rounds/1/tables/1/reseat", {"reason": "P2 is on a bad connection", "no_clock": True})
    old, new = league["schedule"][0]["tables"]
    assert old["status"] == "replaced" and old["no_clock"] is False
    assert (new["status"], new["no_clock"], new["clock"], new["timeout_policy"]) == ("requested", True, None, None)
    assert league["clock"] == clock  # the league's own clock is unchanged
    pump(pool, redis)
    (table,) = org.tables(1)
    assert table["status"] == "created" and table["game_id"] != first["game_id"], table
    game = created(table["game_id"])
    assert game.get("clock") is None and game.get("timeout_policy") is None, game


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
    assert league["rules"] == {"withdrawal": "not_paired", "forfeit": "win", "bye": "half", "late_entry": "zero",
                               "void_table": "no_score"}
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
