// #/games/<id>/replay: step through a game version by version (GET .../state?version=N, drawn with the
// same renderer, no moves), with the audit report (GET .../audit), the seed commitment and its reveal,
// and the export file for `speltafel verify` (GET .../export: the game's players and admins).
// Test hooks: #replay[data-version], input[type=range][data-testid=replay-slider], #replay-table,
// [data-testid=audit][data-ok], [data-testid=seed-commitment], [data-testid=seed-reveal], [data-testid=export].
import { html, useEffect, useRef, useState } from "../lib.js";
import { api, Problem, token } from "../api.js";
import { useStore } from "../state.js";
import { t } from "../i18n.js";
import { rendererFor } from "../render/index.js";
import { allEvents, drawTable, Outcome } from "./table.js";
import { gameTitle, genericDescribe, Loading, ProblemBox } from "./common.js";

function Audit({ gameId, head }) {
  const [report, setReport] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => { api.audit(gameId).then(setReport, setProblem); }, [gameId, head]);
  if (problem) return html`<${ProblemBox} problem=${problem} />`;
  if (!report) return html`<${Loading} />`;
  return html`<section class="card audit" data-testid="audit" data-ok=${report.ok ? "true" : "false"}>
    <h3>${t("replay.audit")}: <span class=${report.ok ? "audit-ok" : "audit-bad"}>
      ${report.ok ? t("replay.audit_ok") : t("replay.audit_bad")}</span></h3>
    <ul class="checks">${report.checks.map((c) => html`<li data-check=${c.name} data-status=${c.status}>
      ${c.status === "pass" ? "✓" : c.status === "fail" ? "✗" : "–"} <code>${c.name}</code>
      ${c.detail ? html` <span class="muted">${c.detail}</span>` : null}
      ${c.first_failing_event ? html` (${c.first_failing_event})` : null}</li>`)}</ul>
    ${report.flags?.length ? html`<p>flags: ${report.flags.map((f) => html`<code>${typeof f === "string" ? f : JSON.stringify(f)}</code> `)}</p>` : null}
  </section>`;
}

/** A link to the export; the click fetches it with our token (players and admins may) and saves it. */
function ExportLink({ gameId }) {
  const [problem, setProblem] = useState(null);
  const href = api.exportUrl(gameId);
  async function save(e) {
    if (!token()) return; // the plain link: the API answers 401 with its reason
    e.preventDefault();
    setProblem(null);
    try {
      const answer = await fetch(href, { headers: { Authorization: `Bearer ${token()}`, Accept: "application/json" } });
      if (!answer.ok) {
        const body = await answer.json().catch(() => ({}));
        throw new Problem(body, answer.status);
      }
      const blob = await answer.blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = `speltafel-${gameId}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (error) {
      setProblem(error);
    }
  }
  return html`<p><a data-testid="export" href=${href} download=${`speltafel-${gameId}.json`} onClick=${save}>
    ${t("replay.export")}</a> <code class="muted">speltafel verify speltafel-${gameId.slice(0, 8)}….json</code></p>
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />`;
}

export function ReplayPage({ gameId }) {
  const store = useStore();
  const [game, setGame] = useState(null);
  const [state, setStateAt] = useState(null);
  const [version, setVersion] = useState(null);
  const [renderer, setRenderer] = useState(null);
  const [events, setEvents] = useState([]);
  const [problem, setProblem] = useState(null);
  const wanted = useRef(null);
  const timer = useRef(null);

  useEffect(() => {
    let alive = true;
    (async () => {
      try {
        const detail = await api.game(gameId);
        if (!alive) return;
        setGame(detail);
        rendererFor(detail.game_type).then((mod) => alive && setRenderer(mod));
        allEvents(gameId).then((log) => alive && setEvents(log.events), () => {});
        show(detail.version);
      } catch (error) {
        setProblem(error);
      }
    })();
    return () => { alive = false; clearTimeout(timer.current); };
  }, [gameId, store.token]);

  async function show(v) {
    wanted.current = v;
    try {
      const at = await api.state(gameId, v);
      if (wanted.current !== v) return; // the slider moved on
      setStateAt(at);
      setVersion(v);
      setProblem(null);
    } catch (error) {
      if (wanted.current === v) setProblem(error);
    }
  }
  function slide(v) {
    wanted.current = v;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => show(v), 80);
  }

  if (!game) {
    return html`<section id="replay" data-version="">${problem ? html`<${ProblemBox} problem=${problem} />` : html`<${Loading} />`}</section>`;
  }
  const total = game.version;
  const shown = version ?? total;
  const event = events.find((e) => e.version === shown);
  const describe = renderer?.describeEvent;
  const ctx = state && { view: state.view, moves: [], seat: typeof state.your_seat === "number" ? state.your_seat : null,
    seats: state.seats || game.seats, act: () => {}, t, lang: store.lang, game: state };
  const step = (d) => { const v = Math.min(total, Math.max(1, (wanted.current ?? shown) + d)); slide(v); };
  return html`<section id="replay" data-game-id=${game.id} data-version=${version ?? ""} data-total=${total}
      data-game-type=${game.game_type}>
    <div class="table-head">
      <h2>${t("replay.title")}: ${gameTitle(game.game_type)} <small class="muted">${game.id.slice(0, 8)}</small></h2>
      <a href=${`#/games/${game.id}`}>${t("replay.back")}</a>
    </div>
    <div class="slider">
      <button type="button" data-testid="replay-prev" onClick=${() => step(-1)} disabled=${shown <= 1}>◀ ${t("replay.prev")}</button>
      <input type="range" data-testid="replay-slider" min="1" max=${total} step="1" value=${shown}
        aria-label=${t("replay.version", { version: shown, total })}
        onInput=${(e) => slide(Number(e.target.value))} />
      <button type="button" data-testid="replay-next" onClick=${() => step(1)} disabled=${shown >= total}>${t("replay.next")} ▶</button>
      <span>${t("replay.version", { version: shown, total })}</span>
    </div>
    ${event ? html`<p class="replay-event" data-version=${event.version}>${describe?.(event, t, game.seats) || genericDescribe(event, game.seats)}</p>` : null}
    <${ProblemBox} problem=${problem} />
    <div class="table-body">
      <div class="table-main">
        ${state && state.version === total && state.outcome ? html`<${Outcome} game=${state} />` : null}
        <div id="replay-table" class="board" data-version=${version ?? ""}>${ctx && ctx.view ? drawTable(renderer, ctx) : html`<${Loading} />`}</div>
      </div>
      <aside class="table-side">
        <${Audit} gameId=${game.id} head=${total} />
        <section class="card seeds">
          <p class="seedline">${t("replay.commitment")}: <code data-testid="seed-commitment">${game.commitment || ""}</code></p>
          <p class="seedline">${t("replay.reveal")}: ${game.revealed_seed
            ? html`<code data-testid="seed-reveal">${game.revealed_seed}</code>`
            : html`<span data-testid="seed-reveal" class="muted">${t("replay.not_revealed")}</span>`}</p>
          <${ExportLink} gameId=${game.id} />
        </section>
      </aside>
    </div>
  </section>`;
}
