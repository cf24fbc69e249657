// Dev harness for the board renderers: loads views/<file>.json ({note, view, moves, seat, seats})
// and draws it with render/<game>.js exactly as the table page would (same context object).
import { html, render } from "../js/lib.js";
import { rendererFor } from "../js/render/index.js";

const params = new URLSearchParams(location.search);
const pick = document.getElementById("pick");
const langPick = document.getElementById("lang");
window.actedMoves = [];

async function main() {
  const files = await (await fetch("./views/index.json")).json();
  const chosen = params.get("view") || files[0];
  const lang = params.get("lang") || "nl";
  for (const f of files) pick.append(new Option(f.replace(/\.json$/, ""), f, false, f === chosen));
  langPick.value = lang;
  const go = () => { location.search = `?view=${pick.value}&lang=${langPick.value}`; };
  pick.onchange = go;
  langPick.onchange = go;
  const sample = await (await fetch(`./views/${chosen}`)).json();
  document.getElementById("note").textContent = `${sample.note} · seat ${sample.seat ?? "spectator"} · ${sample.moves.length} moves`;
  const gameType = sample.view.game_type || sample.view.game;
  const renderer = await rendererFor(gameType);
  // no gateway behind this page: the CityHopper map is a saved copy of GET /questions/v1/distance/map.svg
  if (renderer.config && params.get("live") !== "1") renderer.config.mapUrl = "./views/cityhopper-map.svg";
  const act = (move) => {
    window.actedMoves.push(move);
    document.getElementById("acted").textContent = `act(${JSON.stringify(move)})`;
  };
  const t = (key) => key;
  const ctx = { view: sample.view, moves: sample.moves, seat: sample.seat, seats: sample.seats, act, t, lang };
  const table = document.getElementById("table");
  if (params.get("app")) {
    // inside the app's table page layout and stylesheet (css/app.css of the app shell, when present)
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = "../css/app.css";
    document.head.append(link);
    table.id = "";
    table.style.padding = "0";
    render(html`<main><section id="table" class="table"><div class="table-body"><div class="table-main">
      <div class="board">${renderer.renderTable(ctx)}</div></div>
      <aside class="table-side"><section class="events"><h3>Log</h3><ol class="event-log"><li>…</li></ol></section></aside>
    </div></section></main>`, table);
  } else {
    render(renderer.renderTable(ctx), table);
  }
  document.body.dataset.ready = "1";
}
if (params.get("check")) import("./check.js").then((m) => m.runChecks());
else main().catch((e) => { document.getElementById("table").textContent = String(e.stack || e); document.body.dataset.ready = "error"; });
