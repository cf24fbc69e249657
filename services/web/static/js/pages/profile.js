// #/players/<id>: a player's profile: display name, games per game type (games service), the rating
// history chart of every pool played (ratings service SVG) and the recent games (GET /v1/games?player=).
// Test hook: #profile (data-player-id), [data-testid=rating-chart][data-pool].
import { html, useEffect, useState } from "../lib.js";
import { api } from "../api.js";
import { t } from "../i18n.js";
import { gameTitle, Loading, ProblemBox, shortId } from "./common.js";

export function ProfilePage({ playerId }) {
  const [profile, setProfile] = useState(null);
  const [ratings, setRatings] = useState(null);
  const [games, setGames] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    api.player(playerId).then(setProfile, setProblem);
    api.ratings(playerId).then(setRatings, () => setRatings([]));
    api.games({ player: playerId, limit: 20 }).then(setGames, () => setGames({ items: [] }));
  }, [playerId]);
  if (!profile) return html`<section id="profile">${problem ? html`<${ProblemBox} problem=${problem} />` : html`<${Loading} />`}</section>`;
  const pools = Array.isArray(ratings) ? ratings : ratings?.pools || [];
  return html`<section id="profile" data-player-id=${profile.id}>
    <h2>${profile.display_name}</h2>
    <p class="muted">${t("profile.since", { date: new Date(profile.created_at).toLocaleDateString() })} · ${profile.games_played_total}</p>
    <div class="grid2">
      <section class="card">
        <h3>${t("profile.games")}</h3>
        <table><tbody>${Object.entries(profile.games_played || {}).map(([type, n]) => html`<tr data-game-type=${type}>
          <td>${gameTitle(type)}</td><td>${n}</td></tr>`)}</tbody></table>
        <h3>${t("profile.recent")}</h3>
        ${!games ? html`<${Loading} />` : html`<ul>${games.items.map((g) => html`<li data-game-id=${g.id}>
          <a href=${`#/games/${g.id}`}>${gameTitle(g.game_type)} ${shortId(g.id)}</a> · ${t(`table.status.${g.status}`)}
          ${g.outcome ? (() => { const s = g.seats.find((x) => x.player_id === profile.id); return s ? html` · #${g.outcome.ranks?.[s.seat]} (${g.outcome.scores?.[s.seat]})` : null; })() : null}
          ${g.status === "finished" ? html` · <a href=${`#/games/${g.id}/replay`}>${t("table.replay")}</a>` : null}</li>`)}</ul>`}
      </section>
      <section class="card">
        <h3>${t("profile.ratings")}</h3>
        ${ratings === null ? html`<${Loading} />` : !pools.length ? html`<p class="muted">${t("profile.no_ratings")}</p>`
          : pools.map((r) => html`<figure class="chart" data-testid="rating-chart" data-pool=${r.pool}>
              <figcaption>${r.pool}${typeof r.ordinal === "number" ? ` · ${r.ordinal.toFixed(1)}` : ""}
                ${typeof r.mu === "number" ? html` <small class="muted">μ ${r.mu.toFixed(1)} σ ${r.sigma?.toFixed(1)}</small>` : null}</figcaption>
              <img src=${api.ratingChartUrl(profile.id, r.pool)} alt=${`${t("profile.ratings")} ${r.pool}`} loading="lazy" />
            </figure>`)}
      </section>
    </div>
  </section>`;
}
