import { html } from "../lib.js";
export function LeaguePage() { return html`<p>…</p>`; }
export function LeaguesPage() { return html`<p>…</p>`; }
