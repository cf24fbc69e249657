// Renderers: one module per game type. A renderer knows no rules: it draws a seat's view and turns the
// listed legal moves into clickable elements. The contract (services/web/README.md, "Renderers"):
//
//   export function renderTable({ view, moves, seat, seats, act, t, lang }) -> vnode
//     view   the game detail's `view` for this reader (a seat's view, or the spectators' view)
//     moves  GET .../legal-moves `moves` for this seat ([] for a spectator or when it is not our turn)
//     seat   our seat number, or null for a spectator
//     seats  the game's seats [{seat, player_id, display_name}]
//     act    act(move): post that move object unchanged (the table page adds expected_version,
//            Idempotency-Key, 409 reload/retry and 422 display)
//     t      t(key, vars) -> label in the chosen language (i18n.js); lang "nl" | "en"
//     game   the whole game detail (status, to_move, outcome, waiting_for, version)
//
//   export function describeEvent(event, t, lang, seats) -> string | vnode | null   (optional)
//     the event log's sentence for one GET .../events item ({version, type, payload}); null = the
//     table page's generic sentence
//
// Every element that makes a move is a <button> (keyboard-usable) with data-move={moveKey(move)};
// every card drawn carries data-card="<the game's card notation>"; moves a renderer does not place
// on the board are listed by `otherMoves` so every legal move is always reachable.
import { html, moveKey } from "../lib.js";

const modules = {
  hoppaa: () => import("./hoppaa.js"),
  klapper: () => import("./klapper.js"),
  paardenkoppen: () => import("./paardenkoppen.js"),
  roparun: () => import("./roparun.js"),
  cityhopper: () => import("./cityhopper.js"),
};

/** The renderer for a game type; the generic one when none is written (or it fails to load). */
export async function rendererFor(gameType) {
  const load = modules[gameType];
  if (!load) return { renderTable: genericTable };
  try {
    return await load();
  } catch (error) {
    console.warn(`no renderer for ${gameType}`, error);
    return { renderTable: genericTable };
  }
}

/** A readable label for a move: its type in words and its other fields (moves are flat objects,
 * `{type, ...fields}`, as GET .../legal-moves lists them). */
export function moveLabel(move, t) {
  const words = t ? t(`move.${move.type}`) : move.type;
  const fields = move.payload && typeof move.payload === "object" ? move.payload
    : Object.fromEntries(Object.entries(move).filter(([k]) => k !== "type"));
  const payload = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v && typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
  return payload ? `${words} (${payload})` : words;
}

/** Buttons for the moves in `moves` that are not in `placed` (a Set of moveKey strings). */
export function otherMoves({ moves, act, t }, placed = new Set()) {
  const rest = moves.filter((m) => !placed.has(moveKey(m)));
  if (!rest.length) return null;
  return html`<div class="other-moves" role="group" aria-label=${t ? t("table.moves") : "moves"}>
    ${rest.map((m) => html`<button type="button" class="move" data-move=${moveKey(m)} onClick=${() => act(m)}>
      ${moveLabel(m, t)}</button>`)}
  </div>`;
}

/** The fallback: the view as a readable tree and one button per legal move. */
export function genericTable(ctx) {
  return html`<div class="generic-table">
    ${otherMoves(ctx)}
    <pre class="view-json">${JSON.stringify(ctx.view, null, 1)}</pre>
  </div>`;
}

/** `describeEvent`'s arguments, normalised: it is called as (event, t, seats) by the table page and
 * (event, t, lang, seats) works too; `item` is an event item of the API ({type, version, payload}) or its
 * payload. The language: `lang`, else t.lang, else <html lang>, else "nl". */
export function describeArgs(item, t, langOrSeats, moreSeats) {
  const event = item?.payload && typeof item.payload === "object" ? { type: item.type, ...item.payload } : item;
  const seats = Array.isArray(langOrSeats) ? langOrSeats : (moreSeats ?? []);
  const lang = typeof langOrSeats === "string" ? langOrSeats
    : t?.lang ?? (typeof document !== "undefined" ? document.documentElement.lang : "") ?? "nl";
  return { event, seats, lang: lang || "nl" };
}
