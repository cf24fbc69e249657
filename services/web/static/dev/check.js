// In-page check of the board renderers over every sample view (boards.html?check=1): for each view,
// every listed move has exactly one [data-move] button and clicking it hands act() that very move;
// no [data-move] lists a move that is not listed; a spectator gets no move buttons; every card drawn
// is a card the view shows (ROPARUN: own hand, last play, dealer draws); the score sheet has one
// [data-seat][data-score] per seat; the distance field posts the typed km. The result is JSON in
// <pre id="check-result"> (read by `chromium --headless --dump-dom`).
import { render, moveKey } from "../js/lib.js";
import { rendererFor } from "../js/render/index.js";

const settle = () => new Promise((r) => setTimeout(r, 30));

function visibleCards(view) {
  if (view.game_type !== "roparun") return null;
  const cards = new Set(view.hand || []);
  if (view.last_play?.card) cards.add(view.last_play.card);
  for (const round of view.dealer_draws || []) for (const d of round) cards.add(`${d.rank}${d.suit}`);
  return cards;
}

async function checkOne(file, root) {
  const sample = await (await fetch(`./views/${file}`)).json();
  const game = sample.view.game_type || sample.view.game;
  const renderer = await rendererFor(game);
  if (renderer.config) renderer.config.mapUrl = "./views/cityhopper-map.svg";
  const problems = [];
  const acted = [];
  const act = (m) => acted.push(m);
  render(null, root);
  render(renderer.renderTable({ view: sample.view, moves: sample.moves, seat: sample.seat, seats: sample.seats, act, t: (k) => k, lang: "nl" }), root);
  for (let i = 0; i < 40 && game === "cityhopper" && !root.querySelector(".ch-map-svg"); i++) await settle();
  await settle();
  const listed = new Map(sample.moves.map((m) => [moveKey(m), m]));
  const buttons = [...root.querySelectorAll("[data-move]")];
  const seen = new Map();
  for (const b of buttons) {
    const key = b.getAttribute("data-move");
    seen.set(key, (seen.get(key) || 0) + 1);
    if (!listed.has(key)) problems.push(`unlisted move ${key}`);
    if (b.tagName !== "BUTTON" || b.getAttribute("type") !== "button") problems.push(`not a button: ${key}`);
  }
  for (const key of listed.keys()) {
    if (!seen.has(key)) problems.push(`move without a button: ${key}`);
    else if (seen.get(key) > 1) problems.push(`move with ${seen.get(key)} buttons: ${key}`);
  }
  for (const b of buttons) {
    acted.length = 0;
    b.click();
    if (acted.length !== 1 || moveKey(acted[0]) !== b.getAttribute("data-move")) problems.push(`click posts another move: ${b.getAttribute("data-move")}`);
  }
  if (sample.seat == null && (buttons.length || root.querySelector("form"))) problems.push("a spectator gets move controls");
  const allowed = visibleCards(sample.view);
  if (allowed) {
    for (const c of root.querySelectorAll("[data-card]")) {
      if (!allowed.has(c.getAttribute("data-card"))) problems.push(`card not in the view: ${c.getAttribute("data-card")}`);
    }
    const hand = [...root.querySelectorAll("[data-testid=hand] [data-card]")].map((c) => c.getAttribute("data-card"));
    if (JSON.stringify(hand) !== JSON.stringify(sample.view.hand || [])) problems.push(`hand drawn ${hand} != view ${sample.view.hand}`);
  }
  const n = sample.view.num_players;
  const scores = root.querySelectorAll("[data-testid=scores] [data-seat][data-score]");
  if (scores.length !== n) problems.push(`${scores.length} score rows for ${n} seats`);
  if (sample.view.winner != null) {
    for (const row of scores) {
      const want = Number(row.getAttribute("data-seat")) === sample.view.winner ? 1 : 0;
      if (Number(row.getAttribute("data-score")) !== want) problems.push(`seat ${row.getAttribute("data-seat")} score ${row.getAttribute("data-score")}`);
    }
  }
  const pointed = sample.moves.find((m) => m.type === "play_card" && m.action?.move);
  if (game === "roparun" && pointed) { // pointing at a play marks the pawn it moves on the board
    root.querySelector(`[data-move='${moveKey(pointed)}']`).dispatchEvent(new MouseEvent("mouseenter"));
    await settle();
    if (!root.querySelector(`.rp-pawn.hl[data-seat="${sample.seat}"][data-pawn="${pointed.action.move}"]`)) problems.push("hover marks no pawn");
  }
  let typed = false;
  const km = root.querySelector("[data-testid=distance-km]");
  if (km) {
    acted.length = 0;
    km.value = "123.4";
    km.dispatchEvent(new Event("input", { bubbles: true }));
    await settle();
    root.querySelector("[data-testid=distance-form]").requestSubmit();
    if (acted.length !== 1 || moveKey(acted[0]) !== moveKey({ type: "answer", payload: { km: 123.4 } })) problems.push(`distance form posted ${JSON.stringify(acted)}`);
    typed = true;
  }
  return { file, moves: listed.size, buttons: buttons.length, typed, problems };
}

export async function runChecks() {
  const files = (await (await fetch("./views/index.json")).json()).filter((f) => /^(live-)?(roparun|cityhopper)-/.test(f));
  const root = document.getElementById("table");
  const results = [];
  for (const f of files) {
    try { results.push(await checkOne(f, root)); } catch (e) { results.push({ file: f, problems: [`error ${e}`] }); }
  }
  const failed = results.filter((r) => r.problems.length);
  const out = document.createElement("pre");
  out.id = "check-result";
  out.textContent = JSON.stringify({ views: results.length, failed: failed.length, moves: results.reduce((s, r) => s + (r.moves || 0), 0), results: failed.length ? failed : results.map((r) => `${r.file}: ${r.moves} moves, ${r.buttons} buttons${r.typed ? ", typed km posted" : ""}`) }, null, 1);
  document.body.append(out);
  document.body.dataset.ready = "1";
}
