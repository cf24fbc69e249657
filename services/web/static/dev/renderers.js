// Dev harness for the card renderers: draws each example view (views/<game>-<phase>.json) with its
// renderer, as the table page would, and records every act(move) in a line under the table.
import { html, render, useState } from "../js/lib.js";
import { rendererFor } from "../js/render/index.js";

const params = new URLSearchParams(location.search);
const lang = params.get("lang") === "en" ? "en" : "nl";
document.documentElement.lang = lang;
const t = (key) => key;

function Case({ name, data, renderer }) {
  const [acted, setActed] = useState(null);
  const act = (move) => setActed(JSON.stringify(move));
  const events = renderer.describeEvent
    ? data.events.map((e) => [e.version, renderer.describeEvent(e, t, lang, data.seats)]).filter(([, s]) => s)
    : [];
  return html`<section class="harness-case" data-case=${name}>
    <h2>${name} — ${data.seat === null ? "spectator" : `seat ${data.seat}`}, ${data.moves.length} moves</h2>
    ${renderer.renderTable({ view: data.view, moves: data.moves, seat: data.seat, seats: data.seats, act, t, lang })}
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
  document.body.dataset.ready = "1";
}
main().catch((e) => { document.body.textContent = `harness error: ${e.stack || e}`; });
