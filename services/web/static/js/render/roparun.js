// ROPARUN (shared/rules/roparun.md): the designed board of §5 drawn from the view's `board` (the ring
// of route squares, each team's start squares, finish column and off-route box), the pawns, the
// reader's hand as card faces with the legal plays of each card under it, the last play, whose turn
// and the standings. Knows no rules: every play button is a move from `moves`, posted unchanged.
import { html, moveKey, useState } from "../lib.js";
import { describeArgs, otherMoves } from "./index.js";

const LABELS = {
  nl: {
    player: "Speler {n}", title: "ROPARUN", subtitle: "Parijs → Rotterdam", turn: "Aan de beurt: {name}", your_turn: "Jij bent aan de beurt",
    spectator: "Je kijkt mee", deal: "Ronde {deal} · cyclus {cycle}", dealer: "Deler: {name}",
    stock: "Stapel: {n}", discarded: "Dicht afgelegd: {n}", hand: "Jouw hand", hand_size: "{n} kaarten",
    plays: "Zetten met deze kaart", no_play: "geen zet", end_turn: "Beurt beëindigen", last_play: "Laatste zet",
    stop_go: "Stop&Go", in_order: "op volgorde", home: "binnen {n}/4", off: "buiten de route",
    winner: "{name} wint!", finished: "Afgelopen", scores: "Teams", captures: "geslagen: {list}",
    enter: "Inzetten", swap: "Wissel", split: "Zeven", forward: "vooruit", backward: "achteruit",
    draw: "Trekking voor de deler", dealer_draw: "Deler bepalen", played: "Gespeeld", you: "jij",
    off_box: "buiten", finish: "finish", start: "start", plays_this_turn: "{n} kaart(en) gespeeld deze beurt",
    no_moves_now: "Wacht op je beurt",
    c1: "Fietser 1", c2: "Fietser 2", r: "Loper", car: "Volgauto",
    Red: "Rood", Blue: "Blauw", Green: "Groen", Yellow: "Geel",
    ev_move_card: "{name} legt {card} op", ev_move_some: "{name} speelt een kaart", ev_move_end: "{name} stopt",
    ev_played: "{name} speelt {card}: {what}", ev_turn: "{name} beëindigt de beurt", ev_turn_auto: "{name} kan niet meer spelen",
    ev_dealt: "{name} deelt ronde {deal}", ev_won: "{name} is gefinisht en wint", ev_cycle: "De stapel is op: {name} wordt deler",
  },
  en: {
    player: "Player {n}", title: "ROPARUN", subtitle: "Paris → Rotterdam", turn: "To play: {name}", your_turn: "Your turn",
    spectator: "You are watching", deal: "Deal {deal} · cycle {cycle}", dealer: "Dealer: {name}",
    stock: "Stock: {n}", discarded: "Discarded face down: {n}", hand: "Your hand", hand_size: "{n} cards",
    plays: "Plays with this card", no_play: "no play", end_turn: "End turn", last_play: "Last play",
    stop_go: "Stop&Go", in_order: "in order", home: "home {n}/4", off: "off the route",
    winner: "{name} wins!", finished: "Finished", scores: "Teams", captures: "captured: {list}",
    enter: "Enter", swap: "Swap", split: "Seven", forward: "forward", backward: "backward",
    draw: "Draw for the dealer", dealer_draw: "Choosing the dealer", played: "Played", you: "you",
    off_box: "off", finish: "finish", start: "start", plays_this_turn: "{n} card(s) played this turn",
    no_moves_now: "Waiting for your turn",
    c1: "Cyclist 1", c2: "Cyclist 2", r: "Runner", car: "Support car",
    Red: "Red", Blue: "Blue", Green: "Green", Yellow: "Yellow",
    ev_move_card: "{name} lays down {card}", ev_move_some: "{name} plays a card", ev_move_end: "{name} stops",
    ev_played: "{name} plays {card}: {what}", ev_turn: "{name} ends the turn", ev_turn_auto: "{name} cannot play on",
    ev_dealt: "{name} deals deal {deal}", ev_won: "{name} has finished and wins", ev_cycle: "The stock is empty: {name} deals next",
  },
};
const SHORT = { nl: { c1: "F1", c2: "F2", r: "L", car: "A" }, en: { c1: "C1", c2: "C2", r: "R", car: "Car" } };
const COLOURS = { Red: "#d63a2f", Blue: "#2f6fd6", Green: "#2f9e4f", Yellow: "#e8b823" };
const PAWNS = ["c1", "r", "c2", "car"];
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };

function labeller(lang) {
  const table = LABELS[lang] || LABELS.en;
  return (key, vars = {}) => String(table[key] ?? LABELS.en[key] ?? key)
    .replace(/\{(\w+)\}/g, (_, k) => (vars[k] ?? `{${k}}`));
}

const colourOf = (name) => COLOURS[name] || "#777";
const nameOf = (seats, seat) => seats?.find((s) => s.seat === seat)?.display_name ?? `#${seat}`;

/** A card id ("10H") as its rank and suit; suits have no effect in ROPARUN but are shown. */
function splitCard(card) {
  return { rank: String(card).slice(0, -1), suit: String(card).slice(-1) };
}

/** A card face: rank and suit in the corners and the suit in the middle (HTML). */
export function CardFace({ card, small = false, selected = false }) {
  const { rank, suit } = splitCard(card);
  const red = suit === "H" || suit === "D";
  return html`<span class=${`rp-card${red ? " red" : ""}${small ? " small" : ""}${selected ? " selected" : ""}`}
      data-card=${card} aria-label=${card}>
    <span class="corner tl">${rank}<br />${SUITS[suit] ?? suit}</span>
    <span class="pip">${SUITS[suit] ?? suit}</span>
    <span class="corner br">${rank}<br />${SUITS[suit] ?? suit}</span>
  </span>`;
}

// --- geometry ------------------------------------------------------------------------------------
// Four sections: the route runs clockwise round the edge of a (S+1)×(S+1) grid, so each team's start
// squares begin at a corner and its finish column runs diagonally from that corner to the middle.
// Any other number of sections: a circle.
const CELL = 34;
const MARGIN = 58;

function geometry(board) {
  const N = board.squares;
  const S = board.section_length;
  const M = board.sections;
  if (M === 4) {
    const size = (S + 1) * CELL + 2 * MARGIN;
    const grid = (i) => {
      const side = Math.floor(i / S) % 4;
      const k = i % S;
      return [[k, 0], [S, k], [S - k, S], [0, S - k]][side];
    };
    const at = ([c, r]) => [MARGIN + (c + 0.5) * CELL, MARGIN + (r + 0.5) * CELL];
    const centre = [size / 2, size / 2];
    const pos = (i) => at(grid(((i % N) + N) % N));
    const inward = (i) => {
      const [x, y] = pos(i);
      const dx = centre[0] - x;
      const dy = centre[1] - y;
      return [Math.sign(Math.round(dx)), Math.sign(Math.round(dy))];
    };
    const outward = (i) => { // the normal of the square's side, pointing out of the board
      const side = Math.floor((((i % N) + N) % N) / S) % 4;
      return [[0, -1], [1, 0], [0, 1], [-1, 0]][side];
    };
    const finish = (base, place) => {
      const [x, y] = pos(base);
      const [dx, dy] = inward(base);
      return [x + dx * CELL * place * 0.92, y + dy * CELL * place * 0.92];
    };
    return { size, pos, outward, finish, centre, cell: CELL, centreScale: 1 };
  }
  const radius = Math.max(235, (N * CELL * 1.05) / (2 * Math.PI));
  const size = 2 * (radius + MARGIN + CELL);
  const centre = [size / 2, size / 2];
  const angle = (i) => -Math.PI / 2 + (2 * Math.PI * i) / N;
  const pos = (i) => [centre[0] + radius * Math.cos(angle(i)), centre[1] + radius * Math.sin(angle(i))];
  const outward = (i) => [Math.cos(angle(i)), Math.sin(angle(i))];
  const finish = (base, place) => {
    const a = angle(base - 0.5);
    const r = radius - CELL * place * 0.9;
    return [centre[0] + r * Math.cos(a), centre[1] + r * Math.sin(a)];
  };
  return { size, pos, outward, finish, centre, cell: CELL, centreScale: 0.72, ring: radius };
}

/** Where each pawn stands: {x, y} for route squares and finish places, or its slot in the off box. */
function pawnPlaces(view, geo) {
  const out = [];
  const boardTeams = view.board?.teams ?? [];
  for (const team of view.teams ?? []) {
    const bt = boardTeams.find((b) => b.seat === team.seat);
    let offIndex = 0;
    for (const pawn of PAWNS) {
      const p = team.pawns?.[pawn];
      if (!p) continue;
      let xy;
      if (p.where === "route") xy = geo.pos(p.square);
      else if (p.where === "finish" && bt) xy = geo.finish(bt.base, p.place);
      else if (bt) xy = offBoxSpot(bt, geo, offIndex++);
      if (xy) out.push({ seat: team.seat, colour: team.colour, pawn, where: p.where, square: p.square, place: p.place, x: xy[0], y: xy[1] });
    }
  }
  return out;
}

function offBoxCentre(bt, geo) {
  const [x, y] = geo.pos(bt.base + 1.5 > 0 ? bt.base + 1 : bt.base);
  const [x2, y2] = geo.pos(bt.base + 2);
  const [ox, oy] = geo.outward(bt.base + 2);
  return [(x + x2) / 2 + ox * geo.cell * 1.15, (y + y2) / 2 + oy * geo.cell * 1.15];
}

function offBoxSpot(bt, geo, index) {
  const [cx, cy] = offBoxCentre(bt, geo);
  const [ox, oy] = geo.outward(bt.base + 2);
  const along = [-oy, ox]; // along the side
  const k = -geo.cell * 1.6 + 14 + index * geo.cell * 0.66; // from one end; the label sits at the other
  return [cx + along[0] * k, cy + along[1] * k];
}

function PawnShape({ p, short, highlight, say }) {
  const fill = colourOf(p.colour);
  const r = 12;
  const ring = highlight ? html`<circle r=${r + 5} class="rp-pawn-ring" />` : null;
  let body;
  if (p.pawn === "r") {
    body = html`<polygon points=${`0,${-r - 2} ${r + 1},0 0,${r + 2} ${-r - 1},0`} fill=${fill} />`;
  } else if (p.pawn === "car") {
    body = html`<rect x=${-r - 1} y=${-r + 3} width=${2 * r + 2} height=${2 * r - 6} rx="5" fill=${fill} />`;
  } else {
    body = html`<circle r=${r} fill=${fill} />`;
  }
  return html`<g class=${`rp-pawn${highlight ? " hl" : ""}`} transform=${`translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`}
      data-seat=${p.seat} data-pawn=${p.pawn} data-where=${p.where}>
    <title>${say(p.colour)} · ${say(p.pawn)}</title>
    ${ring}${body}
    <text class="rp-pawn-label" y="4">${short[p.pawn]}</text>
  </g>`;
}

/** The pawns and squares a listed move involves, for the hover preview (read from the move only). */
function involved(move, seat) {
  const pawns = new Set();
  const slots = new Set();
  const a = move?.action || {};
  if (a.move) pawns.add(`${seat}:${a.move}`);
  for (const part of a.split || []) pawns.add(`${seat}:${part.pawn}`);
  for (const e of a.enter || []) { pawns.add(`${seat}:${e.pawn}`); slots.add(e.slot); }
  if (a.swap) { pawns.add(`${seat}:${a.swap.pawn}`); pawns.add(`${a.swap.target_seat}:${a.swap.target_pawn}`); }
  return { pawns, slots };
}

function Board({ view, seat, say, short, preview, lang }) {
  const board = view.board;
  const geo = geometry(board);
  const teamsByBase = Object.fromEntries((board.teams ?? []).map((t) => [t.seat, t]));
  const places = pawnPlaces(view, geo);
  const hl = preview ? involved(preview, seat) : { pawns: new Set(), slots: new Set() };
  const myBase = teamsByBase[seat]?.base;
  const half = CELL / 2 - 1.5;
  const last = view.last_play;

  const squares = board.route.map((sq) => {
    const [x, y] = geo.pos(sq.square);
    const owner = sq.start_of != null ? (view.teams ?? []).find((t) => t.seat === sq.start_of) : null;
    const bt = sq.start_of != null ? teamsByBase[sq.start_of] : null;
    const tint = owner ? colourOf(owner.colour) : null;
    const previewSlot = preview && sq.start_of === seat && hl.slots.has(sq.slot);
    const cls = `rp-square${sq.section % 2 ? " odd" : ""}${owner ? " start" : ""}${sq.finish_beside_of != null ? " last" : ""}${previewSlot ? " hl" : ""}`;
    return html`<g class=${cls} data-square=${sq.square}>
      <rect x=${x - half} y=${y - half} width=${2 * half} height=${2 * half} rx="5"
        style=${tint ? `fill:${tint};fill-opacity:.42;stroke:${tint}` : undefined} />
      ${sq.slot != null
        ? html`<text class="rp-slot" x=${x} y=${y + half - 3}>${sq.slot}</text>`
        : (sq.square % 4 === 0 ? html`<text class="rp-num" x=${x} y=${y + half - 3}>${sq.square}</text>` : null)}
      ${bt && sq.slot === 0 ? null : null}
    </g>`;
  });

  const columns = (board.teams ?? []).map((bt) => {
    const team = (view.teams ?? []).find((t) => t.seat === bt.seat);
    const colour = colourOf(bt.colour);
    const [lx, ly] = geo.pos(bt.last_square);
    const [f1x, f1y] = geo.finish(bt.base, 1);
    const [f4x, f4y] = geo.finish(bt.base, bt.finish_column.places.length);
    const [bx, by] = offBoxCentre(bt, geo);
    const [ox, oy] = geo.outward(bt.base + 2);
    const along = [-oy, ox]; // the box lies along the route beside the start squares
    const rawTurn = (Math.atan2(along[1], along[0]) * 180) / Math.PI;
    const flip = rawTurn > 90.5 || rawTurn < -89.5 ? -1 : 1; // keep the label upright
    const boxTurn = flip < 0 ? rawTurn - 180 : rawTurn;
    const boxLong = CELL * 3.2;
    return html`<g class="rp-team-zone" data-team=${bt.seat}>
      <line x1=${lx} y1=${ly} x2=${f1x} y2=${f1y} stroke=${colour} stroke-width="4" stroke-dasharray="4 3" />
      <line x1=${f1x} y1=${f1y} x2=${f4x} y2=${f4y} stroke=${colour} stroke-width=${CELL * 0.9} stroke-opacity="0.18" stroke-linecap="round" />
      ${bt.finish_column.places.map((place) => {
        const [x, y] = geo.finish(bt.base, place);
        const top = place === bt.finish_column.places.length;
        return html`<g class=${`rp-finish${top ? " top" : ""}`} data-finish=${bt.seat} data-place=${place}>
          <rect x=${x - 13} y=${y - 13} width="26" height="26" rx="4" fill="#fff" stroke=${colour} stroke-width="2.5" />
          <text class="rp-slot" x=${x} y=${y + 10}>F${place}</text>
        </g>`;
      })}
      <g class="rp-flag" transform=${`translate(${(f4x + (geo.centre[0] - f4x) * 0.22).toFixed(1)},${(f4y + (geo.centre[1] - f4y) * 0.22).toFixed(1)})`}>
        <rect x="-9" y="-7" width="18" height="12" fill="url(#rp-checks)" stroke="#222" stroke-width="0.8" />
        <line x1="-9" y1="-7" x2="-9" y2="12" stroke="#222" stroke-width="1.4" />
      </g>
      <g class="rp-offbox-zone" transform=${`translate(${(bx + ox * 2).toFixed(1)},${(by + oy * 2).toFixed(1)}) rotate(${boxTurn.toFixed(1)})`}>
        <rect class="rp-offbox" x=${-boxLong / 2} y=${-CELL * 0.525} width=${boxLong} height=${CELL * 1.05} rx="8" stroke=${colour} />
        <text class="rp-offbox-label" x=${flip * (boxLong / 2 - 22)} y="3" fill=${colour}>${say("off_box")}</text>
      </g>
      ${team?.stop_go ? html`<g class="rp-stopgo-badge" transform=${`translate(${(bx + along[0] * (boxLong / 2 + 16)).toFixed(1)},${(by + along[1] * (boxLong / 2 + 16)).toFixed(1)})`}>
        <title>${say("stop_go")}</title>
        <circle r="11" fill="#c62828" stroke="#fff" stroke-width="2" /><text y="3.5">${"S&G"}</text></g>` : null}
    </g>`;
  });

  const arrows = [0.5, 1.5, 2.5, 3.5].map((q) => {
    const i = Math.round(q * board.section_length) % board.squares;
    const [x, y] = geo.pos(i);
    const [ox, oy] = geo.outward(i);
    const dir = [-oy, ox]; // clockwise: the outward normal turned a quarter to the right
    const rot = (Math.atan2(dir[1], dir[0]) * 180) / Math.PI;
    return html`<path class="rp-arrow" d="M -8 -5 L 4 0 L -8 5 Z" transform=${`translate(${x - ox * CELL * 0.95},${y - oy * CELL * 0.95}) rotate(${rot})`} />`;
  });

  const [cx, cy] = geo.centre;
  const top = last?.card;
  return html`<svg class="rp-board" viewBox=${`0 0 ${geo.size} ${geo.size}`} role="img"
      aria-label=${say("title")} data-testid="roparun-board">
    <defs>
      <pattern id="rp-checks" width="6" height="6" patternUnits="userSpaceOnUse">
        <rect width="6" height="6" fill="#fff" /><rect width="3" height="3" fill="#222" /><rect x="3" y="3" width="3" height="3" fill="#222" />
      </pattern>
    </defs>
    <rect class="rp-table" x="4" y="4" width=${geo.size - 8} height=${geo.size - 8} rx="22" />
    ${geo.ring ? html`<circle class="rp-road" cx=${geo.centre[0]} cy=${geo.centre[1]} r=${geo.ring} />` : null}
    <g class="rp-track">${squares}</g>
    ${arrows}
    ${columns}
    <g class="rp-centre" transform=${`translate(${cx},${cy}) scale(${geo.centreScale})`}>
      <text class="rp-title" y="-58">${say("title")}</text>
      <text class="rp-subtitle" y="-38">${say("subtitle")}</text>
      <g class="rp-stock" transform="translate(-52,0)">
        <rect x="-24" y="-34" width="48" height="68" rx="6" class="rp-back" />
        <rect x="-21" y="-31" width="42" height="62" rx="4" class="rp-back-inner" />
        <text class="rp-stock-n" y="56">${say("stock", { n: view.stock_size ?? 0 })}</text>
      </g>
      <g class="rp-discard" transform="translate(52,0)">
        ${top ? html`<g data-card=${top}>
          <rect x="-24" y="-34" width="48" height="68" rx="6" class="rp-face" />
          <text class=${`rp-face-rank${/[HD]$/.test(top) ? " red" : ""}`} y="-6">${splitCard(top).rank}</text>
          <text class=${`rp-face-suit${/[HD]$/.test(top) ? " red" : ""}`} y="22">${SUITS[splitCard(top).suit]}</text>
        </g>` : html`<rect x="-24" y="-34" width="48" height="68" rx="6" class="rp-empty" />`}
        <text class="rp-stock-n" y="56">${say("played")}</text>
      </g>
    </g>
    <g class="rp-pawns">
      ${places.map((p) => html`<${PawnShape} p=${p} short=${short} say=${say}
        highlight=${hl.pawns.has(`${p.seat}:${p.pawn}`)} />`)}
    </g>
    ${myBase == null ? null : null}
    ${lang ? null : null}
  </svg>`;
}

/** A move's words: the pawn and steps, the entry squares, the split or the swap (from the move). */
export function playLabel(move, say, short, seatColour) {
  const a = move.action || {};
  if (move.type === "end_turn") return say("end_turn");
  const { rank } = splitCard(move.card || "");
  if (a.move) {
    if (rank === "4") return `${say(a.move)} −4`;
    const steps = a.steps ?? ({ Q: 12, A: 1 }[rank] ?? Number(rank));
    return `${say(a.move)} +${steps}`;
  }
  if (a.enter) return `${say("enter")}: ${a.enter.map((e) => `${short[e.pawn]}→${e.slot}`).join(", ")}`;
  if (a.split) return `${a.split.map((p) => `${short[p.pawn]} +${p.steps}`).join(" · ")}`;
  if (a.swap) {
    return `${short[a.swap.pawn]} ⇄ ${say(seatColour(a.swap.target_seat))} ${short[a.swap.target_pawn]}`;
  }
  return JSON.stringify(a);
}

function Standings({ view, seats, seat, say }) {
  const finished = view.phase === "finished" || view.winner != null;
  return html`<section class="rp-teams" data-testid="scores" aria-label=${say("scores")}>
    <h3>${say("scores")}</h3>
    ${(view.teams ?? []).map((team) => {
      const home = PAWNS.filter((p) => team.pawns?.[p]?.where === "finish").length;
      const off = PAWNS.filter((p) => team.pawns?.[p]?.where === "off").length;
      const score = view.winner != null ? (view.winner === team.seat ? 1 : 0) : 0;
      const turn = !finished && view.current_seat === team.seat;
      return html`<div class=${`rp-team${turn ? " turn" : ""}${view.winner === team.seat ? " winner" : ""}`}
          data-seat=${team.seat} data-score=${score}>
        <span class="rp-dot" style=${`background:${colourOf(team.colour)}`}></span>
        <span class="rp-team-name">${nameOf(seats, team.seat)}${team.seat === seat ? ` (${say("you")})` : ""}
          <small>${say(team.colour)}${view.dealer === team.seat ? " · " + say("dealer", { name: "" }).replace(/[:\s]+$/, "") : ""}</small></span>
        <span class="rp-team-facts">
          <span class=${`rp-light ${team.stop_go ? "stop" : "go"}`} title=${team.stop_go ? say("stop_go") : say("in_order")}>
            ${team.stop_go ? say("stop_go") : say("in_order")}</span>
          <span>${say("home", { n: home })}</span>
          ${off ? html`<span>${off} ${say("off")}</span>` : null}
          <span>${say("hand_size", { n: team.hand_size ?? 0 })}</span>
        </span>
        ${view.winner === team.seat ? html`<strong class="rp-win">${say("winner", { name: nameOf(seats, team.seat) })}</strong>` : null}
      </div>`;
    })}
  </section>`;
}

function LastPlay({ view, seats, say, short, seatColour }) {
  const lp = view.last_play;
  if (!lp) return null;
  const caps = (lp.captures ?? []).map((c) => `${say(seatColour(c.seat))} ${short[c.pawn]}`);
  return html`<section class="rp-last" data-testid="last-play">
    <h3>${say("last_play")}</h3>
    <div class="rp-last-row">
      <${CardFace} card=${lp.card} small=${true} />
      <div>
        <strong>${nameOf(seats, lp.seat)}</strong>
        <div>${playLabel({ type: "play_card", card: lp.card, action: lp.action }, say, short, seatColour)}</div>
        ${caps.length ? html`<div class="rp-capture">${say("captures", { list: caps.join(", ") })}</div>` : null}
      </div>
    </div>
  </section>`;
}

function DealerDraw({ view, seats, say }) {
  const rounds = view.dealer_draws ?? [];
  if (!rounds.length || view.phase !== "dealer_draw") return null;
  return html`<section class="rp-draw"><h3>${say("dealer_draw")}</h3>
    ${rounds.map((round) => html`<div class="rp-draw-row">${round.map((d) => html`<span class="rp-draw-card">
      <${CardFace} card=${`${d.rank}${d.suit}`} small=${true} /><small>${nameOf(seats, d.seat)}</small></span>`)}</div>`)}
  </section>`;
}

function RoparunTable(ctx) {
  const { view, moves = [], seat, seats, act, lang } = ctx;
  const say = labeller(lang);
  const short = SHORT[lang] || SHORT.en;
  const [preview, setPreview] = useState(null);
  const colourBySeat = Object.fromEntries((view.teams ?? []).map((t) => [t.seat, t.colour]));
  const seatColour = (s) => colourBySeat[s] ?? String(s);
  const placed = new Set();
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const byCard = new Map(hand.map((c) => [c, []]));
  for (const m of moves) {
    if (m.type === "play_card" && byCard.has(m.card)) byCard.get(m.card).push(m);
  }
  const button = (m, label, cls = "move") => {
    placed.add(moveKey(m));
    return html`<button type="button" class=${cls} data-move=${moveKey(m)} onClick=${() => act(m)}
      onMouseEnter=${() => setPreview(m)} onFocus=${() => setPreview(m)}
      onMouseLeave=${() => setPreview(null)} onBlur=${() => setPreview(null)}>${label}</button>`;
  };
  const endTurn = moves.find((m) => m.type === "end_turn");
  const finished = view.phase === "finished" || view.winner != null;
  const current = view.current_seat;
  const status = finished
    ? say("winner", { name: nameOf(seats, view.winner) })
    : seat == null ? `${say("spectator")} · ${say("turn", { name: nameOf(seats, current) })}`
      : current === seat ? say("your_turn") : say("turn", { name: nameOf(seats, current) });

  return html`<div class="roparun" data-game="roparun">
    <header class="rp-status" data-testid="turn">
      <span class=${`rp-turn${!finished && current === seat ? " mine" : ""}`}>
        ${current != null && !finished ? html`<span class="rp-dot" style=${`background:${colourOf(seatColour(current))}`}></span>` : null}
        ${status}</span>
      <span>${say("deal", { deal: view.deal_in_cycle ?? view.deal_no ?? 0, cycle: view.cycle_no ?? 0 })}</span>
      ${view.dealer != null ? html`<span>${say("dealer", { name: nameOf(seats, view.dealer) })}</span>` : null}
      <span>${say("discarded", { n: view.discard_face_down_count ?? 0 })}</span>
      ${view.plays_this_turn ? html`<span>${say("plays_this_turn", { n: view.plays_this_turn })}</span>` : null}
    </header>
    <div class="rp-main">
      <div class="rp-board-wrap">
        <${Board} view=${view} seat=${seat} say=${say} short=${short} preview=${preview} lang=${lang} />
      </div>
      <aside class="rp-side">
        ${seat != null ? html`<section class="rp-hand" aria-label=${say("hand")} data-testid="hand">
          <h3>${say("hand")} ${!moves.length && !finished ? html`<small>${say("no_moves_now")}</small>` : null}</h3>
          <div class="rp-hand-cards">
            ${hand.map((card) => {
              const plays = byCard.get(card) || [];
              return html`<div class=${`rp-hand-card${plays.length ? " playable" : ""}`}>
                <${CardFace} card=${card} selected=${preview?.card === card} />
                ${plays.length
                  ? html`<div class="rp-plays" role="group" aria-label=${`${say("plays")} ${card}`}>
                      ${plays.map((m) => button(m, playLabel(m, say, short, seatColour)))}</div>`
                  : (moves.length ? html`<div class="rp-plays none">${say("no_play")}</div>` : null)}
              </div>`;
            })}
          </div>
          ${endTurn ? html`<div class="rp-actions">${button(endTurn, say("end_turn"), "move rp-end-turn")}</div>` : null}
        </section>` : null}
        <${Standings} view=${view} seats=${seats} seat=${seat} say=${say} />
        <${LastPlay} view=${view} seats=${seats} say=${say} short=${short} seatColour=${seatColour} />
        <${DealerDraw} view=${view} seats=${seats} say=${say} />
      </aside>
    </div>
    ${otherMoves(ctx, placed)}
  </div>`;
}

const STYLESHEET = new URL("../../css/roparun.css", import.meta.url).href;

export function renderTable(ctx) {
  return html`<link rel="stylesheet" href=${STYLESHEET} /><${RoparunTable} ...${ctx} />`;
}

/** One sentence for the event log, or null: `item` is an event item of the API ({type, version,
 * payload}) or its payload. Called as (event, t, seats) by the table page; (event, t, lang, seats)
 * works too. The language: `lang`, else t.lang, else <html lang>, else Dutch. */
export function describeEvent(item, t, langOrSeats, moreSeats) {
  const { event, seats, lang } = describeArgs(item, t, langOrSeats, moreSeats);
  const say = labeller(lang || "nl");
  const short = SHORT[lang] || SHORT.nl;
  const who = (s) => seats?.find((x) => x.seat === s)?.display_name ?? say("player", { n: Number(s) + 1 });
  switch (event?.type) {
    case "MoveMade": // the posted move; CardPlayed / TurnEnded follow with what it did
      if (event.move?.type === "play_card") { // redacted for spectators: then the move has no card
        return event.move.card ? say("ev_move_card", { name: who(event.seat), card: event.move.card }) : say("ev_move_some", { name: who(event.seat) });
      }
      if (event.move?.type === "end_turn") return say("ev_move_end", { name: who(event.seat) });
      return null;
    case "CardPlayed":
      return say("ev_played", {
        name: who(event.seat), card: event.card,
        what: playLabel({ type: "play_card", card: event.card, action: event.action }, say, short, (s) => `#${s}`),
      });
    case "TurnEnded":
      return say(event.reason === "voluntary" ? "ev_turn" : "ev_turn_auto", { name: who(event.seat) });
    case "CardsDealt":
      return say("ev_dealt", { name: who(event.dealer), deal: event.deal_no });
    case "CycleEnded":
      return say("ev_cycle", { name: who(event.new_dealer) });
    case "GameWon":
      return say("ev_won", { name: who(event.seat) });
    default:
      return null;
  }
}
