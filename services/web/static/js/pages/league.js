// #/leagues/<id>: a league for organisers and players: standings (GET .../standings), every round's
// tables with links to their games, byes and disputes, the CSV/JSON export links and each round's results.
// With an organiser's (or the admin's) token given on the page (kept in this tab's sessionStorage), the
// organiser's commands: forfeit a table, re-seat an aborted or failed one (on a clocked table also without
// its clock), void a table that cannot be played (no result; scored by the league's void_table rule),
// withdraw a player, a late entry.
// #/leagues lists them.
// Test hooks: #league, [data-testid=standing] rows (data-player-id, data-place), [data-testid=league-table]
// (data-round, data-table, data-status), [data-testid=organiser-token|organiser-reason|forfeit-absent|
// record-forfeit|reseat|reseat-no-clock|void-table|withdraw|enter-player|enter-submit|organiser-done].
import { html, useEffect, useState } from "../lib.js";
import { api } from "../api.js";
import { config } from "../config.js";
import { t } from "../i18n.js";
import { gameTitle, Loading, ProblemBox, shortId } from "./common.js";

export function LeaguesPage() {
  const [page, setPage] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => { api.leagues({ limit: 100 }).then(setPage, setProblem); }, []);
  return html`<section id="leagues" class="card">
    <h2>${t("league.list")}</h2>
    <${ProblemBox} problem=${problem} />
    ${!page ? html`<${Loading} />` : !page.items.length ? html`<p class="muted">${t("lobby.none")}</p>`
      : html`<ul>${page.items.map((l) => html`<li data-league-id=${l.id}><a href=${`#/leagues/${l.id}`}>${l.name}</a>
        · ${gameTitle(l.game_type)} · ${t("league.rounds")} ${l.seated_rounds}/${l.rounds} · ${l.status}</li>`)}</ul>`}
  </section>`;
}

const ORGANISER_KEY = "speltafel.organiser";

function Organiser({ tok, setTok, reason, setReason, onEnter, done }) {
  const [player, setPlayer] = useState("");
  return html`<section class="card organiser" data-testid="organiser">
    <h3>${t("org.title")}</h3>
    <label>${t("org.token")} <input type="password" data-testid="organiser-token" value=${tok}
      autocomplete="off" onInput=${(e) => setTok(e.target.value)} /> <small class="muted">${t("org.token_hint")}</small></label>
    ${tok ? html`<label>${t("org.reason")} <input data-testid="organiser-reason" value=${reason} maxlength="200"
        onInput=${(e) => setReason(e.target.value)} /></label>
      <label>${t("org.enter")} <input data-testid="enter-player" value=${player} onInput=${(e) => setPlayer(e.target.value)} />
        <button type="button" data-testid="enter-submit" onClick=${() => onEnter(player.trim())}>${t("org.enter_submit")}</button></label>` : null}
    ${done ? html`<p data-testid="organiser-done">${done}</p>` : null}
  </section>`;
}

function Standings({ standings, names, onWithdraw }) {
  return html`<section class="card">
    <h3>${t("league.standings")} ${standings.provisional ? html`<small class="muted">(${t("league.provisional")})</small>` : null}</h3>
    <div class="scroll"><table class="standings">
      <thead><tr><th>${t("league.place")}</th><th>${t("league.player")}</th><th>${t("league.points")}</th>
        <th>${t("league.buchholz")}</th><th>${t("league.wins")}</th><th>${t("league.score")}</th>
        <th>${t("league.games")}</th><th>${t("league.byes")}</th><th>${t("league.decided_by")}</th></tr></thead>
      <tbody>${standings.rows.map((row) => html`<tr data-testid="standing" data-player-id=${row.player_id} data-place=${row.place}
          data-points=${row.points} class=${row.provisional ? "provisional" : ""}>
        <td>${row.place}</td><td><a href=${`#/players/${row.player_id}`}>${row.display_name || names[row.player_id] || shortId(row.player_id)}</a>
          ${row.provisional ? html` <small class="muted">*</small>` : null}
          ${onWithdraw && !row.withdrawn_from_round ? html` <button type="button" class="small" data-testid="withdraw"
            data-player-id=${row.player_id} onClick=${() => onWithdraw(row.player_id)}>${t("org.withdraw")}</button>` : null}</td>
        <td>${row.points}</td><td>${row.buchholz}</td><td>${row.wins}</td><td>${row.score}</td><td>${row.games}</td><td>${row.byes}</td>
        <td title=${row.explanation ?? ""}>${row.decided_by ? t(`league.${row.decided_by}`) : ""}</td>
      </tr>`)}</tbody>
    </table></div>
    <p class="muted">${(standings.tie_breaks || []).join(" › ")}</p>
  </section>`;
}

function TableTools({ table, round, names, clocked, onForfeit, onReseat, onVoid }) {
  const [absent, setAbsent] = useState(table.seats[0]);
  const voidButton = html` <button type="button" class="small" data-testid="void-table"
    onClick=${() => onVoid(round, table.table_no)}>${t("org.void")}</button>`;
  if (["aborted", "failed"].includes(table.status)) {
    // a table whose game has a clock (its own or the league's) can also be re-seated without one
    const noClock = clocked ? html` <button type="button" class="small" data-testid="reseat-no-clock"
      onClick=${() => onReseat(round, table.table_no, true)}>${t("org.reseat_no_clock")}</button>` : null;
    return html` <button type="button" data-testid="reseat" onClick=${() => onReseat(round, table.table_no, false)}>${t("org.reseat")}</button>${noClock}${voidButton}`;
  }
  if (!["requested", "created"].includes(table.status)) return null;
  return html` <span class="forfeit">${t("org.forfeit")}
    <select data-testid="forfeit-absent" onChange=${(e) => setAbsent(e.target.value)}>
      ${table.seats.map((p) => html`<option value=${p} selected=${p === absent}>${names[p] || shortId(p)}</option>`)}
    </select>
    <button type="button" data-testid="record-forfeit" onClick=${() => onForfeit(round, table.table_no, absent)}>${t("org.record_forfeit")}</button></span>${voidButton}`;
}

function Rounds({ league, names, tools }) {
  const name = (id) => names[id] || shortId(id);
  return html`<section class="card">
    <h3>${t("league.rounds")} (${league.seated_rounds}/${league.rounds})</h3>
    ${(league.schedule || []).map((round) => html`<div class="round" data-round=${round.round}>
      <h4>${t("league.round", { n: round.round })} ${round.complete ? "✓" : ""}
        <small>${t("league.round_results")}:
          <a data-testid="round-results-json" href=${api.roundResultsUrl(league.id, round.round, "json")}>JSON</a> ·
          <a href=${api.roundResultsUrl(league.id, round.round, "csv")}>CSV</a> ·
          <a href=${api.roundResultsUrl(league.id, round.round, "trf")}>TRF</a></small></h4>
      <ul>${round.tables.map((table) => html`<li data-testid="league-table" data-game-id=${table.game_id ?? ""} data-status=${table.status}
          data-round=${round.round} data-table=${table.table_no}>
        ${t("league.table", { n: table.table_no })}:
        ${table.seats.map((p, i) => html`<span class="row-seat"><a href=${`#/players/${p}`}>${name(p)}</a>
          ${table.scores ? html` <small>${table.scores[i]}${table.ranks ? ` (#${table.ranks[i]})` : ""}</small>` : null}</span> `)}
        · ${table.game_id ? html`<a href=${`#/games/${table.game_id}`}>${table.status}</a>` : html`<span class="muted">${table.status}</span>`}
        ${table.replay_of ? html` <small class="muted">(replay of ${shortId(table.replay_of)})</small>` : null}
        ${table.failure ? html` <small class="problem">${t("org.failed", { reason: table.failure.reason })}</small>` : null}
        ${tools ? html`<${TableTools} table=${table} round=${round.round} names=${names}
          clocked=${!table.no_clock && Boolean(table.clock || league.clock)} ...${tools} />` : null}
        ${table.reason ? html`<br /><small class="muted">${table.reason}</small>` : null}
      </li>`)}</ul>
      ${round.byes?.length ? html`<p>${t("league.byes")}: ${round.byes.map(name).join(", ")}</p>` : null}
    </div>`)}
    ${league.disputes?.length ? html`<h4>Disputes</h4><ul>${league.disputes.map((d) => html`<li>
      <a href=${`#/games/${d.game_id}/replay`}>${shortId(d.game_id)}</a> · ${d.status ?? ""} ${d.ruling ? `· ${typeof d.ruling === "string" ? d.ruling : d.ruling.decision ?? ""}` : ""}</li>`)}</ul>` : null}
  </section>`;
}

export function LeaguePage({ leagueId }) {
  const [league, setLeague] = useState(null);
  const [standings, setStandings] = useState(null);
  const [problem, setProblem] = useState(null);
  const [tok, setTokState] = useState(sessionStorage.getItem(ORGANISER_KEY) || "");
  const [reason, setReason] = useState("");
  const [done, setDone] = useState(null);
  const [reloads, setReloads] = useState(0);
  const setTok = (value) => { setTokState(value); value ? sessionStorage.setItem(ORGANISER_KEY, value) : sessionStorage.removeItem(ORGANISER_KEY); };
  useEffect(() => {
    let alive = true;
    const load = () => Promise.all([api.league(leagueId), api.standings(leagueId)])
      .then(([l, s]) => { if (alive) { setLeague(l); setStandings(s); } }, (e) => alive && setProblem(e));
    load();
    const timer = setInterval(load, config.pollMs * 3);
    return () => { alive = false; clearInterval(timer); };
  }, [leagueId, reloads]);
  const run = async (what, call) => {
    setProblem(null);
    setDone(null);
    try { await call(); setDone(t("org.done", { what })); } catch (error) { setProblem(error); }
    setReloads((n) => n + 1);
  };
  const why = () => reason.trim() || "organiser";
  const tools = tok ? {
    onForfeit: (round, table, absent) => run(`${t("org.forfeit")} ${round}.${table}`,
      () => api.forfeit(leagueId, round, table, { absent: [absent], reason: why() }, tok)),
    onReseat: (round, table, noClock) => run(`${t(noClock ? "org.reseat_no_clock" : "org.reseat")} ${round}.${table}`,
      () => api.reseat(leagueId, round, table, noClock ? { reason: why(), no_clock: true } : { reason: why() }, tok)),
    onVoid: (round, table) => run(`${t("org.void")} ${round}.${table}`,
      () => api.voidTable(leagueId, round, table, { reason: why() }, tok)),
  } : null;
  const onWithdraw = tok ? (playerId) => run(t("org.withdraw"), () => api.withdraw(leagueId, { player_id: playerId, reason: why() }, tok)) : null;
  const onEnter = (playerId) => run(t("org.enter_submit"), () => api.enterLate(leagueId, { player_id: playerId }, tok));
  if (!league) return html`<section id="league">${problem ? html`<${ProblemBox} problem=${problem} />` : html`<${Loading} />`}</section>`;
  const names = Object.fromEntries((league.participants || []).map((p) => [p.player_id, p.display_name]));
  return html`<section id="league" data-league-id=${league.id} data-status=${league.status}>
    <div class="table-head">
      <h2>${league.name}</h2>
      <span>${gameTitle(league.game_type)} · ${league.format} · ${league.status}</span>
      <span>${t("league.export")}:
        <a data-testid="league-export-csv" href=${api.leagueExportUrl(league.id, "csv")}>CSV</a> ·
        <a data-testid="league-export-json" href=${api.leagueExportUrl(league.id, "json")}>JSON</a></span>
    </div>
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
    <${Organiser} tok=${tok} setTok=${setTok} reason=${reason} setReason=${setReason} onEnter=${onEnter} done=${done} />
    <div class="grid2">
      ${standings ? html`<${Standings} standings=${standings} names=${names} onWithdraw=${league.status === "completed" ? null : onWithdraw} />` : html`<${Loading} />`}
      <${Rounds} league=${league} names=${names} tools=${league.status === "completed" ? null : tools} />
    </div>
  </section>`;
}
