import { html } from "../lib.js";
export function ProfilePage() { return html`<p>…</p>`; }
