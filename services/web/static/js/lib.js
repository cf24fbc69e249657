// The only UI library: preact with htm's tagged templates (no build step). Vendored by `make web`
// from the pinned services/web/package-lock.json; index.html's import map names the files.
import { h, render, Fragment } from "preact";
import { useState, useEffect, useRef, useMemo, useCallback, useReducer } from "preact/hooks";
import htm from "htm";

export const html = htm.bind(h);
export { h, render, Fragment, useState, useEffect, useRef, useMemo, useCallback, useReducer };

/** A move's canonical JSON (keys sorted at every level): the `data-move` attribute of the element that
 * makes it, so a click posts exactly the object `GET .../legal-moves` listed. */
export function moveKey(move) {
  const sort = (v) =>
    Array.isArray(v) ? v.map(sort)
      : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])]))
        : v;
  return JSON.stringify(sort(move));
}
