// The client: a hash router over the pages, the header (who is logged in, logout, language) and the
// problem banner. Routes:
//   #/                     lobby          #/games/<id>          the table (play or watch)
//   #/games/<id>/replay    replay         #/leagues/<id>        a league (#/leagues: the list)
//   #/players/<id>         profile        #/status              the services and their docs
import { html, render, useEffect, useState } from "./lib.js";
import { api } from "./api.js";
import { anotherPlayerInThisTab, getState, logOut, setLang, useStore } from "./state.js";
import { currentPath } from "./router.js";
import { t } from "./i18n.js";
import { LobbyPage } from "./pages/lobby.js";
import { TablePage } from "./pages/table.js";
import { ReplayPage } from "./pages/replay.js";
import { LeaguePage, LeaguesPage } from "./pages/league.js";
import { ProfilePage } from "./pages/profile.js";
import { StatusPage } from "./pages/status.js";

const routes = [
  [/^\/?$/, () => html`<${LobbyPage} />`],
  [/^\/games\/([^/]+)\/replay$/, (id) => html`<${ReplayPage} key=${`r${id}`} gameId=${id} />`],
  [/^\/games\/([^/]+)$/, (id) => html`<${TablePage} key=${`g${id}`} gameId=${id} />`],
  [/^\/leagues\/?$/, () => html`<${LeaguesPage} />`],
  [/^\/leagues\/([^/]+)$/, (id) => html`<${LeaguePage} key=${`l${id}`} leagueId=${id} />`],
  [/^\/players\/([^/]+)$/, (id) => html`<${ProfilePage} key=${`p${id}`} playerId=${id} />`],
  [/^\/status$/, () => html`<${StatusPage} />`],
];

function useRoute() {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return path;
}

function Header() {
  const store = useStore();
  const [busy, setBusy] = useState(false);
  async function logout() {
    setBusy(true);
    try {
      await api.revokeToken();
    } catch (error) {
      console.warn("revoking the token failed; forgetting it anyway", error);
    }
    logOut();
    setBusy(false);
  }
  const other = store.lang === "nl" ? "en" : "nl";
  return html`<header class="top">
    <a class="brand" href="#/">${t("app.title")}</a>
    <nav aria-label="main">
      <a href="#/">${t("nav.lobby")}</a>
      <a href="#/leagues">${t("league.list")}</a>
      <a href="#/status">${t("nav.status")}</a>
    </nav>
    <div class="who">
      ${store.player ? html`
        <a data-testid="me" data-player-id=${store.player.id} href=${`#/players/${store.player.id}`}
          title=${t("nav.profile")}>${store.player.display_name}</a>
        <button type="button" data-testid="logout" disabled=${busy} onClick=${logout}>${t("me.logout")}</button>
        ${store.tabOnly ? null : html`<button type="button" data-testid="another-player" title=${t("me.anotherHint")}
          onClick=${anotherPlayerInThisTab}>${t("me.another")}</button>`}` : null}
      <button type="button" data-testid="lang" data-lang=${store.lang} lang=${other}
        aria-label=${t("lang.label")} onClick=${() => setLang(other)}>${t("lang.toggle")}</button>
    </div>
  </header>`;
}

function App() {
  const path = useRoute();
  useStore(); // a language change redraws every page
  let page = html`<p>404</p>`;
  for (const [pattern, make] of routes) {
    const match = pattern.exec(path);
    if (match) {
      page = make(...match.slice(1));
      break;
    }
  }
  return html`<${Header} /><main>${page}</main>`;
}

document.documentElement.lang = getState().lang;
render(html`<${App} />`, document.getElementById("app"));
