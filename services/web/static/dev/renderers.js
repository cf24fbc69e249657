// Dev harness for the card renderers: draws each example view (views/<game>-<phase>.json) with its
// renderer, as the table page would, and records every act(move) in a line under the table.
import { html, moveKey, render, useState } from "../js/lib.js";
import { rendererFor } from "../js/render/index.js";

const params = new URLSearchParams(location.search);
const lang = params.get("lang") === "en" ? "en" : "nl";
document.documentElement.lang = lang;
const t = (key) => key;
// ?app=1: draw inside the app's stylesheet and its .board, as the table page does
if (params.get("app")) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "../css/app.css";
  document.head.prepend(link);
}
window.__acted = [];

/** The renderer contract, checked in the page for one drawn case: every legal move has a button and
 * every button makes a listed move (its click posts exactly that object), every card drawn is in the view,
 * and the score sheet has one entry per seat or team. */
function checkCase(section, data) {
  const problems = [];
  const listed = new Set(data.moves.map(moveKey));
  const buttons = [...section.querySelectorAll("[data-move]")];
  const seen = new Set();
  for (const b of buttons) {
    if (b.tagName !== "BUTTON" || b.type !== "button") problems.push(`not a button: ${b.outerHTML.slice(0, 80)}`);
    if (!listed.has(b.dataset.move)) problems.push(`button for an unlisted move ${b.dataset.move}`);
    seen.add(b.dataset.move);
    window.__acted = [];
    b.click();
    const got = window.__acted.map(moveKey);
    if (got.length !== 1 || got[0] !== b.dataset.move) problems.push(`click on ${b.dataset.move} acted ${JSON.stringify(got)}`);
  }
  for (const m of listed) if (!seen.has(m)) problems.push(`legal move not reachable: ${m}`);
  const viewText = JSON.stringify(data.view);
  for (const el of section.querySelectorAll("[data-card]")) {
    if (!viewText.includes(`"${el.dataset.card}"`)) problems.push(`card not in the view: ${el.dataset.card}`);
  }
  const scores = section.querySelector("[data-testid=scores]");
  if (!scores) problems.push("no score sheet");
  else if (!scores.querySelector("[data-score][data-seat], [data-score][data-team]")) problems.push("score sheet without entries");
  if (data.seat === null && buttons.length) problems.push("a spectator has move buttons");
  return { buttons: buttons.length, moves: listed.size, cards: section.querySelectorAll("[data-card]").length, problems };
}

function Case({ name, data, renderer }) {
  const [acted, setActed] = useState(null);
  const act = (move) => {
    window.__acted.push(move);
    setActed(JSON.stringify(move));
  };
  const events = renderer.describeEvent
    ? data.events.map((e) => [e.version, renderer.describeEvent(e, t, lang, data.seats)]).filter(([, s]) => s)
    : [];
  return html`<section class="harness-case" data-case=${name}>
    <h2>${name} — ${data.seat === null ? "spectator" : `seat ${data.seat}`}, ${data.moves.length} moves</h2>
    <div class=${params.get("app") ? "board" : ""}>
      ${renderer.renderTable({ view: data.view, moves: data.moves, seat: data.seat, seats: data.seats, act, t, lang })}</div>
    <div class="harness-acted" data-testid="acted">${acted ? `act(${acted})` : "act: —"}</div>
    <ol class="harness-events">${events.map(([v, s]) => html`<li value=${v}>${s}</li>`)}</ol>
  </section>`;
}

async function main() {
  const names = await (await fetch("views/index.json")).json();
  const one = params.get("view");
  const game = params.get("game");
  const chosen = one ? [one] : game ? names.filter((n) => n.startsWith(`${game}-`)) : names;
  const cases = [];
  for (const name of chosen) {
    const data = await (await fetch(`views/${name}.json`)).json();
    cases.push({ name, data, renderer: await rendererFor(data.game_type) });
  }
  const bar = html`<div class="harness-bar">
    <b>Renderer harness</b>
    ${["hoppaa", "klapper", "paardenkoppen"].map((g) => html`<a href=${`?game=${g}&lang=${lang}`}>${g}</a>`)}
    <a href=${`?${one ? `view=${one}` : game ? `game=${game}` : ""}&lang=${lang === "nl" ? "en" : "nl"}`}>${lang === "nl" ? "English" : "Nederlands"}</a>
    <select onChange=${(e) => { location.search = `?view=${e.target.value}&lang=${lang}`; }}>
      <option>…</option>${names.map((n) => html`<option value=${n} selected=${n === one}>${n}</option>`)}</select>
  </div>`;
  render(html`${bar}${cases.map((c) => html`<${Case} key=${c.name} ...${c} />`)}`, document.getElementById("app"));
  if (params.get("check")) {
    const results = {};
    for (const c of cases) results[c.name] = checkCase(document.querySelector(`[data-case="${c.name}"]`), c.data);
    document.body.dataset.check = JSON.stringify(results);
  }
  document.body.dataset.ready = "1";
}
main().catch((e) => { document.body.textContent = `harness error: ${e.stack || e}`; });
