// CityHopper (shared/rules/cityhopper.md): the board is the questions service's SVG map
// (GET /questions/v1/distance/map.svg, public API), read once: its links (`line[data-edge]`), places
// (`circle[data-place]`) and labels give the geometry, and this module draws them again in the same
// coordinate system with the pawns, houses, the moves (buttons on the map) and the question dialog.
// Knows no rules: every move-making button is a move from `moves`, posted unchanged.
import { html, moveKey, useEffect, useRef, useState } from "../lib.js";
import { describeArgs, otherMoves } from "./index.js";

/** Where the board comes from: null = the app's API base (js/config.js) + the questions service's
 * map; a page may point it elsewhere (the dev harness uses a saved copy). */
export const config = { mapUrl: null };
const MAP_PATH = "/v1/distance/map.svg";
const MAP_QUERY = { from: "amsterdam", to: "amsterdam" }; // a route from a place to itself: just the board

async function mapAddress() {
  if (config.mapUrl) return config.mapUrl;
  try {
    const app = await import("../config.js");
    return app.url("questions", MAP_PATH, MAP_QUERY);
  } catch {
    return `/questions${MAP_PATH}?from=${MAP_QUERY.from}&to=${MAP_QUERY.to}`;
  }
}

const LABELS = {
  nl: {
    player: "Speler {n}", title: "CityHopper", your_turn: "Jij bent aan de beurt", turn: "Aan de beurt: {name}", spectator: "Je kijkt mee",
    turn_no: "Beurt {n}", roll: "Gooi de dobbelsteen", roll_start: "Gooi om te beginnen", rolled: "Gegooid: {n}",
    steps: "Nog {n} stap(pen)", phase_START_ROLL: "Wie begint?", phase_AWAIT_ROLL: "Dobbelen", phase_MOVE: "Lopen",
    phase_QUESTION: "Vraag", phase_CHANCE: "Kanskaart", phase_PURCHASE: "Kopen", phase_GAME_OVER: "Afgelopen",
    scores: "Spelers", money: "Geld", penalty: "Strafpunten", tickets: "Kaartjes", houses: "Huisjes",
    supply: "{n} in voorraad", end_cities: "Eindsteden", secret: "geheim", played_away: "Weggespeeld",
    you: "jij", at: "Op", winner: "{name} wint!", question: "Vraag over {city}", final: "Eindvraag!", die: "Witte dobbelsteen: {n}",
    cat_ROAD_DISTANCE: "Afstand over de weg", cat_CITY_PHOTOS: "Stadsfoto's", cat_INHABITANTS: "Inwoners",
    cat_FLAG: "Vlag", cat_FACTS: "Wetenswaardigheden", cat_MAYOR: "Burgemeester",
    km: "km", answer: "Antwoord", quick: "Of kies:", from_to: "{a} → {b}", same_city: "Zelfde stad: meteen goed",
    pick_colours: "Kies twee kleuren", waiting_answer: "{name} denkt na…", last_question: "Vorige vraag",
    correct: "Goed!", wrong: "Fout", exact: "Precies {km} km (goed tussen {lo} en {hi} km)", population: "{n} inwoners",
    answer_was: "Het antwoord: {text}", given: "Gegeven: {text}",
    chance: "Kanskaart", chance_for: "{name} kiest", purchase: "Kopen (een aankoop)", skip: "Niets kopen",
    buy_end: "Eindstad kopen", buy_city: "Stad kopen (€8)", buy_flight: "Vlucht kopen (€8)", sell: "verkoop huisje in {city}",
    fly_ticket: "✈ gratis naar {city}", move_on: "Verder →", move_to: "→ {city}", start_rolls: "Worp om te beginnen",
    decline: "Weigeren", take: "Nemen", move_house: "Huisje meeverhuizen", keep_house: "Huisje laten staan",
    default_route: "Standaardroute", with: "met {name}", position_edge: "onderweg naar {city}", airport: "vliegveld",
    owned: "eigendom", legend_road: "Weg", legend_dike: "Dijk (1 stap)", legend_boat: "Boot", legend_flight: "Vlucht",
    legend_capital: "Hoofdstad (kanskaart)", barred: "Niet terug (nog)", map_loading: "Kaart laden…", map_failed: "De kaart kon niet geladen worden",
    FREE_FLIGHT: "Gratis vlucht", FREE_BOAT: "Gratis boot", FREE_END_CITY: "Gratis eindstad", END_CITY_20: "Eindstad €20",
    red: "rood", white: "wit", black: "zwart", blue: "blauw", yellow: "geel", green: "groen", orange: "oranje",
    purple: "paars", grey: "grijs", brown: "bruin", pink: "roze", no_moves_now: "Wacht op je beurt",
    ev_moved: "{name} loopt", ev_moved_to: "{name} gaat naar {city}", ev_question: "{name} krijgt een vraag over {city}",
    ev_reward: "{name} krijgt €{n}", ev_die: "Dobbelsteen: {n}", ev_white: "Witte dobbelsteen: {n} ({cat})",
    ev_take_edge: "{name} neemt {a} – {b}", ev_go_on: "{name} loopt verder", ev_gives: "{name} antwoordt: {text}",
    ev_roll_move: "{name} dobbelt", ev_answers: "{name} antwoordt", ev_skip_move: "{name} koopt niets", ev_skip: "{name} koopt niets", ev_flight: "{name} vliegt naar {city}", ev_answered_ok: "{name} antwoordt goed over {city}", ev_answered_bad: "{name} antwoordt fout over {city}",
    ev_bought: "{name} koopt {city}", ev_toll: "{name} betaalt tol", ev_won: "{name} wint", ev_chance: "{name} trekt een kanskaart",
    ev_rolled: "{name} gooit {n}", ev_turn: "{name} is klaar", ev_penalty: "{name} krijgt een strafpunt", ev_away: "{name} speelt {city} weg",
  },
  en: {
    player: "Player {n}", title: "CityHopper", your_turn: "Your turn", turn: "To play: {name}", spectator: "You are watching",
    turn_no: "Turn {n}", roll: "Roll the die", roll_start: "Roll to start", rolled: "Rolled: {n}",
    steps: "{n} step(s) left", phase_START_ROLL: "Who starts?", phase_AWAIT_ROLL: "Roll", phase_MOVE: "Move",
    phase_QUESTION: "Question", phase_CHANCE: "Chance card", phase_PURCHASE: "Buy", phase_GAME_OVER: "Finished",
    scores: "Players", money: "Money", penalty: "Penalty points", tickets: "Tickets", houses: "Houses",
    supply: "{n} in supply", end_cities: "End cities", secret: "secret", played_away: "Played away",
    you: "you", at: "At", winner: "{name} wins!", question: "Question about {city}", final: "Final question!", die: "White die: {n}",
    cat_ROAD_DISTANCE: "Road distance", cat_CITY_PHOTOS: "City photos", cat_INHABITANTS: "Inhabitants",
    cat_FLAG: "Flag", cat_FACTS: "Interesting facts", cat_MAYOR: "Mayor",
    km: "km", answer: "Answer", quick: "Or pick:", from_to: "{a} → {b}", same_city: "Same city: correct at once",
    pick_colours: "Pick two colours", waiting_answer: "{name} is thinking…", last_question: "Previous question",
    correct: "Correct!", wrong: "Wrong", exact: "Exactly {km} km (right from {lo} to {hi} km)", population: "{n} inhabitants",
    answer_was: "The answer: {text}", given: "Given: {text}",
    chance: "Chance card", chance_for: "{name} chooses", purchase: "Buy (one purchase)", skip: "Buy nothing",
    buy_end: "Buy end city", buy_city: "Buy a city (€8)", buy_flight: "Buy a flight (€8)", sell: "sell the house in {city}",
    fly_ticket: "✈ free to {city}", move_on: "Go on →", move_to: "→ {city}", start_rolls: "Starting rolls",
    decline: "Decline", take: "Take", move_house: "Move the house along", keep_house: "Leave the house",
    default_route: "Default route", with: "with {name}", position_edge: "on the way to {city}", airport: "airport",
    owned: "owned", legend_road: "Road", legend_dike: "Dike (1 step)", legend_boat: "Boat", legend_flight: "Flight",
    legend_capital: "Capital (chance card)", barred: "No return (yet)", map_loading: "Loading the map…", map_failed: "The map could not be loaded",
    FREE_FLIGHT: "Free flight", FREE_BOAT: "Free boat", FREE_END_CITY: "Free end city", END_CITY_20: "End city €20",
    red: "red", white: "white", black: "black", blue: "blue", yellow: "yellow", green: "green", orange: "orange",
    purple: "purple", grey: "grey", brown: "brown", pink: "pink", no_moves_now: "Waiting for your turn",
    ev_moved: "{name} moves", ev_moved_to: "{name} goes to {city}", ev_question: "{name} gets a question about {city}",
    ev_reward: "{name} receives €{n}", ev_die: "Die: {n}", ev_white: "White die: {n} ({cat})",
    ev_take_edge: "{name} takes {a} – {b}", ev_go_on: "{name} goes on", ev_gives: "{name} answers: {text}",
    ev_roll_move: "{name} rolls", ev_answers: "{name} answers", ev_skip_move: "{name} buys nothing", ev_skip: "{name} buys nothing", ev_flight: "{name} flies to {city}", ev_answered_ok: "{name} answers right about {city}", ev_answered_bad: "{name} answers wrong about {city}",
    ev_bought: "{name} buys {city}", ev_toll: "{name} pays a toll", ev_won: "{name} wins", ev_chance: "{name} draws a chance card",
    ev_rolled: "{name} rolls {n}", ev_turn: "{name} is done", ev_penalty: "{name} takes a penalty point", ev_away: "{name} plays away {city}",
  },
};
const SEAT_COLOURS = ["#d7301f", "#2166ac", "#1a9850", "#f0a800"];
const SWATCH = {
  red: "#d7301f", white: "#ffffff", black: "#111111", blue: "#2166ac", yellow: "#ffd700", green: "#1a9850",
  orange: "#ff7f00", purple: "#7b3294", grey: "#888888", brown: "#8b5a2b", pink: "#f4a6c6",
};
const DIE_CATEGORY = { 1: "ROAD_DISTANCE", 2: "CITY_PHOTOS", 3: "INHABITANTS", 4: "FLAG", 5: "FACTS", 6: "MAYOR" };
const PIPS = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]],
  5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };

function labeller(lang) {
  const table = LABELS[lang] || LABELS.en;
  return (key, vars = {}) => String(table[key] ?? LABELS.en[key] ?? key)
    .replace(/\{(\w+)\}/g, (_, k) => (vars[k] ?? `{${k}}`));
}
const nameOf = (seats, seat) => seats?.find((s) => s.seat === seat)?.display_name ?? `#${seat}`;
const seatColour = (seat) => SEAT_COLOURS[seat % SEAT_COLOURS.length];
const fmt = (n) => (typeof n === "number" ? n.toLocaleString("nl-NL") : String(n));

// --- the map, read from the service's SVG ---------------------------------------------------------
let mapPromise = null;
let mapCache = null;

function num(el, name) { return Number.parseFloat(el.getAttribute(name)); }

/** The board geometry from the map SVG's text: places {id: {x, y, kind, name}}, links, bounds. */
export function parseMap(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const places = {};
  for (const c of doc.querySelectorAll("circle[data-place]")) {
    const kind = [...c.classList].find((k) => k !== "place") || "city";
    places[c.getAttribute("data-place")] = { id: c.getAttribute("data-place"), x: num(c, "cx"), y: num(c, "cy"), kind, name: c.getAttribute("data-place") };
  }
  for (const t of doc.querySelectorAll("text.label[data-place]")) {
    const p = places[t.getAttribute("data-place")];
    if (p) p.name = t.textContent;
  }
  const links = [...doc.querySelectorAll("line[data-edge]")].map((l) => ({
    id: l.getAttribute("data-edge"), type: [...l.classList].find((k) => k !== "link") || "road",
    x1: num(l, "x1"), y1: num(l, "y1"), x2: num(l, "x2"), y2: num(l, "y2"),
  }));
  const xs = Object.values(places).map((p) => p.x);
  const ys = Object.values(places).map((p) => p.y);
  const pad = 26;
  const box = { x: Math.min(...xs) - pad, y: Math.min(...ys) - pad, w: 0, h: 0 };
  box.w = Math.max(...xs) + pad + 70 - box.x; // room for the labels right of the easternmost places
  box.h = Math.max(...ys) + pad - box.y;
  return { places, links, box };
}

function loadMap() {
  if (!mapPromise) {
    mapPromise = mapAddress().then((address) => fetch(address, { headers: { Accept: "image/svg+xml" } }))
      .then((r) => { if (!r.ok) throw new Error(`map ${r.status}`); return r.text(); })
      .then((text) => { mapCache = parseMap(text); return mapCache; })
      .catch((e) => { mapPromise = null; throw e; });
  }
  return mapPromise;
}

function useMap() {
  const [state, setState] = useState(mapCache ? { map: mapCache } : { loading: true });
  useEffect(() => {
    if (mapCache) return undefined;
    let live = true;
    loadMap().then((map) => live && setState({ map }), (error) => live && setState({ error }));
    return () => { live = false; };
  }, []);
  return state;
}

/** A place's name from the map; before the map is loaded, its id in words ("den-haag" -> "Den Haag"). */
const cityName = (map, id) => map?.places?.[id]?.name
  ?? String(id ?? "").split("-").map((w) => (w === "s" ? "'s" : w.charAt(0).toUpperCase() + w.slice(1))).join(" ").replace("'s ", "'s-");
const edgeEnds = (edgeId) => String(edgeId).split(":").slice(1).join(":").split("--");
const airportCity = (id) => String(id).replace(/^airport:/, "");

/** A pawn's map point: a city, a grey square along its edge, or beside its city's airport. */
function pawnPoint(map, position) {
  if (!position) return null;
  if (position.edge) {
    const a = map.places[position.a];
    const b = map.places[position.b];
    if (!a || !b) return null;
    const f = (position.index ?? 1) / ((position.squares ?? 1) + 1);
    return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, onEdge: true };
  }
  if (position.airport) {
    const c = map.places[position.city ?? airportCity(position.airport)];
    return c ? { x: c.x - 12, y: c.y + 12, airport: true } : null;
  }
  const c = map.places[position.city];
  return c ? { x: c.x, y: c.y } : null;
}

/** Moves the map buttons (boxes in map units, about a pixel each) apart until none overlap, and
 * keeps them inside the map. */
function spread(spots, box) {
  for (let round = 0; round < 60; round++) {
    let moved = false;
    for (let i = 0; i < spots.length; i++) {
      for (let j = i + 1; j < spots.length; j++) {
        const a = spots[i];
        const b = spots[j];
        const ox = (a.w + b.w) / 2 + 2 - Math.abs(a.x - b.x);
        const oy = (a.h + b.h) / 2 + 2 - Math.abs(a.y - b.y);
        if (ox <= 0 || oy <= 0) continue;
        moved = true;
        if (oy <= ox) { // the cheaper way apart: vertically
          const d = (a.y <= b.y ? -1 : 1) * (oy / 2 + 0.5);
          a.y += d; b.y -= d;
        } else {
          const d = (a.x <= b.x ? -1 : 1) * (ox / 2 + 0.5);
          a.x += d; b.x -= d;
        }
      }
    }
    for (const b of spots) {
      b.x = Math.min(box.x + box.w - b.w / 2 - 2, Math.max(box.x + b.w / 2 + 2, b.x));
      b.y = Math.min(box.y + box.h - b.h / 2 - 2, Math.max(box.y + b.h / 2 + 2, b.y));
    }
    if (!moved) break;
  }
}

function Die({ n, white = false, size = 34 }) {
  const pips = PIPS[n] || [];
  return html`<svg class=${`ch-die${white ? " white" : ""}`} viewBox="0 0 40 40" width=${size} height=${size} aria-label=${String(n)}>
    <rect x="2" y="2" width="36" height="36" rx="8" />
    ${pips.map(([c, r]) => html`<circle cx=${c * 10} cy=${r * 10} r="3.6" />`)}
  </svg>`;
}

function Board({ view, moves, act, seats, say, map, placed, focus, scale }) {
  const { places, links, box } = map;
  const me = view.seat ?? null;
  const active = view.active;
  const activePos = view.players?.[active]?.position;
  const pct = (x, y) => `left:${((x - box.x) / box.w) * 100}%;top:${((y - box.y) / box.h) * 100}%`;
  const moveEdges = new Set(moves.filter((m) => m.type === "move" && m.edge).map((m) => m.edge));
  const mine = me != null ? view.players?.[me] : null;
  const myEnds = new Set((mine?.end_cities ?? []).map((e) => e.city).filter(Boolean));
  const barred = new Set(view.players?.[active]?.barred ?? []);
  const lq = view.last_question;
  const routeIds = !view.question && lq?.reveal?.route?.place_ids ? lq.reveal.route.place_ids : null;
  const q = view.question;
  const qCities = q ? [q.city, q.yellow_city].filter(Boolean) : [];

  const spots = [];
  for (const m of moves) {
    let at = null;
    let label = null;
    let title = null;
    let cls = "ch-map-move";
    if (m.type === "move" && m.edge && activePos?.city) {
      const [a, b] = edgeEnds(m.edge);
      const far = a === activePos.city ? b : a;
      const from = places[activePos.city];
      const to = places[far];
      if (from && to) {
        const f = 0.72; // near the destination: neighbours lie apart, so the buttons do too
        at = { x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f };
        label = say("move_to", { city: cityName(map, far) });
        cls += ` edge ${m.edge.split(":")[0]}`;
      }
    } else if (m.type === "move" && !m.edge) {
      const p = pawnPoint(map, activePos);
      if (p) { at = { x: p.x, y: p.y - 22 }; label = say("move_on"); cls += " on"; }
    } else if (m.type === "fly_with_ticket" || m.type === "buy_flight") {
      const c = places[airportCity(m.to)];
      if (c) {
        at = { x: c.x, y: c.y + 18 };
        label = m.type === "fly_with_ticket" ? `✈ ${c.name}` : `✈ ${c.name} €8`;
        title = m.type === "fly_with_ticket" ? say("fly_ticket", { city: c.name }) : `${say("buy_flight")}: ${c.name}`;
        cls += " flight";
      }
    }
    if (!at) continue;
    placed.add(moveKey(m));
    const k = 1 / (scale || 1); // button pixels in map units
    spots.push({ m, label, title, cls, ax: at.x, ay: at.y, x: at.x, y: at.y, w: (22 + label.length * 7) * k, h: 22 * k });
  }
  spread(spots, box);
  const buttons = spots.map((b) => html`<button type="button" class=${b.cls} data-move=${moveKey(b.m)} style=${pct(b.x, b.y)}
      onClick=${() => act(b.m)} title=${b.title ?? b.label}>${b.label}</button>`);

  const pawns = (view.players ?? []).map((p) => ({ p, pt: pawnPoint(map, p.position) })).filter((x) => x.pt);
  const stacked = {};
  return html`<div class="ch-map" style=${`--ar:${(box.w / box.h).toFixed(4)}`}>
    <svg class="ch-map-svg" viewBox=${`${box.x} ${box.y} ${box.w} ${box.h}`} role="img" aria-label=${say("title")}>
      <rect x=${box.x} y=${box.y} width=${box.w} height=${box.h} class="ch-sea" />
      <g class="ch-links">
        ${links.map((l) => html`<line class=${`ch-link ${l.type}${moveEdges.has(l.id) ? " legal" : ""}`} data-edge=${l.id}
          x1=${l.x1} y1=${l.y1} x2=${l.x2} y2=${l.y2} />`)}
      </g>
      ${activePos?.edge && places[activePos.a] && places[activePos.b] ? html`<g class="ch-grey">
        ${Array.from({ length: activePos.squares }, (_, i) => {
          const a = places[activePos.a]; const b = places[activePos.b]; const f = (i + 1) / (activePos.squares + 1);
          return html`<rect x=${a.x + (b.x - a.x) * f - 3.5} y=${a.y + (b.y - a.y) * f - 3.5} width="7" height="7" />`;
        })}</g>` : null}
      ${routeIds ? html`<polyline class="ch-route" points=${routeIds.map((id) => places[id]).filter(Boolean).map((p) => `${p.x},${p.y}`).join(" ")} />` : null}
      <g class="ch-places">
        ${Object.values(places).map((pl) => {
          const owner = view.owners?.[pl.id];
          const cls = `ch-place ${pl.kind}${myEnds.has(pl.id) ? " my-end" : ""}${barred.has(pl.id) ? " barred" : ""}${qCities.includes(pl.id) ? " asked" : ""}`;
          return html`<g class=${cls} data-place=${pl.id} data-owner=${owner ?? undefined}>
            ${pl.kind === "capital" || pl.kind === "national_capital"
              ? html`<rect x=${pl.x - 5.5} y=${pl.y - 5.5} width="11" height="11" rx="1.5" />`
              : html`<circle cx=${pl.x} cy=${pl.y} r=${pl.kind === "island" ? 5 : 4.3} />`}
            ${myEnds.has(pl.id) ? html`<circle class="ch-end-ring" cx=${pl.x} cy=${pl.y} r="9" />` : null}
            ${owner != null ? html`<path class="ch-house" data-house=${owner} style=${`fill:${seatColour(owner)}`}
              d=${`M ${pl.x + 4} ${pl.y - 6} l 6 -6 l 6 6 v 7 h -12 z`}><title>${nameOf(seats, owner)}</title></path>` : null}
            ${barred.has(pl.id) ? html`<path class="ch-barred" d=${`M ${pl.x - 6} ${pl.y - 6} l 12 12 M ${pl.x + 6} ${pl.y - 6} l -12 12`} />` : null}
            <text class="ch-label" x=${pl.x + 7} y=${pl.y + 3.5}>${pl.name}</text>
          </g>`;
        })}
      </g>
      <g class="ch-leaders">${spots.filter((b) => Math.hypot(b.x - b.ax, b.y - b.ay) > 6)
        .map((b) => html`<line x1=${b.ax} y1=${b.ay} x2=${b.x} y2=${b.y} />`)}</g>
      <g class="ch-pawns">
        ${pawns.map(({ p, pt }) => {
          const key = `${Math.round(pt.x)}:${Math.round(pt.y)}`;
          const k = stacked[key] = (stacked[key] ?? -1) + 1;
          const x = pt.x + k * 7 - 3;
          const y = pt.y - 4 - k * 3;
          return html`<g class=${`ch-pawn${p.seat === active && view.phase !== "GAME_OVER" ? " active" : ""}`} data-seat=${p.seat}
              transform=${`translate(${x},${y})`}>
            <title>${nameOf(seats, p.seat)}</title>
            <ellipse cx="0" cy="9" rx="6.5" ry="2.4" class="ch-pawn-shadow" />
            <path d="M -5.5 8 Q -5 -1 -2.2 -2.5 A 4.6 4.6 0 1 1 2.2 -2.5 Q 5 -1 5.5 8 Z" style=${`fill:${seatColour(p.seat)}`} />
          </g>`;
        })}
      </g>
    </svg>
    <div class="ch-map-buttons">${buttons}</div>
    ${focus}
  </div>`;
}

/** A choice's words: an opponent, a city, a ticket, a house sale, a route (from the move's fields). */
function chanceLabel(m, say, seats, map) {
  const parts = [];
  if (m.decline) return say("decline");
  if (m.take) parts.push(say("take"));
  if (m.opponent != null) parts.push(say("with", { name: nameOf(seats, m.opponent) }));
  if (m.city) parts.push(cityName(map, m.city));
  if (m.kind) parts.push(say(m.kind));
  if (m.sell_house) parts.push(say("sell", { city: cityName(map, m.sell_house) }));
  if (m.move_house === true) parts.push(say("move_house"));
  if (m.move_house === false) parts.push(say("keep_house"));
  if (m.route) parts.push(m.route.map((c) => cityName(map, c)).join(" → "));
  return parts.join(" · ") || say("default_route");
}

function QuestionDialog({ view, moves, act, seats, say, map, placed, km, setKm }) {
  const q = view.question;
  const data = q?.question;
  if (!q || !data) return null;
  const category = data.category || DIE_CATEGORY[q.category];
  const mineToAnswer = moves.some((m) => m.type === "answer");
  const answerButton = (m, content, cls = "ch-answer") => {
    placed.add(moveKey(m));
    return html`<button type="button" class=${cls} data-move=${moveKey(m)} onClick=${() => act(m)}>${content}</button>`;
  };
  const answers = moves.filter((m) => m.type === "answer");
  let body;
  if (category === "ROAD_DISTANCE") {
    const same = answers.find((m) => !m.payload || Object.keys(m.payload).length === 0);
    body = html`<p class="ch-route-q">${say("from_to", { a: cityName(map, q.city), b: cityName(map, q.yellow_city ?? data.yellow_city) })}</p>
      ${same ? answerButton(same, say("same_city")) : mineToAnswer ? html`
        <form class="ch-distance" data-testid="distance-form" onSubmit=${(e) => {
          e.preventDefault();
          const value = Number.parseFloat(String(km).replace(",", "."));
          if (Number.isFinite(value) && value >= 0) act({ type: "answer", payload: { km: value } });
        }}>
          <label>${say("answer")}
            <input type="number" name="km" min="0" step="0.1" inputmode="decimal" required value=${km}
              onInput=${(e) => setKm(e.currentTarget.value)} data-testid="distance-km" /> ${say("km")}</label>
          <button type="submit" class="ch-answer primary" data-testid="distance-submit">${say("answer")}</button>
        </form>
        <div class="ch-quick"><span>${say("quick")}</span>
          ${answers.filter((m) => m.payload && "km" in m.payload)
            .map((m) => answerButton(m, `${fmt(m.payload.km)}`, "ch-answer chip"))}</div>` : null}`;
  } else if (category === "FLAG") {
    const order = data.palette || Object.keys(SWATCH);
    const rank = (c) => order.indexOf(c);
    const pairs = answers.filter((m) => Array.isArray(m.payload?.colours))
      .map((m) => ({ m, cs: [...m.payload.colours].sort((a, b) => rank(a) - rank(b)) }))
      .sort((a, b) => rank(a.cs[0]) - rank(b.cs[0]) || rank(a.cs[1]) - rank(b.cs[1]));
    body = html`${mineToAnswer ? html`<p>${say("pick_colours")}</p>` : null}
      <div class="ch-palette">${order.map((c) => html`<span class="ch-swatch" style=${`background:${SWATCH[c] ?? c}`} title=${say(c)}></span>`)}</div>
      <div class="ch-pairs">${pairs.map(({ m, cs }) => answerButton(m, html`<span class="ch-pair" aria-hidden="true">
        ${cs.map((c) => html`<span style=${`background:${SWATCH[c] ?? c}`}></span>`)}</span><span class="ch-pair-words">${cs.map((c) => say(c)).join(" + ")}</span>`, "ch-answer pair"))}</div>`;
  } else {
    const byOption = new Map(answers.filter((m) => m.payload?.option != null).map((m) => [String(m.payload.option), m]));
    body = html`<div class="ch-options">${(data.options ?? []).map((o) => {
      const content = html`${o.media ? html`<img src=${o.media} alt="" loading="lazy" />` : null}<span>${o.text}</span>`;
      const m = byOption.get(String(o.id));
      return m ? answerButton(m, content, "ch-answer option") : html`<div class="ch-answer option static">${content}</div>`;
    })}</div>`;
  }
  return html`<section class="ch-dialog" role="dialog" aria-labelledby="ch-q-title" data-testid="question">
    <header>
      ${q.category ? html`<${Die} n=${q.category} white=${true} size=${30} />` : null}
      <div>
        <div class="ch-cat" data-category=${category}>${say(`cat_${category}`)}</div>
        <h3 id="ch-q-title">${say("question", { city: cityName(map, q.city) })}${q.final ? html` <strong class="ch-final">${say("final")}</strong>` : null}</h3>
      </div>
    </header>
    <p class="ch-prompt">${data.prompt}</p>
    ${body}
    ${!mineToAnswer ? html`<p class="ch-wait">${say("waiting_answer", { name: nameOf(seats, view.active) })}</p>` : null}
  </section>`;
}

function LastQuestion({ view, seats, say, map }) {
  const lq = view.last_question;
  if (!lq || !lq.question || view.question) return null;
  const r = lq.reveal || {};
  const opt = (id) => (lq.question.options ?? []).find((o) => String(o.id) === String(id))?.text ?? id;
  const given = lq.answer?.km != null ? `${fmt(lq.answer.km)} km`
    : lq.answer?.colours ? lq.answer.colours.map((c) => say(c)).join(" + ")
      : lq.answer?.option != null ? opt(lq.answer.option) : "";
  let truth = null;
  if (r.km != null) truth = say("exact", { km: fmt(r.km), lo: fmt(r.lower_km), hi: fmt(r.upper_km) });
  else if (r.answer != null) truth = say("answer_was", { text: opt(r.answer) });
  else if (r.colours) truth = say("answer_was", { text: r.colours.map((c) => say(c)).join(", ") });
  const category = lq.question.category;
  return html`<section class=${`ch-last ${lq.correct ? "ok" : "bad"}`} data-testid="last-question">
    <h3>${say("last_question")} · ${nameOf(seats, lq.seat)} · ${cityName(map, lq.city)}</h3>
    <div class="ch-cat">${say(`cat_${category}`)}</div>
    <p class="ch-prompt">${lq.question.prompt}</p>
    <p><strong class="ch-verdict">${lq.correct ? say("correct") : say("wrong")}</strong>
      ${given ? html` ${say("given", { text: given })}` : null}</p>
    ${truth ? html`<p>${truth}</p>` : null}
    ${r.population != null ? html`<p>${say("population", { n: fmt(r.population) })}</p>` : null}
    ${r.info ? html`<p class="ch-info">${r.info}</p>` : null}
  </section>`;
}

function ChancePanel({ view, moves, act, seats, say, map, placed }) {
  const ch = view.chance;
  if (!ch) return null;
  const choices = moves.filter((m) => m.type === "choose_chance");
  return html`<section class="ch-chance" data-testid="chance">
    <div class="ch-chance-card">
      <div class="ch-chance-kind">${say("chance")} · ${ch.card}</div>
      <h3>${ch.title}</h3>
      <p>${ch.text}</p>
    </div>
    ${ch.awaiting != null ? html`<p class="ch-wait">${say("chance_for", { name: nameOf(seats, ch.awaiting) })}</p>` : null}
    ${choices.length ? html`<div class="ch-choices">${choices.map((m) => {
      placed.add(moveKey(m));
      return html`<button type="button" class="ch-choice" data-move=${moveKey(m)} onClick=${() => act(m)}>${chanceLabel(m, say, seats, map)}</button>`;
    })}</div>` : null}
  </section>`;
}

function PurchasePanel({ moves, act, say, map, placed }) {
  const mine = moves.filter((m) => ["skip_purchase", "buy_city", "buy_end_city", "buy_flight"].includes(m.type));
  if (!mine.length) return null;
  const b = (m, label, cls) => {
    placed.add(moveKey(m));
    return html`<button type="button" class=${cls} data-move=${moveKey(m)} onClick=${() => act(m)}>${label}</button>`;
  };
  const skip = mine.find((m) => m.type === "skip_purchase");
  const ends = mine.filter((m) => m.type === "buy_end_city");
  const flights = mine.filter((m) => m.type === "buy_flight" && !placed.has(moveKey(m)));
  const cities = mine.filter((m) => m.type === "buy_city")
    .sort((x, y) => cityName(map, x.city).localeCompare(cityName(map, y.city)));
  return html`<section class="ch-purchase" data-testid="purchase">
    <h3>${say("purchase")}</h3>
    ${skip ? b(skip, say("skip"), "ch-buy skip") : null}
    ${ends.length ? html`<h4>${say("buy_end")}</h4><div class="ch-buy-list">${ends.map((m) => b(m,
      `★ ${cityName(map, m.city)}${m.sell_house ? ` (${say("sell", { city: cityName(map, m.sell_house) })})` : ""}`, "ch-buy end"))}</div>` : null}
    ${flights.length ? html`<h4>${say("buy_flight")}</h4><div class="ch-buy-list">${flights.map((m) => b(m, `✈ ${cityName(map, airportCity(m.to))}`, "ch-buy"))}</div>` : null}
    ${cities.length ? html`<h4>${say("buy_city")}</h4><div class="ch-buy-list cities">${cities.map((m) => b(m, cityName(map, m.city), "ch-buy"))}</div>` : null}
  </section>`;
}

function Players({ view, seats, say, map }) {
  const me = view.seat ?? null;
  return html`<section class="ch-players" data-testid="scores" aria-label=${say("scores")}>
    <h3>${say("scores")}</h3>
    ${(view.players ?? []).map((p) => {
      const score = view.winner != null ? (view.winner === p.seat ? 1 : 0) : 0;
      const turn = view.phase !== "GAME_OVER" && view.active === p.seat;
      const where = p.position?.edge
        ? say("position_edge", { city: cityName(map, p.position.heading) })
        : p.position?.airport ? `✈ ${say("airport")} ${cityName(map, p.position.city)}` : cityName(map, p.position?.city);
      return html`<div class=${`ch-player${turn ? " turn" : ""}${view.winner === p.seat ? " winner" : ""}`}
          data-seat=${p.seat} data-score=${score}>
        <div class="ch-player-head">
          <span class="ch-dot" style=${`background:${seatColour(p.seat)}`}></span>
          <strong>${nameOf(seats, p.seat)}${p.seat === me ? ` (${say("you")})` : ""}</strong>
          <span class="ch-money" data-money=${p.money} title=${say("money")}>€${p.money}</span>
        </div>
        <div class="ch-player-facts">
          <span title=${say("penalty")} data-penalty=${p.penalty_points}>${say("penalty")}: ${"●".repeat(p.penalty_points)}${"○".repeat(Math.max(0, 3 - p.penalty_points))}</span>
          <span data-houses=${p.houses?.length ?? 0}><svg class="ch-icon" viewBox="0 0 12 12" aria-hidden="true"><path d="M 0 6 L 6 0 L 12 6 V 12 H 0 Z" style=${`fill:${seatColour(p.seat)}`} /></svg>
            ${say("houses")}: ${p.houses?.length ?? 0} · ${say("supply", { n: p.houses_in_supply })}</span>
          <span class="ch-where">${say("at")}: ${where}</span>
        </div>
        ${p.tickets?.length ? html`<div class="ch-tickets">${p.tickets.map((k) => html`<span class="ch-ticket" data-ticket=${k}>${say(k)}</span>`)}</div>` : null}
        <div class="ch-ends">${say("end_cities")}:
          ${(p.end_cities ?? []).map((e) => (e.city
            ? html`<span class=${`ch-end${view.owners?.[e.city] === p.seat ? " owned" : ""}`}>★ ${cityName(map, e.city)}</span>`
            : html`<span class="ch-end hidden">? ${say("secret")}</span>`))}
          ${p.played_away?.length ? html`<span class="ch-away">${say("played_away")}: ${p.played_away.map((c) => cityName(map, c)).join(", ")}</span>` : null}
        </div>
        ${view.winner === p.seat ? html`<strong class="ch-win">${say("winner", { name: nameOf(seats, p.seat) })}</strong>` : null}
      </div>`;
    })}
  </section>`;
}

function Legend({ say }) {
  return html`<div class="ch-legend" aria-hidden="true">
    <span><i class="l road"></i>${say("legend_road")}</span><span><i class="l dike"></i>${say("legend_dike")}</span>
    <span><i class="l boat"></i>${say("legend_boat")}</span><span><i class="l flight"></i>${say("legend_flight")}</span>
    <span><i class="sq"></i>${say("legend_capital")}</span><span><i class="x">✕</i>${say("barred")}</span>
  </div>`;
}

function CityHopperTable(ctx) {
  const { view, moves = [], seat, seats, act, lang } = ctx;
  const say = labeller(lang);
  const { map, error } = useMap();
  const [km, setKm] = useState("");
  const scroller = useRef(null);
  const [mapWidth, setMapWidth] = useState(0); // drawn width in pixels: the map buttons are spread at that scale
  useEffect(() => {
    const el = scroller.current?.querySelector(".ch-map");
    if (!el || typeof ResizeObserver === "undefined") return undefined;
    const watch = new ResizeObserver(() => setMapWidth(Math.round(el.clientWidth)));
    watch.observe(el);
    return () => watch.disconnect();
  }, [map]);
  const placed = new Set();
  const activePoint = map && view.players?.[view.active] ? pawnPoint(map, view.players[view.active].position) : null;
  const focusX = activePoint ? (activePoint.x - map.box.x) / map.box.w : null;
  useEffect(() => { // on a narrow screen the map scrolls sideways: bring the active pawn into view
    const el = scroller.current;
    if (el && focusX != null && el.scrollWidth > el.clientWidth) el.scrollLeft = focusX * el.scrollWidth - el.clientWidth / 2;
  }, [focusX, map]);
  const finished = view.phase === "GAME_OVER" || view.winner != null;
  const active = view.active;
  const status = finished ? say("winner", { name: nameOf(seats, view.winner) })
    : seat == null ? `${say("spectator")} · ${say("turn", { name: nameOf(seats, active) })}`
      : active === seat || moves.length ? say("your_turn") : say("turn", { name: nameOf(seats, active) });
  const rollMove = moves.find((m) => m.type === "roll" || m.type === "roll_start");
  if (rollMove) placed.add(moveKey(rollMove));
  const rollButton = rollMove ? html`<button type="button" class="ch-roll" data-move=${moveKey(rollMove)} onClick=${() => act(rollMove)}>
    <${Die} n=${5} size=${26} /> ${rollMove.type === "roll_start" ? say("roll_start") : say("roll")}</button>` : null;

  // called (not mounted) here, so that `placed` knows what they hold before otherMoves runs
  const board = map ? Board({ view, moves, act, seats, say, map, placed, focus: null, scale: mapWidth && mapWidth / map.box.w }) : null;
  const dialogNode = map ? QuestionDialog({ view, moves, act, seats, say, map, placed, km, setKm }) : null;
  const chanceNode = map ? ChancePanel({ view, moves, act, seats, say, map, placed }) : null;
  const purchase = map ? PurchasePanel({ moves, act, say, map, placed }) : null;
  const startRolls = view.phase === "START_ROLL" || (view.turn_no ?? 0) <= 1 ? (view.start_rolls ?? []) : [];

  return html`<div class=${`cityhopper${view.question ? " has-question" : ""}`} data-game="cityhopper">
    <header class="ch-status" data-testid="turn">
      <span class=${`ch-turn${!finished && (active === seat || moves.length) ? " mine" : ""}`}>
        ${active != null && !finished ? html`<span class="ch-dot" style=${`background:${seatColour(active)}`}></span>` : null}${status}</span>
      <span class="ch-phase">${say(`phase_${view.phase}`)}</span>
      <span>${say("turn_no", { n: view.turn_no ?? 0 })}</span>
      ${view.roll != null ? html`<span class="ch-rolled"><${Die} n=${view.roll} size=${24} /> ${say("rolled", { n: view.roll })}</span>` : null}
      ${view.phase === "MOVE" || view.steps_remaining ? html`<span class="ch-steps" data-steps=${view.steps_remaining}>${say("steps", { n: view.steps_remaining ?? 0 })}</span>` : null}
      ${rollButton}
    </header>
    <div class="ch-main">
      <div class="ch-board-col">
        <div class="ch-map-scroll" ref=${scroller}>
          ${board ?? html`<div class="ch-map placeholder">${error ? say("map_failed") : say("map_loading")}</div>`}
        </div>
        <${Legend} say=${say} />
      </div>
      <aside class="ch-side">
        ${dialogNode}
        ${chanceNode}
        ${purchase}
        ${startRolls.some((r) => r != null) ? html`<section class="ch-start"><h3>${say("start_rolls")}</h3>
          ${startRolls.map((r, i) => html`<span class="ch-start-roll">${nameOf(seats, i)} ${r != null ? html`<${Die} n=${r} size=${22} />` : "…"}</span>`)}</section>` : null}
        <${Players} view=${view} seats=${seats} say=${say} map=${map} />
        ${map ? html`<${LastQuestion} view=${view} seats=${seats} say=${say} map=${map} />` : null}
      </aside>
    </div>
    ${otherMoves(ctx, placed)}
  </div>`;
}

const STYLESHEET = new URL("../../css/cityhopper.css", import.meta.url).href;

export function renderTable(ctx) {
  return html`<link rel="stylesheet" href=${STYLESHEET} /><${CityHopperTable} ...${ctx} />`;
}

/** One sentence for the event log, or null: `item` is an event item of the API ({type, version,
 * payload}) or its payload. Called as (event, t, seats) by the table page; (event, t, lang, seats)
 * works too. The language: `lang`, else t.lang, else <html lang>, else Dutch. */
export function describeEvent(item, t, langOrSeats, moreSeats) {
  const { event, seats, lang } = describeArgs(item, t, langOrSeats, moreSeats);
  const say = labeller(lang || "nl");
  const who = (s) => seats?.find((x) => x.seat === s)?.display_name ?? say("player", { n: Number(s) + 1 });
  const city = (c) => cityName(mapCache, c);
  const given = (a) => (a?.km != null ? `${fmt(a.km)} km` : a?.colours ? a.colours.map((c) => say(c)).join(" + ")
    : a?.option != null ? String(a.option) : "…");
  switch (event?.type) {
    case "MoveMade": {
      const m = event.move || {};
      const name = who(event.seat);
      if (m.type === "move" && m.edge) { const [a, b] = edgeEnds(m.edge); return say("ev_take_edge", { name, a: city(a), b: city(b) }); }
      if (m.type === "move") return say("ev_moved", { name }); // on a grey square, or redacted
      if (m.type === "answer") return m.payload ? say("ev_gives", { name, text: given(m.payload) }) : say("ev_answers", { name });
      if (m.type === "roll" || m.type === "roll_start") return say("ev_roll_move", { name });
      if (m.type === "skip_purchase") return say("ev_skip_move", { name });
      return null;
    }
    case "ChanceResolved": {
      const v = Array.isArray(event.values) ? event.values[0] : null;
      if (v == null) return null;
      if (event.purpose === "category") return say("ev_white", { n: v, cat: say(`cat_${DIE_CATEGORY[v]}`) });
      if (event.purpose === "roll" || event.purpose === "start_roll") return say("ev_die", { n: v });
      return null;
    }
    case "Rolled": return say("ev_rolled", { name: who(event.seat), n: event.value ?? event.roll ?? "" });
    case "Moved": {
      const to = event.to?.city ?? event.to?.heading ?? (event.to?.airport ? airportCity(event.to.airport) : null);
      return to ? say("ev_moved_to", { name: who(event.seat), city: city(to) }) : say("ev_moved", { name: who(event.seat) });
    }
    case "QuestionStarted": return say("ev_question", { name: who(event.seat), city: city(event.city) });
    case "RewardPaid": return say("ev_reward", { name: who(event.payee ?? event.seat), n: event.amount });
    case "PurchaseSkipped": return say("ev_skip", { name: who(event.seat) });
    case "FlightTaken": return say("ev_flight", { name: who(event.seat), city: city(airportCity(event.to ?? "")) });
    case "QuestionAnswered": return say(event.correct ? "ev_answered_ok" : "ev_answered_bad", { name: who(event.seat), city: city(event.city) });
    case "CityBought": return say("ev_bought", { name: who(event.seat), city: city(event.city) });
    case "TollPaid": return say("ev_toll", { name: who(event.seat) });
    case "ChanceDrawn": return say("ev_chance", { name: who(event.seat) });
    case "PenaltyTaken": return say("ev_penalty", { name: who(event.seat) });
    case "EndCityPlayedAway": return say("ev_away", { name: who(event.seat), city: city(event.city) });
    case "TurnEnded": return say("ev_turn", { name: who(event.seat) });
    case "GameWon": return say("ev_won", { name: who(event.seat) });
    default: return null;
  }
}
