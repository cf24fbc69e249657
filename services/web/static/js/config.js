// Where the API lives. The client calls only the documented public endpoints under one base URL whose
// paths carry the service prefixes /games, /matchmaking, /questions and /ratings (make run's gateway,
// docker-compose's nginx and the k8s ingress all lay them out so). "" means this page's own origin.
// Another base: <meta name="speltafel-api" content="https://api.example"> in index.html, or
// localStorage["speltafel.api"] (handy from the console), or ?api=... once (then remembered).

const KEY = "speltafel.api";

const browser = typeof window !== "undefined" && typeof document !== "undefined";

function fromQuery() {
  if (!browser) return null;
  const match = /[?&]api=([^&#]*)/.exec(window.location.search);
  if (!match) return null;
  const value = decodeURIComponent(match[1]);
  if (value) localStorage.setItem(KEY, value); else localStorage.removeItem(KEY);
  return value;
}

function readBase() {
  if (!browser) return "";
  const meta = document.querySelector('meta[name="speltafel-api"]');
  const chosen = fromQuery() ?? localStorage.getItem(KEY) ?? (meta ? meta.content : "");
  return (chosen || "").replace(/\/+$/, "");
}

export const config = {
  apiBase: readBase(),
  services: ["games", "matchmaking", "questions", "ratings"],
  /** ms between two reconnect attempts of a live stream (the server's `retry:` overrides it) */
  reconnectMs: 2000,
  /** how often the lobby and a ticket without a live stream are refreshed */
  pollMs: 3000,
};

/** The absolute URL of `path` (e.g. "/v1/games") on `service` ("games", ...). */
export function url(service, path, query) {
  let out = `${config.apiBase}/${service}${path}`;
  if (query) {
    const qs = Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
    if (qs) out += `?${qs}`;
  }
  return out;
}
