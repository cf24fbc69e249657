import { html } from "../lib.js";
export function ReplayPage() { return html`<p>…</p>`; }
