// The client's small store: who is logged in, the language, the game types (fetched once). Pages
// subscribe with useStore(); everything else is fetched per page from the API.
import { useEffect, useState } from "./lib.js";
import { PLAYER_KEY, TAB_KEY, TOKEN_KEY, identityStorage } from "./api.js";

const LANG_KEY = "speltafel.lang";

function readPlayer() {
  try { return JSON.parse(identityStorage().getItem(PLAYER_KEY) || "null"); } catch { return null; }
}

const state = {
  token: identityStorage().getItem(TOKEN_KEY),
  tabOnly: Boolean(sessionStorage.getItem(TAB_KEY)), // this tab plays as its own player
  player: readPlayer(), // {id, display_name}
  lang: localStorage.getItem(LANG_KEY) || ((navigator.language || "nl").startsWith("en") ? "en" : "nl"),
  gameTypes: null,
};
const listeners = new Set();

export function getState() {
  return state;
}

export function setState(patch) {
  Object.assign(state, patch);
  for (const listener of listeners) listener(state);
}

export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The store in a component: re-renders when it changes. */
export function useStore() {
  const [, setTick] = useState(0);
  useEffect(() => subscribe(() => setTick((n) => n + 1)), []);
  return state;
}

export function logIn(created) {
  const player = { id: created.id, display_name: created.display_name };
  identityStorage().setItem(TOKEN_KEY, created.token);
  identityStorage().setItem(PLAYER_KEY, JSON.stringify(player));
  setState({ token: created.token, player });
}

/** Forget the identity (its token is revoked by the caller). A tab with its own player goes back to
 * the browser's shared one. */
export function logOut() {
  const storage = identityStorage();
  storage.removeItem(TOKEN_KEY);
  storage.removeItem(PLAYER_KEY);
  sessionStorage.removeItem(TAB_KEY);
  setState({ token: identityStorage().getItem(TOKEN_KEY), player: readPlayer(), tabOnly: false });
}

/** Play as another player in this tab only: the registration form appears; the browser's other tabs
 * keep their player (nothing is revoked). */
export function anotherPlayerInThisTab() {
  sessionStorage.setItem(TAB_KEY, "1");
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(PLAYER_KEY);
  setState({ token: null, player: null, tabOnly: true });
}

export function setLang(lang) {
  localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
  setState({ lang });
}

// another tab logged in or out: follow it
window.addEventListener("storage", (e) => {
  if (sessionStorage.getItem(TAB_KEY)) return; // this tab has its own player
  if (e.key === TOKEN_KEY || e.key === PLAYER_KEY) setState({ token: localStorage.getItem(TOKEN_KEY), player: readPlayer() });
});
