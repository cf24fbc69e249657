// Unit checks of the client's API helpers (node --test; no browser, no server): the SSE parser, the
// problem+json errors, the 409 reload-and-retry of a move and the game read with its legal moves. `make web-unit` runs them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { gameWithMoves, makeMove, parseSse, Problem, readAnswer } from "../static/js/api.js";

test("SSE text is cut into messages with id, event and data; a partial message waits for more", () => {
  const text = "retry: 2000\n\nid: 1\nevent: GameCreated\ndata: {\"version\": 1}\n\n: keepalive\n\nid: 2\ndata: {\"ver";
  const [messages, rest] = parseSse(text);
  assert.deepEqual(messages, [
    { id: null, event: "message", data: "", retry: 2000 },
    { id: "1", event: "GameCreated", data: "{\"version\": 1}", retry: null },
  ]);
  assert.equal(rest, "id: 2\ndata: {\"ver");
  const [more] = parseSse(rest + "sion\": 2}\r\n\r\n");
  assert.deepEqual(JSON.parse(more[0].data), { version: 2 });
  assert.equal(more[0].id, "2");
});

test("a problem+json answer becomes a Problem with its rule, code and the field it names", async () => {
  const body = { type: "https://speltafel.example/problems/illegal-move", title: "Unprocessable Content", status: 422,
    detail: "you must follow suit", rule: "KL-17", code: "must_follow", errors: { move: ["must follow suit"] } };
  const answer = new Response(JSON.stringify(body), { status: 422, headers: { "Content-Type": "application/problem+json" } });
  await assert.rejects(readAnswer(answer), (error) => {
    assert.ok(error instanceof Problem && error instanceof Error);
    assert.equal(error.status, 422);
    assert.equal(error.rule, "KL-17");
    assert.equal(error.code, "must_follow");
    assert.equal(error.field, "move");
    assert.equal(error.message, "you must follow suit");
    return true;
  });
  assert.equal(await readAnswer(new Response(null, { status: 204 })), null);
});

const conflict = () => new Problem({ status: 409, title: "Conflict", detail: "stale version" }, 409);

test("a 409 reloads and retries once at the new version with a new key when the move is still legal", async () => {
  const calls = [];
  const post = async (gameId, move, version, key) => {
    calls.push({ version, key });
    if (calls.length === 1) throw conflict();
    return { version: version + 1, events: [] };
  };
  const move = { type: "play_card", card: "AS" };
  const answer = await makeMove("g", move, 7, async () => ({ version: 9, moves: [{ card: "AS", type: "play_card" }] }), post);
  assert.equal(answer.version, 10);
  assert.deepEqual(calls.map((c) => c.version), [7, 9]);
  assert.notEqual(calls[0].key, calls[1].key);
  assert.match(calls[0].key, /^[0-9a-f-]{36}$/);
});

test("a 409 whose move is no longer legal is shown, not retried", async () => {
  let posts = 0;
  const post = async () => { posts += 1; throw conflict(); };
  await assert.rejects(makeMove("g", { type: "pass" }, 7, async () => ({ version: 8, moves: [{ type: "bid", choice: "play" }] }), post),
    (error) => error.status === 409);
  assert.equal(posts, 1);
});

test("other errors are not retried", async () => {
  let reloads = 0;
  const post = async () => { throw new Problem({ status: 422, rule: "PK-12" }, 422); };
  await assert.rejects(makeMove("g", { type: "pass" }, 1, async () => { reloads += 1; return { version: 1, moves: [] }; }, post),
    (error) => error.rule === "PK-12");
  assert.equal(reloads, 0);
});

// a game whose moves land between our two reads: each read of it or of its legal moves sees one move more
function racingGame(start, { seat = 0, status = "running" } = {}) {
  let version = start;
  const reads = [];
  return {
    reads,
    readGame: async () => { reads.push("game"); version += 1; return { version, your_seat: seat, status }; },
    readMoves: async () => { reads.push("moves"); version += 1; return { version, moves: [{ type: "pass" }] }; },
  };
}
const seated = (d) => typeof d.your_seat === "number" && d.status === "running";

test("a game read while moves keep landing is still drawn, without moves and unsettled, never as nothing", async () => {
  // found by the browser test (a seat's page stuck at "Loading…" while moves came through the API): three
  // disagreeing reads on the first load left the page without a game, a live stream or a retry
  const game = racingGame(10);
  const { detail, moves, settled } = await gameWithMoves("g", seated, game);
  assert.equal(settled, false);
  assert.equal(detail.version, 15, "the newest game read");
  assert.deepEqual(moves, { version: -1, moves: [] }, "no move buttons for a version we have not read them at");
  assert.deepEqual(game.reads, ["game", "moves", "game", "moves", "game", "moves"]);
});

test("the game and its legal moves at one version are settled; a spectator reads no legal moves", async () => {
  const game = racingGame(10);
  let landing = true; // a move lands between the first two reads only
  const readMoves = async (id) => (landing ? ((landing = false), game.readMoves(id)) : { version: 13, moves: [{ type: "pass" }] });
  const found = await gameWithMoves("g", seated, { readGame: game.readGame, readMoves });
  assert.deepEqual([found.settled, found.detail.version, found.moves.version], [true, 13, 13]);
  const watcher = racingGame(4, { seat: null });
  const seen = await gameWithMoves("g", seated, watcher);
  assert.deepEqual([seen.settled, seen.detail.version, seen.moves], [true, 5, { version: 5, moves: [] }]);
  assert.deepEqual(watcher.reads, ["game"]);
});
