// Pieces several pages use: the problem banner, the live-state badge, seat names, little formatters.
import { html } from "../lib.js";
import { t } from "../i18n.js";
import { moveLabel } from "../render/index.js";

/** A Problem (api.js) shown: [data-testid=problem] with data-status and data-rule. */
export function ProblemBox({ problem, onClose }) {
  if (!problem) return null;
  const fields = problem.errors && typeof problem.errors === "object"
    ? Object.entries(problem.errors).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join("; ") : JSON.stringify(v)}`)
    : [];
  return html`<div class="problem" role="alert" data-testid="problem" data-status=${problem.status ?? ""}
      data-rule=${problem.rule ?? ""} data-code=${problem.code ?? ""} data-field=${problem.field ?? ""}>
    <strong>${problem.rule ? t("problem.rule", { rule: problem.rule }) + ": " : ""}${problem.title || t("common.error")}</strong>
    ${problem.detail ? html` <span class="detail">${problem.detail}</span>` : null}
    ${fields.length ? html`<ul>${fields.map((f) => html`<li>${f}</li>`)}</ul>` : null}
    ${onClose ? html`<button type="button" class="close" onClick=${onClose} aria-label=${t("common.close")}>×</button>` : null}
  </div>`;
}

export function LiveBadge({ state }) {
  return html`<span class=${`live live-${state}`} data-testid="live" data-state=${state} aria-live="polite">
    ${t(`live.${state}`)}</span>`;
}

export function seatName(seats, seat) {
  const s = (seats || []).find((x) => x.seat === seat);
  return s?.display_name || t("table.seat", { seat });
}

export function gameTitle(gameType) {
  return t(`game.${gameType}`);
}

export function shortId(id) {
  return String(id || "").slice(0, 8);
}

/** A generic sentence for an event: who did what. Renderer modules may export describeEvent instead. */
export function genericDescribe(event, seats) {
  const p = event.payload || {};
  const who = typeof p.seat === "number" ? seatName(seats, p.seat) : null;
  if (event.type === "MoveMade" && p.move) {
    const said = t("event.move", { who: who ?? "?", move: moveLabel(p.move, t) });
    return p.auto ? `${said} (${t("event.auto_move")})` : said;
  }
  if (event.type === "TimeExpired") {
    return t("event.time_expired", { who: who ?? "?", policy: t(`clock.policy.${p.policy}`) });
  }
  const details = Object.entries(p)
    .filter(([k, v]) => !["type", "seat", "player_id", "options", "players"].includes(k) && (typeof v !== "object" || v === null))
    .map(([k, v]) => `${k}: ${v}`).join(", ");
  const base = who ? t("event.generic", { who, type: event.type }) : t("event.system", { type: event.type });
  return details ? `${base} (${details})` : base;
}

export function Loading() {
  return html`<p class="loading">${t("common.loading")}</p>`;
}

/** An <option> whose value is also its HTML attribute: preact sets only the property, and skips even that
 * when it equals the text ("2" for 2), so option[value="2"] (what a test or a user script selects by)
 * would find nothing. */
export function Option({ value, selected, children }) {
  const v = String(value);
  return html`<option value=${v} selected=${selected} ref=${(el) => el && el.setAttribute("value", v)}>${children}</option>`;
}
