// Shared card faces and card-table layout for the card games' renderers (HopPaa, Klapper, Paardenkoppen,
// and ROPARUN's hand). Pure drawing: nothing here knows a rule. Styles: static/css/cards.css, loaded by
// `loadCss` when this module is imported.
//
//   Card({ card, move, act, back, small, dim, lang, title })
//     card   the card in its game's notation: French "10S", "AH", "QD" (rank A 2-10 J Q K + suit S H D C),
//            or Paardenkoppen's animals "horse-13", "cow-6", "pig-1", "goat-10". Drawn as a face with
//            data-card=card. Any other string is drawn as a plain labelled face (still data-card=card).
//     move   optional: the legal move this card makes. With `act` the card is a
//            <button type="button" data-move=moveKey(move)> whose click calls act(move).
//     back   true: a face-down card (no data-card; the card is unknown).
//     small  a smaller face (tricks, logs); dim: drawn faded (not playable now).
//     lang   "nl" shows Dutch court letters (H V B = heer, vrouw, boer); default "en" (K Q J).
//   Hand({ cards, moves, act, lang, label, order })  a fanned row of the reader's cards; a card with a listed
//            move (move.card === card) is a button, the others are dimmed while there are card moves;
//            order: a compare function to draw them sorted (handOrder(ranks) gives one).
//   Backs({ count, max })   a small fan of face-down cards with the count (an opponent's hand).
//   cardMoves(moves)        Map card -> the move whose `card` field is that card.
//   TableLayout({ order, me, plate, trick, info, turn })  seats around an oval table: `order` lists the
//            seats clockwise, the reader (`me`, or order[0] for spectators) at the bottom; plate(seat) draws a
//            seat's name plate; trick = [{seat, card}] puts each card in front of its seat (lastTrick, the same shape,
//            is drawn faded with lastLabel while trick is empty); info is drawn
//            in a strip above the table (trump, contract, pot, ...); turn = the seat to move (highlighted).
//   SuitIcon({ suit })  a suit symbol (S H D C), red or black; "none" draws "no trump" as a crossed circle.
//   loadCss(url)        adds a stylesheet link once (renderers call it for their own css file).
//   labels, seatName, eventLang, cardName, parseCard: small helpers the renderers share (see each).
//
// The renderers' describeEvent(event, t, [lang], [seats]) returns a sentence or null (unknown event); lang
// defaults to t.lang, then <html lang>; seats ([{seat, display_name}]) names the players.
import { html, moveKey } from "../lib.js";

export function loadCss(url) {
  if (typeof document === "undefined") return;
  const href = new URL(url, import.meta.url).href;
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === href)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.appendChild(link);
}
loadCss("../../css/cards.css");

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = new Set(["H", "D"]);
const COURT_NL = { K: "H", Q: "V", J: "B", A: "A" };
export const SUIT_NAMES = {
  nl: { S: "schoppen", H: "harten", D: "ruiten", C: "klaveren", none: "zonder troef" },
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs", none: "no trump" },
};
const RANK_NAMES = {
  nl: { A: "aas", K: "heer", Q: "vrouw", J: "boer" },
  en: { A: "ace", K: "king", Q: "queen", J: "jack" },
};
export const ANIMALS = ["horse", "cow", "pig", "goat"];
export const ANIMAL_NAMES = {
  nl: { horse: "paard", cow: "koe", pig: "varken", goat: "geit" },
  en: { horse: "horse", cow: "cow", pig: "pig", goat: "goat" },
};

/** {kind: "french", rank, suit} | {kind: "animal", animal, rank} | {kind: "other"} */
export function parseCard(card) {
  const french = /^(10|[2-9AKQJ])([SHDC])$/.exec(card || "");
  if (french) return { kind: "french", rank: french[1], suit: french[2] };
  const animal = /^(horse|cow|pig|goat)-(\d+)$/.exec(card || "");
  if (animal) return { kind: "animal", animal: animal[1], rank: Number(animal[2]) };
  return { kind: "other" };
}

/** A card's name in words, e.g. "harten boer" / "jack of hearts", "geit 10" / "goat 10". */
export function cardName(card, lang = "en") {
  const p = parseCard(card);
  const l = lang === "nl" ? "nl" : "en";
  if (p.kind === "french") {
    const rank = RANK_NAMES[l][p.rank] || p.rank;
    return l === "nl" ? `${SUIT_NAMES.nl[p.suit]} ${rank}` : `${rank} of ${SUIT_NAMES.en[p.suit]}`;
  }
  if (p.kind === "animal") return `${ANIMAL_NAMES[l][p.animal]} ${p.rank}`;
  return String(card);
}

export function SuitIcon({ suit, lang }) {
  if (!suit || suit === "none") {
    return html`<span class="suit-icon suit-none" title=${SUIT_NAMES[lang === "nl" ? "nl" : "en"].none}>∅</span>`;
  }
  return html`<span class=${`suit-icon ${RED.has(suit) ? "red" : "black"}`}
    title=${SUIT_NAMES[lang === "nl" ? "nl" : "en"][suit]}>${SUIT_SYMBOL[suit] || suit}</span>`;
}

// Small drawn animals (no emoji font is needed): 24×24 viewBox silhouettes.
const ANIMAL_ART = {
  horse: html`<path d="M6 22 L8 13 C6 11 6 7 9 5 L10 2 L12 5 C15 4 19 6 20 10 L21 14 C21 16 19 16 18 15 L15 12 L14 14 L15 22 Z" />
    <circle cx="11.5" cy="8" r="0.9" fill="#fff" />`,
  cow: html`<path d="M3 5 C5 7 7 7 8 7 L16 7 C17 7 19 7 21 5 C21 8 19 9 18 9 L18 15 C18 19 15 21 12 21 C9 21 6 19 6 15 L6 9 C5 9 3 8 3 5 Z" />
    <ellipse cx="12" cy="17" rx="4" ry="2.6" fill="#f4c7c3" /><circle cx="9.5" cy="11.5" r="1" fill="#fff" />
    <circle cx="14.5" cy="11.5" r="1" fill="#fff" />`,
  pig: html`<circle cx="12" cy="13" r="8" /><path d="M5 8 L6 3 L10 6 Z M19 8 L18 3 L14 6 Z" />
    <ellipse cx="12" cy="15" rx="3.6" ry="2.6" fill="#f9dfe6" /><circle cx="10.8" cy="15" r="0.8" />
    <circle cx="13.2" cy="15" r="0.8" /><circle cx="9" cy="10.5" r="0.9" fill="#fff" /><circle cx="15" cy="10.5" r="0.9" fill="#fff" />`,
  goat: html`<path d="M8 8 C6 5 5 3 3 2 C6 2 8 4 9 6 Z M16 8 C18 5 19 3 21 2 C18 2 16 4 15 6 Z" />
    <path d="M7 8 L17 8 L16 15 C15 17 14 18 12 18 C10 18 9 17 8 15 Z" /><path d="M10.5 17.5 L12 23 L13.5 17.5 Z" />
    <circle cx="10" cy="11" r="0.9" fill="#fff" /><circle cx="14" cy="11" r="0.9" fill="#fff" />`,
};
export function AnimalIcon({ animal }) {
  return html`<svg class=${`animal-icon animal-${animal}`} viewBox="0 0 24 24" aria-hidden="true">
    ${ANIMAL_ART[animal]}</svg>`;
}

function face(card, lang, head) {
  const p = parseCard(card);
  if (p.kind === "french") {
    const rank = lang === "nl" ? (COURT_NL[p.rank] || p.rank) : p.rank;
    const sym = SUIT_SYMBOL[p.suit];
    const court = ["K", "Q", "J"].includes(p.rank);
    return html`<span class="corner tl"><b>${rank}</b><i>${sym}</i></span>
      <span class=${`pip-center${court ? " court" : ""}`}>${court ? html`<b>${rank}</b><i>${sym}</i>` : sym}</span>
      <span class="corner br"><b>${rank}</b><i>${sym}</i></span>`;
  }
  if (p.kind === "animal") {
    return html`<span class="corner tl"><b>${p.rank}</b></span>
      <span class="pip-center"><${AnimalIcon} animal=${p.animal} /></span>
      ${head ? html`<span class="head-badge">${lang === "nl" ? "kop" : "head"}</span>` : null}
      <span class="corner br"><b>${p.rank}</b></span>`;
  }
  return html`<span class="pip-center other">${card}</span>`;
}

const HEADS = { horse: 13, cow: 12, pig: 11, goat: 10 };

export function Card({ card, move, act, back, small, dim, lang = "en", title, extraClass = "" }) {
  if (back) {
    return html`<span class=${`pcard back${small ? " small" : ""} ${extraClass}`} aria-hidden="true"></span>`;
  }
  const p = parseCard(card);
  const colour = p.kind === "french" ? (RED.has(p.suit) ? "red" : "black") : p.kind === "animal" ? p.animal : "";
  const head = p.kind === "animal" && HEADS[p.animal] === p.rank;
  const cls = `pcard face ${p.kind} ${colour}${small ? " small" : ""}${dim ? " dim" : ""}${head ? " head" : ""} ${extraClass}`;
  const label = title || cardName(card, lang);
  if (move && act) {
    return html`<button type="button" class=${`${cls} playable`} data-card=${card} data-move=${moveKey(move)}
      title=${label} aria-label=${label} onClick=${() => act(move)}>${face(card, lang, head)}</button>`;
  }
  return html`<span class=${cls} data-card=${card} title=${label} role="img" aria-label=${label}>
    ${face(card, lang, head)}</span>`;
}

/** Map card -> move, for the listed moves that carry a `card` field. */
export function cardMoves(moves) {
  const map = new Map();
  for (const m of moves || []) if (m && typeof m.card === "string" && !map.has(m.card)) map.set(m.card, m);
  return map;
}

/** A compare function for drawing a hand sorted: suits in the order S H C D (colours alternate), each suit
 * in `rankOrder` (e.g. ["10", "9", ..., "A"]); animal cards by animal, then rank. Display only. */
export function handOrder(rankOrder = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]) {
  const suits = ["S", "H", "C", "D"];
  const key = (card) => {
    const p = parseCard(card);
    if (p.kind === "french") return [suits.indexOf(p.suit), rankOrder.indexOf(p.rank)];
    if (p.kind === "animal") return [ANIMALS.indexOf(p.animal), p.rank];
    return [99, 0];
  };
  return (a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1];
  };
}

export function Hand({ cards: given, moves, act, lang, label, placed, order }) {
  const cards = order ? [...given].sort(order) : given;
  const byCard = cardMoves(moves);
  const anyMove = byCard.size > 0;
  const n = cards.length;
  return html`<div class=${`hand${anyMove ? " my-turn" : ""}`} role="group" aria-label=${label}
    style=${`--n:${n}`} data-testid="hand">
    ${cards.map((card, i) => {
      const move = byCard.get(card);
      if (move && placed) placed.add(moveKey(move));
      return html`<span class="hand-slot" style=${`--i:${i};--mid:${(n - 1) / 2}`} key=${card}>
        <${Card} card=${card} move=${move} act=${act} lang=${lang} dim=${anyMove && !move} /></span>`;
    })}
  </div>`;
}

export function Backs({ count, max = 6, label }) {
  const shown = Math.min(count || 0, max);
  return html`<span class="backs" title=${label} aria-label=${label} data-count=${count}>
    ${Array.from({ length: shown }, (_, i) => html`<span class="back-slot" style=${`--i:${i}`}>
      <${Card} back=${true} small=${true} /></span>`)}
    <span class="count">${count}</span></span>`;
}

/** Where seat number k of n (k places clockwise after the reader) sits: x, y in -1..1. */
export function seatPoint(k, n) {
  const a = (2 * Math.PI * k) / n;
  return { x: -Math.sin(a), y: Math.cos(a) };
}

export function TableLayout({ order, me, plate, trick = [], info, turn, trickLabel, lastTrick, lastLabel }) {
  const n = order.length;
  const base = me === null || me === undefined || !order.includes(me) ? order[0] : me;
  const rel = (seat) => (order.indexOf(seat) - order.indexOf(base) + n) % n;
  const pos = (seat) => {
    const { x, y } = seatPoint(rel(seat), n);
    return `--x:${x.toFixed(3)};--y:${y.toFixed(3)}`;
  };
  return html`${info ? html`<div class="table-info">${info}</div>` : null}<div class=${`card-table seats-${n}`}>
    <div class="felt"></div>
    ${order.map((seat) => html`<div class=${`seat-plate${seat === turn ? " to-move" : ""}${seat === me ? " me" : ""}`}
        data-seat=${seat} style=${pos(seat)} key=${`p${seat}`}>${plate(seat)}</div>`)}
    ${!trick.length && lastTrick && lastTrick.length ? html`<div class="trick last-trick" aria-label=${lastLabel}>
      <span class="last-label">${lastLabel}</span>
      ${lastTrick.map(({ seat, card }, i) => html`<span class="trick-card" data-seat=${seat} key=${`l${seat}`}
          style=${`${pos(seat)};z-index:${i + 1}`}><${Card} card=${card} small=${true} /></span>`)}
    </div>` : null}
    <div class="trick" aria-label=${trickLabel} data-testid="trick">
      ${trick.map(({ seat, card }, i) => html`<span class="trick-card" data-seat=${seat} key=${`t${seat}`}
          style=${`${pos(seat)};z-index:${i + 1}`}><${Card} card=${card} small=${true} /></span>`)}
    </div>
  </div>`;
}

/** A label function over a renderer's own {nl, en} map: labels(MAP, lang, t, "hoppaa")(key, vars).
 * The renderer's own map wins; then t(`${prefix}.${key}`) when t knows it; then the key. "{x}" is filled
 * from vars. */
export function labels(map, lang, t, prefix) {
  const table = map[lang] || map.nl || {};
  const fill = (s, vars) => String(s).replace(/\{(\w+)\}/g, (_, k) => (vars && k in vars ? vars[k] : `{${k}}`));
  return (key, vars) => {
    if (key in table) return fill(table[key], vars);
    if (typeof t === "function") {
      const full = `${prefix}.${key}`;
      const got = t(full, vars);
      if (got && got !== full) return got;
    }
    return fill(key, vars);
  };
}

/** A seat's display name from the game's seats, else "seat N" / "stoel N". */
export function seatName(seats, seat, lang) {
  const s = (seats || []).find((x) => x && x.seat === seat);
  return (s && s.display_name) || `${lang === "en" ? "Seat" : "Stoel"} ${seat + 1}`;
}

/** The language for describeEvent(event, t, lang): the argument, t.lang, <html lang>, else "nl". */
export function eventLang(t, lang) {
  const l = lang || (t && t.lang) || (typeof document !== "undefined" && document.documentElement.lang) || "nl";
  return String(l).startsWith("en") ? "en" : "nl";
}
