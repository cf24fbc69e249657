// #/status: what the old index page showed: every service under its prefix, its docs and OpenAPI
// document, and whether it is ready (GET /<service>/readyz).
import { html, useEffect, useState } from "../lib.js";
import { api } from "../api.js";
import { config, url } from "../config.js";
import { t } from "../i18n.js";

export function StatusPage() {
  const [ready, setReady] = useState({});
  useEffect(() => {
    let alive = true;
    for (const name of config.services) {
      api.ready(name).then((r) => alive && setReady((old) => ({ ...old, [name]: r.ok })));
    }
    return () => { alive = false; };
  }, []);
  const base = config.apiBase;
  return html`<section id="status">
    <h1>Speltafel</h1>
    <p>${t("status.intro")} <a href=${`${base}/openapi.json`}>/openapi.json</a>
      (<a href=${`${base}/docs`}>/docs</a>).</p>
    <table class="services">
      <thead><tr><th>${t("status.service")}</th><th>${t("status.prefix")}</th><th>${t("status.docs")}</th>
        <th>${t("status.spec")}</th><th>${t("status.state")}</th></tr></thead>
      <tbody>${config.services.map((name) => html`<tr data-service=${name}>
        <td>${name}</td><td><code>/${name}/…</code></td>
        <td><a href=${url(name, "/docs")}>/${name}/docs</a></td>
        <td><a href=${url(name, "/openapi.json")}>openapi.json</a></td>
        <td data-testid="service-state" data-ready=${ready[name] === undefined ? "" : ready[name] ? "1" : "0"}>
          ${ready[name] === undefined ? "…" : ready[name] ? t("status.ready") : t("status.down")}</td>
      </tr>`)}</tbody>
    </table>
  </section>`;
}
