// #/leagues/<id>: a league for organisers and players: standings (GET .../standings), every round's
// tables with links to their games, byes and disputes, and the CSV/JSON export links. #/leagues lists them.
// Test hooks: #league, [data-testid=standing] rows (data-player-id, data-place), [data-testid=league-table].
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

function Standings({ standings, names }) {
  return html`<section class="card">
    <h3>${t("league.standings")} ${standings.provisional ? html`<small class="muted">(${t("league.provisional")})</small>` : null}</h3>
    <div class="scroll"><table class="standings">
      <thead><tr><th>${t("league.place")}</th><th>${t("league.player")}</th><th>${t("league.points")}</th>
        <th>${t("league.buchholz")}</th><th>${t("league.wins")}</th><th>${t("league.score")}</th>
        <th>${t("league.games")}</th><th>${t("league.byes")}</th><th>${t("league.decided_by")}</th></tr></thead>
      <tbody>${standings.rows.map((row) => html`<tr data-testid="standing" data-player-id=${row.player_id} data-place=${row.place}
          data-points=${row.points} class=${row.provisional ? "provisional" : ""}>
        <td>${row.place}</td><td><a href=${`#/players/${row.player_id}`}>${row.display_name || names[row.player_id] || shortId(row.player_id)}</a>
          ${row.provisional ? html` <small class="muted">*</small>` : null}</td>
        <td>${row.points}</td><td>${row.buchholz}</td><td>${row.wins}</td><td>${row.score}</td><td>${row.games}</td><td>${row.byes}</td>
        <td title=${row.explanation ?? ""}>${row.decided_by ? t(`league.${row.decided_by}`) : ""}</td>
      </tr>`)}</tbody>
    </table></div>
    <p class="muted">${(standings.tie_breaks || []).join(" › ")}</p>
  </section>`;
}

function Rounds({ league, names }) {
  const name = (id) => names[id] || shortId(id);
  return html`<section class="card">
    <h3>${t("league.rounds")} (${league.seated_rounds}/${league.rounds})</h3>
    ${(league.schedule || []).map((round) => html`<div class="round" data-round=${round.round}>
      <h4>${t("league.round", { n: round.round })} ${round.complete ? "✓" : ""}</h4>
      <ul>${round.tables.map((table) => html`<li data-testid="league-table" data-game-id=${table.game_id ?? ""} data-status=${table.status}>
        ${t("league.table", { n: table.table_no })}:
        ${table.seats.map((p, i) => html`<span class="row-seat"><a href=${`#/players/${p}`}>${name(p)}</a>
          ${table.scores ? html` <small>${table.scores[i]}${table.ranks ? ` (#${table.ranks[i]})` : ""}</small>` : null}</span> `)}
        · ${table.game_id ? html`<a href=${`#/games/${table.game_id}`}>${table.status}</a>` : html`<span class="muted">${table.status}</span>`}
        ${table.replay_of ? html` <small class="muted">(replay of ${shortId(table.replay_of)})</small>` : null}
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
  useEffect(() => {
    let alive = true;
    const load = () => Promise.all([api.league(leagueId), api.standings(leagueId)])
      .then(([l, s]) => { if (alive) { setLeague(l); setStandings(s); setProblem(null); } }, (e) => alive && setProblem(e));
    load();
    const timer = setInterval(load, config.pollMs * 3);
    return () => { alive = false; clearInterval(timer); };
  }, [leagueId]);
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
    <${ProblemBox} problem=${problem} />
    <div class="grid2">
      ${standings ? html`<${Standings} standings=${standings} names=${names} />` : html`<${Loading} />`}
      <${Rounds} league=${league} names=${names} />
    </div>
  </section>`;
}
