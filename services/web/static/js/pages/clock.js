// Clocks (README "Clocks"): each seat's time left as the server gives it in the game's `clock`
// (`remaining_seconds` at `as_of`), counted down locally for the seats whose clock runs, and the
// create form's clock fields from GET /v1/game-types `clock`. No clock arithmetic beyond the countdown:
// the server decides when time has run out (TimeExpired).
import { html, useEffect, useState } from "../lib.js";
import { t } from "../i18n.js";
import { Option } from "./common.js";

/** "4:07", "1:02:03" or "2 d 3:00:00" for a number of seconds (never negative). */
export function formatSeconds(total) {
  const s = Math.max(0, Math.floor(total));
  const days = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  const hms = h || days ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
  return days ? `${days} d ${hms}` : hms;
}

/** One seat's clock: ticks once a second while it runs; the page reloads the game on every event. */
export function SeatClock({ clock, seat, ended }) {
  const entry = (clock?.seats || []).find((c) => c.seat === seat);
  const [, setTick] = useState(0);
  const runs = Boolean(entry?.running && !clock.paused && !ended);
  useEffect(() => {
    if (!runs) return undefined;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [runs, entry?.remaining_seconds, clock?.as_of]);
  if (!entry) return null;
  const asOf = clock.as_of ? Date.parse(clock.as_of) : Date.now();
  const left = runs ? entry.remaining_seconds - Math.max(0, Date.now() - asOf) / 1000 : entry.remaining_seconds;
  return html`<span class=${`clock${runs ? " running" : ""}${left <= 10 ? " low" : ""}`} data-testid="clock"
    data-seat=${seat} data-remaining=${entry.remaining_seconds} data-running=${runs ? "1" : "0"}
    title=${entry.deadline ? t("clock.deadline", { when: new Date(entry.deadline).toLocaleString() }) : ""}>
    ${formatSeconds(left)}</span>`;
}

const FIELDS = {
  fischer: [["base_seconds", 300], ["increment_seconds", 5]],
  per_move: [["seconds", 60]],
  correspondence: [["days_per_move", 1]],
};

/** The create form's clock: none, or a kind with its numbers and a timeout policy the game allows. */
export function ClockFields({ type, value, onChange }) {
  const kinds = type?.clock?.kinds || [];
  const policies = type?.clock?.timeout_policies || ["forfeit"];
  if (!kinds.length) return null;
  const kind = value?.clock?.kind || "";
  const choose = (next) => onChange(next ? {
    clock: { kind: next, ...Object.fromEntries(FIELDS[next].map(([k, d]) => [k, d])) },
    timeout_policy: policies.includes(value?.timeout_policy) ? value.timeout_policy : policies[0],
  } : null);
  const setNumber = (key, raw) => onChange({ ...value, clock: { ...value.clock, [key]: Number(raw) } });
  return html`<fieldset class="clock-fields"><legend>${t("clock.title")}</legend>
    <label>${t("clock.kind")}
      <select data-testid="create-clock-kind" name="clock.kind" onChange=${(e) => choose(e.target.value)}>
        <${Option} value="" selected=${kind === ""}>${t("clock.none")}<//>
        ${kinds.map((k) => html`<${Option} value=${k} selected=${k === kind}>${t(`clock.${k}`)}<//>`)}
      </select></label>
    ${kind ? FIELDS[kind].map(([key]) => html`<label>${t(`clock.${key}`)}
      <input type="number" min="0" name=${`clock.${key}`} data-testid=${`create-clock-${key}`}
        value=${value.clock[key]} onInput=${(e) => setNumber(key, e.target.value)} /></label>`) : null}
    ${kind ? html`<label>${t("clock.policy")}
      <select data-testid="create-clock-policy" name="timeout_policy"
        onChange=${(e) => onChange({ ...value, timeout_policy: e.target.value })}>
        ${policies.map((p) => html`<${Option} value=${p} selected=${p === value.timeout_policy}>${t(`clock.policy.${p}`)}<//>`)}
      </select></label>` : null}
  </fieldset>`;
}
