// #/: the lobby. Register (or see who you are), open tables and running games (GET /v1/games), a table
// for any game type, variant and option (the form comes from GET /v1/game-types), the matchmaking queue
// with the ticket's live status, and private tables by invite code.
import { html, useCallback, useEffect, useRef, useState } from "../lib.js";
import { api, liveStream, Problem } from "../api.js";
import { config } from "../config.js";
import { getState, logIn, setState, useStore } from "../state.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { cleanOptions, defaultsOf, OptionsForm } from "./options.js";
import { ClockFields } from "./clock.js";
import { gameTitle, Loading, Option, ProblemBox, seatName, shortId } from "./common.js";

const TICKET_KEY = "speltafel.ticket";

/** The game types, fetched once per page load and kept in the store. */
export async function loadGameTypes() {
  if (!getState().gameTypes) setState({ gameTypes: await api.gameTypes() });
  return getState().gameTypes;
}

export function useGameTypes() {
  const store = useStore();
  const [problem, setProblem] = useState(null);
  useEffect(() => { loadGameTypes().catch(setProblem); }, []);
  return [store.gameTypes, problem];
}

function Register() {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      logIn(await api.register(name.trim()));
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  }
  return html`<form class="card register" onSubmit=${submit}>
    <h2>${t("register.title")}</h2>
    <label>${t("register.name")}
      <input data-testid="register-name" required maxlength="40" autocomplete="nickname" value=${name}
        onInput=${(e) => setName(e.target.value)} /></label>
    <button type="submit" data-testid="register-submit" disabled=${busy}>${t("register.submit")}</button>
    <p class="muted">${t("register.hint")}</p>
    <${ProblemBox} problem=${problem} />
  </form>`;
}

// a deadline today as a time of day, a later one with its date (correspondence clocks run for days)
function deadlineText(iso) {
  const at = new Date(iso);
  const sameDay = at.toDateString() === new Date().toDateString();
  return sameDay ? at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    : at.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

function GameRow({ game, me, onJoin, busy }) {
  const mine = me && game.seats.some((s) => s.player_id === me.id);
  const open = game.status === "open";
  return html`<li class="game-row" data-testid="game-row" data-game-id=${game.id} data-game-type=${game.game_type}
      data-status=${game.status}>
    <a href=${`#/games/${game.id}`} class="game-link">${gameTitle(game.game_type)} · ${game.num_players}p
      <small class="muted">${shortId(game.id)}</small></a>
    <span class="row-seats">${game.seats.map((s) => html`<span class="row-seat" data-seat=${s.seat}>
      ${s.player_id ? s.display_name || shortId(s.player_id)
        : open && me && !mine ? html`<button type="button" data-testid="join" data-seat=${s.seat} disabled=${busy}
            onClick=${() => onJoin(game, s.seat)}>${t("join.seat", { seat: s.seat })}</button>`
          : html`<em class="muted">${t("table.open_seat")}</em>`}</span>`)}</span>
    ${game.status === "running" ? html`<span class="muted">${t("table.to_move", {
      who: (game.to_move || []).map((s) => seatName(game.seats, s)).join(", ") || "–" })}</span>` : null}
    ${game.status === "running" && game.deadline ? html`<span class="muted" data-testid="row-deadline"
      data-deadline=${game.deadline}>${t("table.deadline", { time: deadlineText(game.deadline) })}</span>` : null}
    ${game.status === "finished" ? html`<a href=${`#/games/${game.id}/replay`}>${t("table.replay")}</a>` : null}
  </li>`;
}

function GameList({ title, status, me, clientSeed, refreshKey, limit = 20 }) {
  const [page, setPage] = useState(null);
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => api.games({ status, limit }).then((p) => { setPage(p); setProblem(null); }, setProblem), [status]);
  useEffect(() => {
    load();
    const timer = setInterval(load, config.pollMs * 2);
    return () => clearInterval(timer);
  }, [load, refreshKey]);
  async function join(game, seat) {
    setBusy(true);
    setProblem(null);
    try {
      await api.join(game.id, seat, clientSeed.trim() || undefined);
      navigate(`/games/${game.id}`);
    } catch (error) {
      setProblem(error);
      load();
    } finally {
      setBusy(false);
    }
  }
  return html`<section class="card list" data-list=${status}>
    <h2>${title} ${page ? html`<small class="muted">(${page.total})</small>` : null}</h2>
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
    ${!page ? html`<${Loading} />` : page.items.length === 0 ? html`<p class="muted">${t("lobby.none")}</p>`
      : html`<ul class="games">${page.items.map((g) => html`<${GameRow} key=${g.id} game=${g} me=${me} onJoin=${join} busy=${busy} />`)}</ul>`}
  </section>`;
}

/** Variants of a game type for a player count: the presets GET /v1/game-types lists. */
function variantsFor(type, numPlayers) {
  return (type?.variants || []).map((v, i) => ({ ...v, index: i })).filter((v) => v.num_players === numPlayers);
}

function CreateTable({ gameTypes, onCreated, clientSeed }) {
  const [typeId, setTypeId] = useState(gameTypes[0]?.id);
  const type = gameTypes.find((g) => g.id === typeId) || gameTypes[0];
  const [numPlayers, setNumPlayers] = useState(type.player_counts[0]);
  const [options, setOptions] = useState(defaultsOf(type.options_schema));
  const [variant, setVariant] = useState("");
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const [invite, setInvite] = useState(null);
  const [sit, setSit] = useState(false);
  const [clock, setClock] = useState(null); // {clock, timeout_policy} or null: no clock

  function chooseType(id) {
    const next = gameTypes.find((g) => g.id === id);
    setTypeId(id);
    setNumPlayers(next.player_counts.includes(numPlayers) ? numPlayers : next.player_counts[0]);
    setOptions(defaultsOf(next.options_schema));
    setVariant("");
    setClock(null);
  }
  function chooseVariant(index) {
    setVariant(index);
    if (index === "") { setOptions(defaultsOf(type.options_schema)); return; }
    const v = type.variants[Number(index)];
    setNumPlayers(v.num_players);
    setOptions({ ...defaultsOf(type.options_schema), ...v.options });
  }
  const counts = [...type.player_counts].sort((a, b) => a - b);
  const body = () => ({ game_type: type.id, num_players: Number(numPlayers), options: cleanOptions(type.options_schema, options) });
  const tableBody = () => ({ ...body(), ...(clock || {}) });

  async function create(e) {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const game = await api.createGame(tableBody());
      if (sit) await api.join(game.id, 0, clientSeed?.trim() || undefined);
      onCreated?.(game);
      navigate(`/games/${game.id}`);
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  }
  async function createPrivate() {
    setBusy(true);
    setProblem(null);
    try {
      const table = await api.createPrivateTable(body());
      setInvite(table);
      if (table.your_ticket_id) onCreated?.(null, table.your_ticket_id);
    } catch (error) {
      setProblem(error);
    } finally {
      setBusy(false);
    }
  }
  return html`<form class="card create" onSubmit=${create}>
    <h2>${t("create.title")}</h2>
    <div class="row">
      <label>${t("create.game_type")}
        <select data-testid="create-game-type" name="game_type" onChange=${(e) => chooseType(e.target.value)}>
          ${gameTypes.map((g) => html`<${Option} value=${g.id} selected=${g.id === type.id}>${g.title}<//>`)}
        </select></label>
      <label>${t("create.num_players")}
        <select data-testid="create-num-players" name="num_players"
          onChange=${(e) => { setNumPlayers(Number(e.target.value)); setVariant(""); }}>
          ${counts.map((n) => html`<${Option} value=${n} selected=${n === Number(numPlayers)}>${n}<//>`)}
        </select></label>
      <label>${t("create.variant")}
        <select data-testid="create-variant" name="variant" onChange=${(e) => chooseVariant(e.target.value)}>
          <${Option} value="" selected=${variant === ""}>${t("create.custom")}<//>
          ${variantsFor(type, Number(numPlayers)).map((v) => html`<${Option} value=${v.index} selected=${String(v.index) === String(variant)}>
            ${Object.entries(v.options).filter(([k, val]) => JSON.stringify(val) !== JSON.stringify(defaultsOf(type.options_schema)[k]))
              .map(([k, val]) => `${k}=${JSON.stringify(val)}`).join(", ") || "standaard / default"}<//>`)}
        </select></label>
    </div>
    <${OptionsForm} key=${type.id} schema=${type.options_schema} values=${options}
      onChange=${(o) => { setOptions(o); setVariant(""); }} />
    <${ClockFields} key=${`clock-${type.id}`} type=${type} value=${clock} onChange=${setClock} />
    <label class="inline"><input type="checkbox" data-testid="create-sit" checked=${sit}
      onChange=${(e) => setSit(e.target.checked)} /> ${t("create.sit")}</label>
    <div class="row">
      <button type="submit" data-testid="create-submit" disabled=${busy}>${t("create.submit")}</button>
      <button type="button" data-testid="create-private" disabled=${busy} onClick=${createPrivate}>${t("invite.create")}</button>
    </div>
    ${invite ? html`<p class="invite">${t("invite.code")}: <code data-testid="invite-code">${invite.invite_code}</code>
      <span class="muted"> ${t("invite.share")}</span></p>` : null}
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
  </form>`;
}

/** The current ticket (matchmaking queue or private table): live status, a link to the game when ready. */
function Ticket({ ticketId, onGone }) {
  const [ticket, setTicket] = useState(null);
  const [problem, setProblem] = useState(null);
  useEffect(() => {
    let alive = true;
    let timer = null;
    const done = (tk) => ["ready", "cancelled", "expired", "failed"].includes(tk?.status);
    const poll = () => api.ticket(ticketId).then((tk) => {
      if (!alive) return;
      setTicket(tk);
      if (!done(tk)) timer = setTimeout(poll, config.pollMs);
    }, (error) => { if (alive) { setProblem(error); if (error.status === 404) onGone(); } });
    poll();
    const stream = liveStream(() => `${api.ticketStreamUrl(ticketId)}?timeout=600`, {
      onMessage(message) {
        try { const tk = JSON.parse(message.data); if (alive && tk.id === ticketId) setTicket(tk); } catch { /* keep polling */ }
      },
      shouldReconnect: () => alive,
    });
    return () => { alive = false; clearTimeout(timer); stream.close(); };
  }, [ticketId]);
  async function leave() {
    try { await api.leaveTicket(ticketId); } catch (error) { if (error.status !== 404) { setProblem(error); return; } }
    onGone();
  }
  if (!ticket) return problem ? html`<${ProblemBox} problem=${problem} />` : html`<${Loading} />`;
  return html`<div class="ticket" data-testid="ticket" data-status=${ticket.status} data-ticket-id=${ticket.id}
      data-game-id=${ticket.game_id ?? ""}>
    <p>${t("queue.ticket", { status: ticket.status })} · ${gameTitle(ticket.game_type)}
      ${ticket.invite_code ? html` · ${t("invite.code")} <code>${ticket.invite_code}</code>` : null}
      ${typeof ticket.waited_seconds === "number" ? html` <small class="muted">${Math.round(ticket.waited_seconds)} s</small>` : null}</p>
    ${ticket.reason ? html`<p class="muted">${ticket.reason}</p>` : null}
    ${ticket.game_id ? html`<p><a class="button" data-testid="ticket-game" href=${`#/games/${ticket.game_id}`}>${t("queue.to_game")}</a></p>` : null}
    ${["waiting", "matched"].includes(ticket.status) || (ticket.private && ticket.status === "waiting")
      ? html`<button type="button" data-testid="queue-leave" onClick=${leave}>${t("queue.leave")}</button>`
      : html`<button type="button" class="link" onClick=${() => onGone()}>${t("common.close")}</button>`}
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
  </div>`;
}

function Matchmaking({ gameTypes, ticketId, setTicketId }) {
  const [typeId, setTypeId] = useState(gameTypes[0]?.id);
  const type = gameTypes.find((g) => g.id === typeId) || gameTypes[0];
  const [counts, setCounts] = useState(null); // null: all of the type's counts
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState(null);
  const [busy, setBusy] = useState(false);
  const chosen = counts || type.player_counts;
  async function run(promise) {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await promise();
      const id = answer.your_ticket_id || answer.id;
      if (id) setTicketId(id);
    } catch (error) {
      if (error instanceof Problem && error.body?.ticket_id) setTicketId(error.body.ticket_id); // already queued
      setProblem(error);
    } finally {
      setBusy(false);
    }
  }
  return html`<section class="card queue">
    <h2>${t("queue.title")}</h2>
    <div class="row">
      <label>${t("queue.game_type")}
        <select data-testid="queue-game-type" onChange=${(e) => { setTypeId(e.target.value); setCounts(null); }}>
          ${gameTypes.map((g) => html`<${Option} value=${g.id} selected=${g.id === type.id}>${g.title}<//>`)}
        </select></label>
      <fieldset class="counts"><legend>${t("queue.counts")}</legend>
        ${[...type.player_counts].sort((a, b) => a - b).map((n) => html`<label class="inline">
          <input type="checkbox" name="queue.player_counts" value=${n} checked=${chosen.includes(n)}
            onChange=${(e) => setCounts(e.target.checked ? [...new Set([...chosen, n])] : chosen.filter((x) => x !== n))} /> ${n}</label>`)}
      </fieldset>
      <button type="button" data-testid="queue-join" disabled=${busy || !chosen.length}
        onClick=${() => run(() => api.createTicket({ game_type: type.id, player_counts: [...chosen].sort((a, b) => b - a) }))}>
        ${t("queue.join")}</button>
    </div>
    <h3>${t("invite.title")}</h3>
    <form class="row" onSubmit=${(e) => { e.preventDefault(); run(() => api.joinPrivateTable(code.trim().toUpperCase())); }}>
      <label>${t("invite.input")}
        <input data-testid="invite-input" value=${code} minlength="4" maxlength="16" autocapitalize="characters"
          onInput=${(e) => setCode(e.target.value)} /></label>
      <button type="submit" data-testid="invite-join" disabled=${busy || code.trim().length < 4}>${t("invite.join")}</button>
    </form>
    ${ticketId ? html`<${Ticket} key=${ticketId} ticketId=${ticketId} onGone=${() => setTicketId(null)} />` : null}
    <${ProblemBox} problem=${problem} onClose=${() => setProblem(null)} />
  </section>`;
}

export function LobbyPage() {
  const store = useStore();
  const [gameTypes, typesProblem] = useGameTypes();
  const [clientSeed, setClientSeed] = useState("");
  const [refreshKey, setRefreshKey] = useState(0);
  const [ticketId, setTicketIdState] = useState(localStorage.getItem(TICKET_KEY));
  const setTicketId = (id) => {
    if (id) localStorage.setItem(TICKET_KEY, id); else localStorage.removeItem(TICKET_KEY);
    setTicketIdState(id);
  };
  const lastToken = useRef(store.token);
  useEffect(() => {
    if (lastToken.current !== store.token) { setTicketId(null); lastToken.current = store.token; }
  }, [store.token]);
  const me = store.player;
  return html`<div id="lobby" class="lobby">
    <div class="col">
      ${me ? null : html`<${Register} />`}
      ${typesProblem ? html`<${ProblemBox} problem=${typesProblem} />` : null}
      ${me && gameTypes ? html`<${CreateTable} gameTypes=${gameTypes} clientSeed=${clientSeed}
        onCreated=${(game, ticket) => { if (ticket) setTicketId(ticket); setRefreshKey((n) => n + 1); }} />` : null}
      ${me && gameTypes ? html`<${Matchmaking} gameTypes=${gameTypes} ticketId=${ticketId} setTicketId=${setTicketId} />` : null}
    </div>
    <div class="col">
      ${me ? html`<label class="card seed">${t("join.client_seed")}
        <input data-testid="client-seed" value=${clientSeed} maxlength="64" pattern="[A-Za-z0-9_.\\-]{1,64}"
          title=${t("join.client_seed_hint")} onInput=${(e) => setClientSeed(e.target.value)} />
        <small class="muted">${t("join.client_seed_hint")}</small></label>` : null}
      <${GameList} title=${t("lobby.open")} status="open" me=${me} clientSeed=${clientSeed} refreshKey=${refreshKey} />
      <${GameList} title=${t("lobby.running")} status="running" me=${me} clientSeed=${clientSeed} refreshKey=${refreshKey} />
      <${GameList} title=${t("lobby.finished")} status="finished" me=${me} clientSeed=${clientSeed} refreshKey=${refreshKey} limit=${10} />
    </div>
  </div>`;
}
