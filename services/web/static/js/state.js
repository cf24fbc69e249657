// The client's small store: who is logged in, the language, the game types (fetched once). Pages
// subscribe with useStore(); everything else is fetched per page from the API.
import { useEffect, useState } from "./lib.js";
import { PLAYER_KEY, TOKEN_KEY } from "./api.js";

const LANG_KEY = "speltafel.lang";

function readPlayer() {
  try { return JSON.parse(localStorage.getItem(PLAYER_KEY) || "null"); } catch { return null; }
}

const state = {
  token: localStorage.getItem(TOKEN_KEY),
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
  localStorage.setItem(TOKEN_KEY, created.token);
  localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
  setState({ token: created.token, player });
}

export function logOut() {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(PLAYER_KEY);
  setState({ token: null, player: null });
}

export function setLang(lang) {
  localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
  setState({ lang });
}

// another tab logged in or out: follow it
window.addEventListener("storage", (e) => {
  if (e.key === TOKEN_KEY || e.key === PLAYER_KEY) setState({ token: localStorage.getItem(TOKEN_KEY), player: readPlayer() });
});
