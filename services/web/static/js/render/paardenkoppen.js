// Paardenkoppen's table (rules: shared/rules/paardenkoppen.md). Draws the reader's view only: the players
// (balance in chips, cards left as backs with a count, passes), the play mat with its four animal rows
// built up and down from the 6 (ranks 1-13 in place, head cards marked, each row's ante field in chips),
// the pot, the own hand and the score sheet. Legal moves become buttons: each playable card in the hand
// (play_card) and pass; anything else goes to otherMoves.
import { html, moveKey } from "../lib.js";
import { otherMoves } from "./index.js";
import {
  ANIMALS, ANIMAL_NAMES, AnimalIcon, Backs, Card, Hand, handOrder, cardName, eventLang, labels, loadCss, parseCard, seatName,
} from "./cards.js";

loadCss("../../css/paardenkoppen.css");

const L = {
  nl: {
    round: "Ronde {n} van {of}", round_open: "Ronde {n}", pot: "Pot", field: "Inlegveld", head: "kopkaart",
    head_played: "kop gespeeld", start_player: "startspeler", dealer: "deler", you: "jij", your_turn: "Jij bent aan zet",
    turn_of: "{name} is aan zet", hand: "Jouw hand", hand_of: "Kaarten van {name}: {n}", play: "Speel een kaart op een rij",
    pass: "Passen", pass_prompt: "Je kunt geen kaart spelen: passen (1 in de pot)", passes: "{n}× gepast",
    balance: "Fiches", scores: "Stand", player: "Speler", cards: "Kaarten", mat: "Speelmat",
    last_round: "Vorige ronde: {name} was als eerste uit en kreeg {n} uit de pot", winners: "{names} winnen!",
    winner: "{names} wint!", game_over: "Spel afgelopen", spectator: "Je kijkt mee",
    reason_rounds_done: "alle rondes gespeeld", reason_cannot_ante: "iemand kan niet meer inleggen",
    reason_tie_resolved: "gelijke stand beslist", empty: "leeg", chips: "{n} fiches",
    phase_playing: "spelen", phase_finished: "afgelopen",
  },
  en: {
    round: "Round {n} of {of}", round_open: "Round {n}", pot: "Pot", field: "Ante field", head: "head card",
    head_played: "head played", start_player: "start player", dealer: "dealer", you: "you", your_turn: "Your turn",
    turn_of: "{name} to move", hand: "Your hand", hand_of: "{name}'s cards: {n}", play: "Play a card onto a row",
    pass: "Pass", pass_prompt: "You cannot play a card: pass (1 into the pot)", passes: "passed {n}×",
    balance: "Chips", scores: "Standings", player: "Player", cards: "Cards", mat: "Play mat",
    last_round: "Last round: {name} went out first and took {n} from the pot", winners: "{names} win!",
    winner: "{names} wins!", game_over: "Game over", spectator: "You are watching",
    reason_rounds_done: "all rounds played", reason_cannot_ante: "a player cannot ante",
    reason_tie_resolved: "tie resolved", empty: "empty", chips: "{n} chips",
    phase_playing: "playing", phase_finished: "finished",
  },
};

const DENOMS = [20, 10, 5, 1];

/** An amount drawn as chip stacks (20, 10, 5 and 1), with the number. */
export function Chips({ amount, label }) {
  const stacks = [];
  let rest = Math.max(0, amount || 0);
  for (const d of DENOMS) {
    const k = Math.floor(rest / d);
    rest -= k * d;
    if (k) stacks.push([d, k]);
  }
  return html`<span class="chips" data-amount=${amount} title=${label} aria-label=${label}>
    ${stacks.map(([d, k]) => html`<span class=${`chip-stack v${d}`} title=${`${k} × ${d}`}>
      ${Array.from({ length: Math.min(k, 5) }, (_, i) => html`<span class="chip" style=${`--i:${i}`}></span>`)}
    </span>`)}
    <b class="amount">${amount}</b></span>`;
}

function Row({ animal, row, lang, lb, targets }) {
  const cards = new Map((row.cards || []).map((c) => [parseCard(c).rank, c]));
  const slots = Array.from({ length: 13 }, (_, i) => i + 1);
  return html`<div class=${`pk-row ${animal}`} data-row=${animal}>
    <div class="pk-row-label">
      <span class="pk-animal"><${AnimalIcon} animal=${animal} /> ${ANIMAL_NAMES[lang][animal]}</span>
      <span class="pk-field" data-field=${row.field}>${lb("field")}: <${Chips} amount=${row.field} label=${lb("chips", { n: row.field })} /></span>
    </div>
    <div class="pk-slots">
      ${slots.map((r) => {
        const card = cards.get(r);
        const head = r === row.head_rank;
        const target = targets.has(`${animal}-${r}`);
        return html`<div key=${r} class=${`pk-slot${head ? " head-slot" : ""}${r === 6 ? " six" : ""}${target ? " target" : ""}`} data-slot=${r}>
          ${card ? html`<${Card} card=${card} small=${true} lang=${lang} />`
            : html`<span class="slot-rank">${r}${head ? html`<small>${lb("head")}</small>` : null}</span>`}
        </div>`;
      })}
    </div>
  </div>`;
}

export function renderTable(ctx) {
  const { view, moves = [], seat = null, seats = [], act, t, lang: rawLang } = ctx;
  const lang = rawLang === "en" ? "en" : "nl";
  const lb = labels(L, lang, t, "paardenkoppen");
  const name = (s) => seatName(seats, s, lang);
  const n = view.num_players;
  const order = Array.from({ length: n }, (_, i) => i);
  const placed = new Set();
  const turn = view.current_seat;
  const myTurn = seat !== null && seat === turn && moves.length > 0;
  const winners = view.winners || [];
  const hand = view.hand || null;
  const handCards = new Set(hand || []);
  const playMoves = moves.filter((m) => m.type === "play_card" && handCards.has(m.card));
  playMoves.forEach((m) => placed.add(moveKey(m)));
  const targets = new Set(playMoves.map((m) => m.card));
  const passMoves = moves.filter((m) => m.type === "pass");

  const status = view.phase === "finished"
    ? (winners.length ? lb(winners.length > 1 ? "winners" : "winner", { names: winners.map(name).join(" & ") }) : lb("game_over"))
    : myTurn ? lb("your_turn") : turn !== null && turn !== undefined ? lb("turn_of", { name: name(turn) }) : "";

  // the reader first, then clockwise
  const base = seat !== null && seat >= 0 && seat < n ? seat : 0;
  const around = order.map((k) => (base + k) % n);
  const players = html`<div class="pk-players">
    ${around.map((s) => html`<div key=${s} data-seat=${s} class=${`seat-plate pk-plate${s === turn ? " to-move" : ""}${s === seat ? " me" : ""}`}>
      <span class="name">${name(s)}${s === seat ? html` (${lb("you")})` : null}</span>
      <span class="badges">
        ${s === view.start_player ? html`<span class="badge">${lb("start_player")}</span>` : null}
        ${s === view.dealer ? html`<span class="badge dealer">${lb("dealer")}</span>` : null}
        ${winners.includes(s) ? html`<span class="badge winner">★</span>` : null}
        ${view.passes && view.passes[s] ? html`<span class="badge">${lb("passes", { n: view.passes[s] })}</span>` : null}
      </span>
      <${Chips} amount=${view.balances[s]} label=${lb("chips", { n: view.balances[s] })} />
      ${s !== seat && view.hand_sizes[s] > 0 ? html`<${Backs} count=${view.hand_sizes[s]} label=${lb("hand_of", { name: name(s), n: view.hand_sizes[s] })} />` : null}
    </div>`)}
  </div>`;

  const info = html`<div class="table-info">
    <span><b>${view.rounds ? lb("round", { n: view.round_no, of: view.rounds }) : lb("round_open", { n: view.round_no })}</b></span>
    <span>${(lb(`phase_${view.phase}`) === `phase_${view.phase}` ? view.phase : lb(`phase_${view.phase}`))}</span>
    ${view.end_reason ? html`<span>${lb(`reason_${view.end_reason}`)}</span>` : null}
  </div>`;

  const mat = html`<div class="pk-mat" aria-label=${lb("mat")}>
    ${ANIMALS.filter((a) => view.rows[a]).map((a) => html`<${Row} key=${a} animal=${a} row=${view.rows[a]} lang=${lang} lb=${lb} targets=${targets} />`)}
    <div class="pk-pot" data-testid="pot" data-pot=${view.pot}><span class="pk-pot-label">${lb("pot")}</span>
      <${Chips} amount=${view.pot} label=${lb("chips", { n: view.pot })} /></div>
  </div>`;

  const passPanel = passMoves.length ? html`<div class="choice-panel" data-testid="choices">
    <div class="prompt">${lb("pass_prompt")}</div>
    ${passMoves.map((m) => {
      placed.add(moveKey(m));
      return html`<button type="button" data-move=${moveKey(m)} onClick=${() => act(m)}>${lb("pass")}</button>`;
    })}</div>` : null;

  const scores = html`<table class="scores" data-testid="scores">
    <thead><tr><th>${lb("player")}</th><th class="num">${lb("cards")}</th><th class="num">${lb("balance")}</th></tr></thead>
    <tbody>${[...order].sort((a, b) => view.balances[b] - view.balances[a]).map((s) => html`<tr data-seat=${s}
        data-score=${view.balances[s]} class=${`${s === seat ? "me" : ""} ${winners.includes(s) ? "winner" : ""}`}>
      <td>${name(s)}</td><td class="num">${view.hand_sizes[s]}</td><td class="num">${view.balances[s]}</td></tr>`)}
    </tbody></table>`;

  const last = view.last_round ? html`<div class="pk-last">${lb("last_round", { name: name(view.last_round.seat_out), n: view.last_round.pot_payout })}</div>` : null;
  const rest = otherMoves({ moves, act, t }, placed);
  return html`<div class="card-game paardenkoppen" data-phase=${view.phase}>
    <div class="game-bar">
      <span class=${`cg-status${myTurn ? " mine" : ""}`} data-testid="status">${status}</span>
      ${seat === null ? html`<span>${lb("spectator")}</span>` : null}
    </div>
    ${info}
    ${players}
    ${mat}
    ${passPanel}
    ${hand && hand.length ? html`<div class="hand-area">
      ${playMoves.length ? html`<div class="prompt card-prompt">${lb("play")}</div>` : null}
      <${Hand} cards=${hand} moves=${playMoves} act=${act} lang=${lang} label=${lb("hand")}
        order=${handOrder()} /></div>` : null}
    ${rest}
    ${last}
    ${scores}
  </div>`;
}

/** A sentence for the event log; null for events this game does not know (the page describes those). */
export function describeEvent(event, t, lang, seats) {
  if (Array.isArray(lang)) [lang, seats] = [undefined, lang]; // also called as (event, t, seats)
  const l = eventLang(t, lang);
  const lb = labels(E, l, t, "paardenkoppen.event");
  const p = event.payload || {};
  const who = (s) => seatName(seats, s, l);
  switch (event.type) {
    case "RoundStarted": return lb("RoundStarted", { n: p.round_no, dealer: who(p.dealer), start: who(p.start_player) });
    case "AntesPaid": return lb("AntesPaid", { per: p.per_player, field: p.per_field });
    case "CardPlayed": return lb(p.head_payout ? "HeadPlayed" : "CardPlayed", { name: who(p.seat), card: cardName(p.card, l), n: p.head_payout });
    case "Passed": return lb(p.paid ? "Passed" : "PassedFree", { name: who(p.seat) });
    case "RoundEnded": return lb("RoundEnded", { name: who(p.seat_out), n: p.pot_payout });
    case "GameEnded": return lb("GameEnded", { names: (p.winners || []).map(who).join(" & ") });
    default: return null;
  }
}

const E = {
  nl: {
    RoundStarted: "Ronde {n}: {dealer} deelt, {start} begint", AntesPaid: "Iedereen legt {per} in ({field} per inlegveld)",
    CardPlayed: "{name} speelt {card}", HeadPlayed: "{name} speelt kopkaart {card} en pakt {n}",
    Passed: "{name} past en betaalt 1", PassedFree: "{name} past (geen fiches)",
    RoundEnded: "{name} is uit en pakt de pot ({n})", GameEnded: "{names} wint het spel",
  },
  en: {
    RoundStarted: "Round {n}: {dealer} deals, {start} starts", AntesPaid: "Everyone antes {per} ({field} per field)",
    CardPlayed: "{name} plays {card}", HeadPlayed: "{name} plays head card {card} and takes {n}",
    Passed: "{name} passes and pays 1", PassedFree: "{name} passes (no chips)",
    RoundEnded: "{name} is out and takes the pot ({n})", GameEnded: "{names} wins the game",
  },
};
