// A form for a game type's options, generated from its JSON Schema (GET /v1/game-types options_schema):
// enum → select, boolean → checkbox, integer → number (min/max from the schema), a nullable value →
// empty means null, anything else (arrays) → a JSON text field. Inputs are named "option.<key>".
// Defaults come from the schema (the spec defaults); a variant preset fills them in.
import { html } from "../lib.js";
import { t } from "../i18n.js";

export function typesOf(schema) {
  const type = schema.type;
  return Array.isArray(type) ? type : type ? [type] : [];
}

export function defaultsOf(optionsSchema) {
  const out = {};
  for (const [key, schema] of Object.entries(optionsSchema?.properties || {})) {
    if ("default" in schema) out[key] = schema.default;
  }
  return out;
}

/** The text an input shows for a value. */
function shown(schema, value) {
  if (value === null || value === undefined) return "";
  const types = typesOf(schema);
  if (types.includes("array") || types.includes("object")) return JSON.stringify(value);
  return String(value);
}

/** Parse what an input holds into the option value; throws Error(key) when it does not parse. */
export function parseOption(schema, raw, checked) {
  const types = typesOf(schema);
  if (types.includes("boolean") && !schema.enum) return Boolean(checked);
  if (raw === "" || raw === undefined) return types.includes("null") || schema.default === null ? null : undefined;
  if (schema.enum) {
    const hit = schema.enum.find((v) => String(v) === raw);
    return hit === undefined ? raw : hit;
  }
  if (types.includes("integer") || types.includes("number")) {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new Error("number");
    return n;
  }
  if (types.includes("array") || types.includes("object")) return JSON.parse(raw);
  return raw;
}

export function OptionsForm({ schema, values, onChange }) {
  const props = Object.entries(schema?.properties || {});
  if (!props.length) return null;
  const set = (key, value) => onChange({ ...values, [key]: value });
  return html`<fieldset class="options">
    <legend>${t("create.options")}</legend>
    ${props.map(([key, s]) => {
      const name = `option.${key}`;
      const types = typesOf(s);
      const label = html`<span class="opt-name">${key}</span>`;
      const help = s.description ? html`<small class="opt-help">${s.description}</small>` : null;
      const value = values[key];
      if (s.enum) {
        return html`<label class="opt">${label}
          <select name=${name} onChange=${(e) => set(key, parseOption(s, e.target.value))}>
            ${types.includes("null") && !s.enum.includes(null) ? html`<option value="" selected=${value === null}>${t("create.null")}</option>` : null}
            ${s.enum.map((v) => html`<option value=${String(v)} selected=${String(v) === String(value)}>${String(v)}</option>`)}
          </select>${help}</label>`;
      }
      if (types.includes("boolean")) {
        return html`<label class="opt opt-bool"><input type="checkbox" name=${name} checked=${Boolean(value)}
          onChange=${(e) => set(key, e.target.checked)} /> ${label}${help}</label>`;
      }
      if (types.includes("integer") || types.includes("number")) {
        return html`<label class="opt">${label}
          <input type="number" name=${name} step=${types.includes("integer") ? 1 : "any"} min=${s.minimum} max=${s.maximum}
            placeholder=${types.includes("null") ? t("create.null") : ""} value=${shown(s, value)}
            onInput=${(e) => { try { set(key, parseOption(s, e.target.value)); } catch { /* keep typing */ } }} />${help}</label>`;
      }
      return html`<label class="opt">${label}
        <input type="text" name=${name} value=${shown(s, value)} placeholder=${types.includes("null") ? t("create.null") : ""}
          onChange=${(e) => { try { set(key, parseOption(s, e.target.value)); } catch { set(key, e.target.value); } }} />${help}</label>`;
    })}
  </fieldset>`;
}

/** The options to send: only keys the schema knows, undefined dropped. */
export function cleanOptions(schema, values) {
  const out = {};
  for (const key of Object.keys(schema?.properties || {})) {
    if (values[key] !== undefined) out[key] = values[key];
  }
  return out;
}
