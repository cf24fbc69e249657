// #/games/<id>: the table. Draws the reader's view (our seat's, or the spectators' when we are not
// seated) with the game type's renderer, turns the legal moves into buttons through it, shows whose
// turn it is, the last events in words, the outcome when finished, and follows the game live (SSE).
//
// Test hooks (services/web/README.md): #table[data-game-id, data-game-type, data-version, data-status,
// data-seat, data-to-move, data-busy], [data-testid=event-log] li[data-version], [data-testid=outcome]
// [data-seat][data-score][data-rank], [data-testid=live][data-state], [data-testid=problem].
import { html, useEffect, useRef, useState, useCallback } from "../lib.js";
import { api, gameEvents, gameWithMoves, makeMove, Problem } from "../api.js";
import { getState, useStore } from "../state.js";
import { t } from "../i18n.js";
import { genericTable, rendererFor } from "../render/index.js";
import { gameTitle, genericDescribe, LiveBadge, Loading, Option, ProblemBox, seatName } from "./common.js";
import { SeatClock } from "./clock.js";

const ENDED = new Set(["finished", "aborted"]);
const RESETTLE_MS = 250; // a read again while moves land faster than we read them

/** The seats' names and the table's status line. */
const BOT_LEVELS = ["random", "rules", "strong"];

/** An open seat's "put a bot here" (the table's creator or an admin may; anyone else gets the 403). */
function AddBot({ seat, onBot, busy }) {
  const [level, setLevel] = useState("rules");
  return html`<span class="add-bot">
    <select data-testid="bot-level" data-seat=${seat} aria-label=${t("bot.level")} value=${level}
      onChange=${(e) => setLevel(e.target.value)}>
      ${BOT_LEVELS.map((l) => html`<${Option} value=${l} selected=${l === level}>${t(`bot.${l}`)}<//>`)}
    </select>
    <button type="button" data-testid="add-bot" data-seat=${seat} disabled=${busy}
      onClick=${() => onBot(seat, level)}>${t("bot.add")}</button>
  </span>`;
}

function Seats({ game, mySeat, onJoin, onBot, busy }) {
  return html`<ol class="seats" start="0">
    ${game.seats.map((s) => html`<li class=${[
      "seat",
      s.seat === mySeat ? "mine" : "",
      game.to_move?.includes(s.seat) ? "to-move" : "",
    ].join(" ")} data-seat=${s.seat}>
      <span class="seat-no">${s.seat}</span>
      ${game.clock ? html`<${SeatClock} clock=${game.clock} seat=${s.seat} ended=${ENDED.has(game.status)} />` : null}
      ${s.player_id
        ? html`<a href=${`#/players/${s.player_id}`}>${s.display_name || s.player_id.slice(0, 8)}</a>
            ${s.bot ? html` <span class="bot-badge" data-testid="bot-badge" data-level=${s.bot.level}>${t("bot.badge", { level: t(`bot.${s.bot.level}`) })}</span>` : null}
            ${s.seat === mySeat ? html` <em>(${t("table.you")})</em>` : null}`
        : game.status === "open" && onJoin && mySeat === null
          ? html`<button type="button" data-testid="join" data-seat=${s.seat} disabled=${busy}
              onClick=${() => onJoin(s.seat)}>${t("join.seat", { seat: s.seat })}</button>
              ${onBot ? html`<${AddBot} seat=${s.seat} onBot=${onBot} busy=${busy} />` : null}`
          : game.status === "open" && onBot
            ? html`<span class="open-seat">${t("table.open_seat")}</span> <${AddBot} seat=${s.seat} onBot=${onBot} busy=${busy} />`
            : html`<span class="open-seat">${t("table.open_seat")}</span>`}
    </li>`)}
  </ol>`;
}

export function Outcome({ game }) {
  const o = game.outcome;
  if (!o) return null;
  const rows = game.seats.map((s) => ({ seat: s.seat, name: seatName(game.seats, s.seat),
    rank: o.ranks?.[s.seat], score: o.scores?.[s.seat] }));
  rows.sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat);
  return html`<section class="outcome" data-testid="outcome" aria-label=${t("table.outcome")}>
    <h3>${t("table.outcome")}${o.reason ? html` <small>(${o.reason})</small>` : null}</h3>
    <table>
      <thead><tr><th>${t("table.rank")}</th><th>${t("lobby.seats")}</th><th>${t("table.score")}</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr data-seat=${r.seat} data-score=${r.score ?? ""} data-rank=${r.rank ?? ""}>
        <td>${r.rank ?? "–"}</td><td>${r.name}</td><td>${r.score ?? "–"}</td></tr>`)}</tbody>
    </table>
    ${o.teams ? html`<p>${o.teams.map((team, i) => html`<span class="team">${team.map((s) => seatName(game.seats, s)).join(" + ")}:
      ${o.team_scores?.[i] ?? "–"} (${t("table.rank")} ${o.team_ranks?.[i] ?? "–"}) </span>`)}</p>` : null}
  </section>`;
}

/** Every event of the game in words, the newest first (each version once). */
export function EventLog({ events, describe, seats }) {
  const shown = [...events].reverse();
  return html`<section class="events" aria-label=${t("table.events")}>
    <h3>${t("table.events")}</h3>
    <ol class="event-log" data-testid="event-log" reversed aria-live="polite">
      ${shown.map((e) => html`<li key=${e.version} data-version=${e.version} data-type=${e.type}>
        <span class="v">${e.version}</span> ${describeSafely(describe, e, seats)}</li>`)}
    </ol>
  </section>`;
}

function describeSafely(describe, event, seats) {
  if (describe) {
    try {
      const said = describe(event, t, getState().lang, seats);
      if (said) return said;
    } catch (error) {
      console.warn("describeEvent failed", error);
    }
  }
  return genericDescribe(event, seats);
}

/** The whole log as the caller may see it (GET .../events pages through it, 1000 a page). */
export async function allEvents(gameId, upTo = Infinity) {
  const events = [];
  let after = 0;
  let page;
  do {
    page = await api.events(gameId, after, 1000);
    events.push(...page.events);
    if (page.events.length) after = page.events[page.events.length - 1].version;
  } while (page.events.length && after < Math.min(page.version, upTo));
  return { ...page, events: events.filter((e) => e.version <= upTo) };
}

/** Draw with the renderer; a renderer that throws falls back to the generic one (still playable). */
export function drawTable(renderer, ctx) {
  try {
    return (renderer?.renderTable || genericTable)(ctx);
  } catch (error) {
    console.error("renderer failed; drawing the generic table", error);
    return genericTable(ctx);
  }
}

export function TablePage({ gameId }) {
  const store = useStore();
  const [game, setGame] = useState(null);
  const [legal, setLegal] = useState({ version: -1, moves: [] });
  const [renderer, setRenderer] = useState(null);
  const [events, setEvents] = useState([]);
  const [problem, setProblem] = useState(null);
  const [loadProblem, setLoadProblem] = useState(null);
  const [busy, setBusy] = useState(true);
  const [opening, setOpening] = useState(true); // until the live stream is started (or the game has ended)
  const [live, setLive] = useState("connecting");
  const [seed, setSeed] = useState("");
  const ref = useRef({ game: null, busyCount: 0, dirty: false, seen: new Set(), alive: true });

  const addEvents = useCallback((list) => {
    const seen = ref.current.seen;
    const fresh = list.filter((e) => typeof e.version === "number" && !seen.has(e.version));
    if (!fresh.length) return;
    for (const e of fresh) seen.add(e.version);
    setEvents((old) => [...old, ...fresh].sort((a, b) => a.version - b.version));
  }, []);

  const begin = () => { ref.current.busyCount += 1; setBusy(true); };
  const end = () => { ref.current.busyCount = Math.max(0, ref.current.busyCount - 1); if (!ref.current.busyCount) setBusy(false); };

  /** The game and our legal moves at one version (`gameWithMoves`); while moves land faster than we read
   * them, the game is drawn without moves, the table stays busy and is read again shortly. */
  const reload = useCallback(async () => {
    begin();
    try {
      const seated = (d) => Boolean(getState().token) && typeof d.your_seat === "number" && d.status === "running";
      const { detail, moves, settled } = await gameWithMoves(gameId, seated);
      if (!ref.current.alive) return null;
      ref.current.game = detail;
      setGame(detail);
      setLegal(moves);
      setLoadProblem(null);
      if (!settled) {
        clearTimeout(ref.current.retry);
        ref.current.retry = setTimeout(() => ref.current.alive && ref.current.scheduleReload?.(), RESETTLE_MS);
        return null;
      }
      return moves;
    } catch (error) {
      if (ref.current.alive) {
        setLoadProblem(error);
        // offline or a service restarting: try again shortly (the stream may have delivered events we
        // could not draw yet, and no further event may come to trigger a reload)
        if (!(error instanceof Problem) || error.status === 0 || error.status >= 500 || error.status === 429) {
          clearTimeout(ref.current.retry);
          ref.current.retry = setTimeout(() => ref.current.alive && ref.current.scheduleReload?.(), 1500);
        }
      }
      return null;
    } finally {
      end();
    }
  }, [gameId]);

  // a reload when events arrive; several at once coalesce into one
  const scheduleReload = useCallback(() => {
    if (ref.current.reloading) { ref.current.dirty = true; return; }
    ref.current.reloading = true;
    (async () => {
      do {
        ref.current.dirty = false;
        await reload();
      } while (ref.current.dirty && ref.current.alive);
      ref.current.reloading = false;
    })();
  }, [reload]);
  ref.current.scheduleReload = scheduleReload;

  // back online: draw what happened meanwhile (the stream reconnects by itself)
  useEffect(() => {
    const online = () => scheduleReload();
    window.addEventListener("online", online);
    return () => { window.removeEventListener("online", online); clearTimeout(ref.current.retry); };
  }, [scheduleReload]);

  // first load: the game and our legal moves (read again after a failure until they come)
  useEffect(() => {
    ref.current.alive = true;
    reload();
    return () => { ref.current.alive = false; };
  }, [gameId]);

  // once the game is known, at the first load or at a later try after it failed: the renderer, the events
  // so far, then the live stream (the table is busy until it is started)
  const loaded = game !== null;
  useEffect(() => {
    if (!loaded) return undefined;
    let stream = null;
    let gone = false;
    (async () => {
      try {
        const detail = ref.current.game;
        rendererFor(detail.game_type).then((mod) => ref.current.alive && setRenderer(mod));
        const log = await allEvents(gameId).catch(() => null);
        if (gone) return;
        if (log) addEvents(log.events);
        if (log && log.version > (ref.current.game?.version ?? 0)) scheduleReload(); // a move landed meanwhile
        if (ENDED.has(detail.status)) { setLive("closed"); return; }
        stream = gameEvents(gameId, {
          after: log ? log.version : detail.version,
          onState: (s) => ref.current.alive && setLive(s),
          shouldReconnect: () => ref.current.alive && !ENDED.has(ref.current.game?.status),
          onEvent(event) {
            addEvents([event]);
            if (event.version > (ref.current.game?.version ?? 0)) scheduleReload();
          },
        });
      } finally {
        if (!gone) setOpening(false);
      }
    })();
    return () => {
      gone = true;
      stream?.close();
    };
  }, [gameId, loaded]);

  // logging in or out changes what we may see: reload
  useEffect(() => { if (ref.current.game) scheduleReload(); }, [store.token]);

  const act = useCallback(async (move) => {
    const current = ref.current.game;
    if (!current || ref.current.busyCount) return;
    begin();
    setProblem(null);
    try {
      const answer = await makeMove(gameId, move, current.version, () => api.legalMoves(gameId));
      addEvents(answer.events || []);
    } catch (error) {
      setProblem(error instanceof Problem ? error : new Problem({ detail: String(error) }, 0));
    } finally {
      await reload();
      end();
    }
  }, [gameId, reload]);

  const join = useCallback(async (seat) => {
    begin();
    setProblem(null);
    try {
      await api.join(gameId, seat, seed.trim() || undefined);
    } catch (error) {
      setProblem(error);
    } finally {
      await reload();
      end();
    }
  }, [gameId, seed, reload]);

  const seatBot = useCallback(async (seat, level) => {
    begin();
    setProblem(null);
    try {
      await api.seatBot(gameId, seat, level);
    } catch (error) {
      setProblem(error);
    } finally {
      await reload();
      end();
    }
  }, [gameId, reload]);

  const resign = useCallback(async () => {
    if (!window.confirm(t("table.resign_confirm"))) return;
    begin();
    try { await api.resign(gameId); } catch (error) { setProblem(error); } finally { await reload(); end(); }
  }, [gameId, reload]);

  if (!game) {
    return html`<section id="table" data-game-id=${gameId} data-busy="1" data-version="" data-status="" data-seat=""
        data-to-move="" data-game-type="">
      ${loadProblem ? html`<${ProblemBox} problem=${loadProblem} />` : html`<${Loading} />`}</section>`;
  }
  const mySeat = typeof game.your_seat === "number" ? game.your_seat : null;
  const settled = legal.version === game.version; // our legal moves read at the game's version (gameWithMoves)
  const moves = settled ? legal.moves : [];
  const toMove = game.to_move || [];
  const ctx = { view: game.view, moves, seat: mySeat, seats: game.seats, act, t, lang: store.lang, game };
  const describe = renderer?.describeEvent;
  const waiting = busy || !settled || opening; // a move or read under way, or the live stream not yet started
  return html`<section id="table" class=${`table game-${game.game_type}`} data-game-id=${game.id}
      data-game-type=${game.game_type} data-version=${game.version} data-status=${game.status}
      data-seat=${mySeat ?? ""} data-to-move=${toMove.join(",")} data-busy=${waiting ? "1" : "0"} aria-busy=${waiting}>
    <div class="table-head">
      <h2>${gameTitle(game.game_type)} <small class="muted">${game.id.slice(0, 8)}</small></h2>
      <span class=${`status status-${game.status}`}>${t(`table.status.${game.status}`)}</span>
      <${LiveBadge} state=${live} />
      <a href=${`#/games/${game.id}/replay`}>${t("table.replay")}</a>
    </div>
    <${Seats} game=${game} mySeat=${mySeat} onJoin=${store.token ? join : null}
      onBot=${store.token && game.status === "open" ? seatBot : null} busy=${busy} />
    ${game.status === "open" && store.token && mySeat === null ? html`<label class="seed">${t("join.client_seed")}
      <input data-testid="client-seed" value=${seed} maxlength="64" pattern="[A-Za-z0-9_.\\-]{1,64}"
        title=${t("join.client_seed_hint")} onInput=${(e) => setSeed(e.target.value)} /></label>` : null}
    <p class="turn" aria-live="polite">
      ${game.status === "open" ? t("table.waiting")
        : game.status === "running" ? (mySeat !== null && toMove.includes(mySeat) ? html`<strong>${t("table.your_turn")}</strong>`
          : t("table.to_move", { who: toMove.map((s) => seatName(game.seats, s)).join(", ") || "–" }))
        : null}
      ${mySeat === null && game.status !== "open" ? html` <span class="muted">${t("table.spectator")}</span>` : null}
      ${game.waiting_for ? html` <span class="muted">${t("table.waiting_for", { what: game.waiting_for.kind || JSON.stringify(game.waiting_for) })}</span>` : null}
    </p>
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
    ${loadProblem ? html`<${ProblemBox} problem=${loadProblem} />` : null}
    <div class="table-body">
      <div class="table-main">
        ${ENDED.has(game.status) ? html`<${Outcome} game=${game} />` : null}
        ${game.view && game.status !== "open" ? html`<div class="board" aria-label=${t("table.title")}>
          ${drawTable(renderer, ctx)}</div>` : null}
        ${game.status === "running" && mySeat !== null
          ? html`<p><button type="button" class="resign" onClick=${resign} disabled=${busy}>${t("table.resign")}</button></p>` : null}
      </div>
      <aside class="table-side">
        <${EventLog} events=${events} describe=${describe} seats=${game.seats} />
      </aside>
    </div>
  </section>`;
}
