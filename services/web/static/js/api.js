// The HTTP API, and nothing but its documented public endpoints (the combined /openapi.json).
// - Bearer token from localStorage "speltafel.token" on every request when there is one.
// - Every error answer (application/problem+json, RFC 9457) becomes a Problem (an Error) carrying
//   status, type, title, detail, rule (the rules spec id of an illegal move), code and field.
// - Moves: POST .../moves with expected_version and a fresh Idempotency-Key (crypto.randomUUID) per
//   move; a 409 reloads the legal moves and retries once with the new version if the move is still
//   legal, else the 409 is shown.
// - Live streams: Server-Sent Events read with fetch (EventSource cannot send an Authorization header,
//   and a seat's events are its own view): reconnects with Last-Event-ID, drops events already seen.
import { config, url } from "./config.js";
import { moveKey } from "./lib.js";

export const TOKEN_KEY = "speltafel.token";
export const PLAYER_KEY = "speltafel.player";

export const TAB_KEY = "speltafel.tab"; // sessionStorage: this tab plays as its own player

/** Where the identity lives: this tab's sessionStorage once it plays as another player (so several
 * tabs of one browser can sit at one table as different players), else the browser's localStorage. */
export function identityStorage() {
  if (!globalThis.localStorage) return null;
  return globalThis.sessionStorage?.getItem(TAB_KEY) ? sessionStorage : localStorage;
}

export function token() {
  return identityStorage()?.getItem(TOKEN_KEY) ?? null;
}

/** An error answer of the API, or a network failure (status 0). */
export class Problem extends Error {
  constructor(body, status) {
    const detail = body?.detail || body?.title || `HTTP ${status}`;
    super(detail);
    this.name = "Problem";
    this.status = body?.status ?? status;
    this.type = body?.type ?? "about:blank";
    this.title = body?.title ?? "";
    this.detail = body?.detail ?? "";
    this.rule = body?.rule ?? null;
    this.code = body?.code ?? null;
    this.errors = body?.errors ?? null;
    this.field = body?.field ?? (body?.errors && typeof body.errors === "object" ? Object.keys(body.errors)[0] ?? null : null);
    this.body = body ?? null;
  }
}

/** Turn an answer into its JSON (null for 204) or throw its Problem. */
export async function readAnswer(response) {
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    throw new Problem(typeof body === "object" && body ? body : { detail: String(body || response.statusText) },
      response.status);
  }
  return body;
}

function authHeaders(extra = {}) {
  const headers = { Accept: "application/json", ...extra };
  const t = token();
  if (t && !headers.Authorization) headers.Authorization = `Bearer ${t}`;
  return headers;
}

/** One call: request("games", "GET", "/v1/games", {query, body, headers}). */
export async function request(service, method, path, { query, body, headers } = {}) {
  const init = { method, headers: authHeaders(headers) };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url(service, path, query), init);
  } catch (error) {
    throw new Problem({ title: "Network error", detail: String(error.message || error) }, 0);
  }
  return readAnswer(response);
}

const g = (method, path, opts) => request("games", method, path, opts);
const asToken = (tok, method, path, body) =>
  request("matchmaking", method, path, { body, headers: tok ? { Authorization: `Bearer ${tok}` } : {} });
const m = (method, path, opts) => request("matchmaking", method, path, opts);
const r = (method, path, opts) => request("ratings", method, path, opts);
const id = encodeURIComponent;

export const api = {
  // players and tokens
  register: (displayName) => g("POST", "/v1/players", { body: { display_name: displayName } }),
  me: () => g("GET", "/v1/players/me"),
  rename: (displayName) => g("PATCH", "/v1/players/me", { body: { display_name: displayName } }),
  revokeToken: () => g("DELETE", "/v1/players/me/tokens/current"),
  player: (playerId) => g("GET", `/v1/players/${id(playerId)}`),
  // games
  gameTypes: () => g("GET", "/v1/game-types"),
  games: (query) => g("GET", "/v1/games", { query }),
  createGame: (body) => g("POST", "/v1/games", { body }),
  game: (gameId) => g("GET", `/v1/games/${id(gameId)}`),
  seatBot: (gameId, seat, level) => g("POST", `/v1/games/${id(gameId)}/seats/${seat}/bot`, { body: { level } }),
  join: (gameId, seat, clientSeed) =>
    g("POST", `/v1/games/${id(gameId)}/join`, { body: clientSeed ? { seat, client_seed: clientSeed } : { seat } }),
  legalMoves: (gameId) => g("GET", `/v1/games/${id(gameId)}/legal-moves`),
  postMove: (gameId, move, expectedVersion, idempotencyKey = newKey()) =>
    g("POST", `/v1/games/${id(gameId)}/moves`, {
      body: { expected_version: expectedVersion, move }, headers: { "Idempotency-Key": idempotencyKey },
    }),
  resign: (gameId) => g("POST", `/v1/games/${id(gameId)}/resign`, { headers: { "Idempotency-Key": newKey() } }),
  events: (gameId, after = 0, limit) => g("GET", `/v1/games/${id(gameId)}/events`, { query: { after, limit } }),
  state: (gameId, version) => g("GET", `/v1/games/${id(gameId)}/state`, { query: { version } }),
  audit: (gameId) => g("GET", `/v1/games/${id(gameId)}/audit`),
  exportUrl: (gameId) => url("games", `/v1/games/${id(gameId)}/export`),
  // matchmaking
  createTicket: (body) => m("POST", "/v1/tickets", { body }),
  ticket: (ticketId) => m("GET", `/v1/tickets/${id(ticketId)}`),
  leaveTicket: (ticketId) => m("DELETE", `/v1/tickets/${id(ticketId)}`),
  ticketStreamUrl: (ticketId) => url("matchmaking", `/v1/tickets/${id(ticketId)}/stream`),
  createPrivateTable: (body) => m("POST", "/v1/private-tables", { body }),
  joinPrivateTable: (code) => m("POST", "/v1/private-tables/join", { body: { code } }),
  privateTable: (tableId) => m("GET", `/v1/private-tables/${id(tableId)}`),
  leagues: (query) => m("GET", "/v1/leagues", { query }),
  league: (leagueId) => m("GET", `/v1/leagues/${id(leagueId)}`),
  standings: (leagueId) => m("GET", `/v1/leagues/${id(leagueId)}/standings`),
  leagueExportUrl: (leagueId, format) => url("matchmaking", `/v1/leagues/${id(leagueId)}/export`, { format }),
  roundResultsUrl: (leagueId, round, format) =>
    url("matchmaking", `/v1/leagues/${id(leagueId)}/rounds/${Number(round)}/results`, { format }),
  // the league's organiser commands, with the organiser's (or admin's) token given on the league page
  withdraw: (leagueId, body, tok) => asToken(tok, "POST", `/v1/leagues/${id(leagueId)}/withdraw`, body),
  enterLate: (leagueId, body, tok) => asToken(tok, "POST", `/v1/leagues/${id(leagueId)}/enter`, body),
  forfeit: (leagueId, round, table, body, tok) =>
    asToken(tok, "POST", `/v1/leagues/${id(leagueId)}/rounds/${Number(round)}/tables/${Number(table)}/forfeit`, body),
  reseat: (leagueId, round, table, body, tok) =>
    asToken(tok, "POST", `/v1/leagues/${id(leagueId)}/rounds/${Number(round)}/tables/${Number(table)}/reseat`, body),
  voidTable: (leagueId, round, table, body, tok) =>
    asToken(tok, "POST", `/v1/leagues/${id(leagueId)}/rounds/${Number(round)}/tables/${Number(table)}/void`, body),
  // ratings
  ratings: (playerId) => r("GET", `/v1/players/${id(playerId)}/ratings`),
  ratingChartUrl: (playerId, pool) => url("ratings", `/v1/players/${id(playerId)}/ratings/${id(pool)}.svg`),
  // health (the status page)
  ready: (service) => fetch(url(service, "/readyz"), { headers: { Accept: "application/json" } })
    .then(async (a) => ({ ok: a.ok, body: await a.json().catch(() => null) }))
    .catch(() => ({ ok: false, body: null })),
};

export function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  // randomUUID needs a secure context; plain http on another host than localhost has none
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The game and, when `wantsMoves(detail)` (a seated player of a running game), the caller's legal moves
 * at the same version. A move landing between the two reads makes them disagree, so both are read again,
 * up to `attempts` times. Returns `{detail, moves, settled}`; when they still disagree (moves landing
 * faster than we read: a game of fast bots), the newest detail with no moves (`version` -1) and `settled`
 * false, so that a page draws the game without move buttons and reads again, instead of drawing nothing. */
export async function gameWithMoves(gameId, wantsMoves, { attempts = 3, readGame = api.game, readMoves = api.legalMoves } = {}) {
  let detail = null;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    detail = await readGame(gameId);
    if (!wantsMoves(detail)) return { detail, moves: { version: detail.version, moves: [] }, settled: true };
    const moves = await readMoves(gameId);
    if (moves.version === detail.version) return { detail, moves, settled: true };
  }
  return { detail, moves: { version: -1, moves: [] }, settled: false };
}

/** Make `move` at `version`. On 409 (someone moved first, or our view was stale) `reload()` must return
 * the fresh `{version, moves}` (GET .../legal-moves); the move is retried once, with a new key, if it is
 * still among them; otherwise the 409 is thrown. Returns the move answer ({version, status, events}). */
export async function makeMove(gameId, move, version, reload, post = api.postMove) {
  try {
    return await post(gameId, move, version, newKey());
  } catch (error) {
    if (!(error instanceof Problem) || error.status !== 409) throw error;
    const fresh = await reload();
    const wanted = moveKey(move);
    if (!fresh || !fresh.moves.some((m2) => moveKey(m2) === wanted)) throw error;
    return post(gameId, move, fresh.version, newKey());
  }
}

/** Parse Server-Sent Events text; returns [complete messages, the rest]. A message: {id, event, data, retry}. */
export function parseSse(buffer) {
  const messages = [];
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    const message = { id: null, event: "message", data: [], retry: null };
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") message.data.push(value);
      else if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
      else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
    }
    if (message.data.length || message.retry !== null || message.id !== null) {
      messages.push({ ...message, data: message.data.join("\n") });
    }
  }
  return [messages, rest];
}

/** A live stream read with fetch, so the Bearer token goes along (`streamUrl`: a URL or a function giving
 * it at each connect). `onMessage(message)` for each SSE
 * message with data; `onState("connecting"|"open"|"closed")`; `lastId()` gives the Last-Event-ID to
 * resume from (the caller knows what it has drawn); `shouldReconnect()` false stops it after a close.
 * Returns {close()}. */
export function liveStream(streamUrl, { onMessage, onState, lastId = () => null, shouldReconnect = () => true }) {
  let closed = false;
  let controller = null;
  let retryMs = config.reconnectMs;
  let timer = null;
  let watchdog = null;
  // the server sends a keep-alive comment every 15 s: silence much longer means a dead connection
  // (a sleeping laptop, a dropped network) that no error will report, so drop it and reconnect
  const stillAlive = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => controller?.abort(), config.staleMs);
  };
  const online = () => { // back online: reconnect now, not at the end of the wait
    if (timer !== null) { clearTimeout(timer); timer = null; connect(); } else controller?.abort();
  };
  if (globalThis.addEventListener) globalThis.addEventListener("online", online);

  async function connect() {
    timer = null;
    if (closed) return;
    onState?.("connecting");
    controller = new AbortController();
    stillAlive();
    const headers = authHeaders({ Accept: "text/event-stream" });
    const last = lastId();
    if (last !== null && last !== undefined) headers["Last-Event-ID"] = String(last);
    try {
      const target = typeof streamUrl === "function" ? streamUrl() : streamUrl;
      const response = await fetch(target, { headers, signal: controller.signal, cache: "no-store" });
      if (!response.ok) throw await readAnswer(response).catch((e) => e);
      onState?.("open");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stillAlive();
        buffer += decoder.decode(value, { stream: true });
        const [messages, rest] = parseSse(buffer);
        buffer = rest;
        for (const message of messages) {
          if (message.retry !== null) retryMs = message.retry;
          if (message.data) onMessage(message);
        }
      }
    } catch (error) {
      clearTimeout(watchdog);
      if (closed) return;
      if (error instanceof Problem && error.status >= 400 && error.status < 500 && error.status !== 429) {
        closed = true; // 401/403/404: retrying will not help
        onState?.("closed", error);
        return;
      }
    }
    clearTimeout(watchdog);
    if (closed) return;
    if (!shouldReconnect()) {
      closed = true;
      onState?.("closed");
      return;
    }
    onState?.("connecting");
    timer = setTimeout(connect, retryMs);
  }

  connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(watchdog);
      if (globalThis.removeEventListener) globalThis.removeEventListener("online", online);
      controller?.abort();
      onState?.("closed");
    },
    /** drop the connection and reconnect at once (e.g. after the page was offline) */
    reconnect() {
      controller?.abort();
    },
  };
}

/** The live events of a game after version `after`, each version once and in order: `onEvent(event)`
 * gets the GET .../events item shape ({version, type, payload, recorded_at}); a reconnect resumes after
 * the last one delivered (Last-Event-ID and ?after). */
export function gameEvents(gameId, { after, onEvent, onState, shouldReconnect }) {
  let seen = after;
  const from = () => seen;
  return liveStream(() => url("games", `/v1/games/${id(gameId)}/events/stream`, { after: from() }), {
    lastId: from,
    shouldReconnect,
    onState,
    onMessage(message) {
      let event;
      try { event = JSON.parse(message.data); } catch { return; }
      if (typeof event.version !== "number" || event.version <= from()) return; // a repeat
      seen = event.version;
      onEvent(event);
    },
  });
}
