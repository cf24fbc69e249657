// Klapper's table (rules: shared/rules/klapper.md). Draws the reader's view only: seats in table order
// (view.table, clockwise) with the partners opposite, the own hand, the other hands as backs with counts,
// the trick by seat, the turned card, trump, Speler and playing side, declared roem, the deal's card
// points and the score sheet per side. Legal moves become buttons: cards (play_card), bidding
// (bid play/pass, choose_trump, pass) and declare_roem; anything else goes to otherMoves.
import { html, moveKey } from "../lib.js";
import { otherMoves } from "./index.js";
import {
  Backs, Card, Hand, SUIT_NAMES, handOrder, SuitIcon, TableLayout, cardName, eventLang, labels, loadCss, seatName,
} from "./cards.js";

loadCss("../../css/klapper.css");

const HAND_ORDER = handOrder(["A", "10", "K", "Q", "J", "9"]); // the non-trump trick order (KL spec, section 2)
const MELDS = {
  nl: { four_jacks: "vier boeren", four_of_a_kind: "carré", run5: "vijfde", run4: "vierde", run3: "derde", stuk: "stuk" },
  en: { four_jacks: "four jacks", four_of_a_kind: "four of a kind", run5: "run of five", run4: "run of four",
    run3: "run of three", stuk: "stuk (K+Q of trump)" },
};

const L = {
  nl: {
    deal: "Potje {n}", trump: "Troef", trump_open: "nog niet gekozen", turned: "Omgedraaid", dealer: "deler",
    voorhand: "voorhand", speler: "Speler", troefmaker: "Troefmaker", playing_side: "spelende zijde",
    team: "Team {n}", you: "jij", your_turn: "Jij bent aan zet", turn_of: "{name} is aan zet",
    hand: "Jouw hand", hand_of: "Kaarten van {name}: {n}", play: "Speel een kaart",
    bid1: "Spelen of passen? Voorgestelde troef:", bid2: "Iedereen paste: kies vrij een troefkleur of pas",
    play_bid: "Spelen", pass: "Passen", choose: "{suit}", roem_prompt: "Roem melden (voor je kaart speelt)",
    declare: "Meld {melds}", roem: "Roem", no_roem: "geen roem", points: "Kaartpunten dit potje",
    roem_scored: "Roem gescoord", score: "Stand", target: "tot {n}", scores: "Scoreblad", side: "Zijde",
    last_trick: "laatste slag", tricks: "Slagen dit potje", won_by: "→ {name}", void: "geen spel (allen gepast)",
    winner: "{names} winnen!", winner_one: "{names} wint!", game_over: "Spel afgelopen", spectator: "Je kijkt mee",
    trick: "Huidige slag", prev_trick: "Vorige slag", omboeren: "Omboeren", bid_play: "speelt", bid_pass: "past",
    phase_omboeren: "omboeren", phase_bidding_1: "bieden (ronde 1)", phase_bidding_2: "bieden (ronde 2)",
    phase_play: "spelen", phase_game_over: "afgelopen", dead_hand: "dode hand: {n}", extras: "extra gedekt: {n}",
    won: "gehaald", lost: "nat", total: "Totaal",
  },
  en: {
    deal: "Deal {n}", trump: "Trump", trump_open: "not chosen yet", turned: "Turned card", dealer: "dealer",
    voorhand: "voorhand", speler: "Speler", troefmaker: "Troefmaker", playing_side: "playing side",
    team: "Team {n}", you: "you", your_turn: "Your turn", turn_of: "{name} to move",
    hand: "Your hand", hand_of: "{name}'s cards: {n}", play: "Play a card",
    bid1: "Play or pass? Proposed trump:", bid2: "All passed: name any trump suit or pass",
    play_bid: "Play", pass: "Pass", choose: "{suit}", roem_prompt: "Declare roem (before you play your card)",
    declare: "Declare {melds}", roem: "Roem", no_roem: "no roem", points: "Card points this deal",
    roem_scored: "Roem scored", score: "Score", target: "to {n}", scores: "Score sheet", side: "Side",
    last_trick: "last trick", tricks: "Tricks this deal", won_by: "→ {name}", void: "void deal (all passed)",
    winner: "{names} win!", winner_one: "{names} wins!", game_over: "Game over", spectator: "You are watching",
    trick: "Current trick", prev_trick: "Previous trick", omboeren: "Omboeren (dealing for jacks)", bid_play: "plays", bid_pass: "passes",
    phase_omboeren: "omboeren", phase_bidding_1: "bidding (round 1)", phase_bidding_2: "bidding (round 2)",
    phase_play: "play", phase_game_over: "finished", dead_hand: "dead hand: {n}", extras: "extra face down: {n}",
    won: "made", lost: "failed", total: "Total",
  },
};

function meldText(meld, lang) {
  return `${MELDS[lang][meld.type] || meld.type} (${meld.cards.map((c) => cardName(c, lang)).join(", ")})`;
}

function MeldCards({ melds, lang }) {
  return html`<span class="melds">${melds.map((m) => html`<span class="meld" data-meld=${m.type}>
    <span class="meld-name">${MELDS[lang][m.type] || m.type}</span>
    ${m.cards.map((c) => html`<${Card} card=${c} small=${true} lang=${lang} />`)}</span>`)}</span>`;
}

export function renderTable(ctx) {
  const { view, moves = [], seat = null, seats = [], act, t, lang: rawLang } = ctx;
  const lang = rawLang === "en" ? "en" : "nl";
  const lb = labels(L, lang, t, "klapper");
  const name = (s) => seatName(seats, s, lang);
  const n = view.num_players;
  const order = view.table && view.table.length === n ? view.table : Array.from({ length: n }, (_, i) => i);
  const placed = new Set();
  const movers = view.to_move || [];
  const myTurn = seat !== null && movers.includes(seat);
  const sides = view.score.length;
  const sideOf = (s) => (view.side_of ? view.side_of[s] : s);
  const sideMembers = (side) => (view.teams ? view.teams[side] : order.filter((s) => sideOf(s) === side));
  const sideName = (side) => (view.teams ? `${lb("team", { n: side + 1 })}: ${sideMembers(side).map(name).join(" & ")}`
    : sideMembers(side).map(name).join(" & "));
  const spelerWord = n === 3 ? lb("troefmaker") : lb("speler");
  const lastBid = (s) => {
    const mine = (view.bids || []).filter((b) => b.seat === s);
    return mine.length ? mine[mine.length - 1].bid : null;
  };
  const bidWord = (b) => (b === "play" ? lb("bid_play") : b === "pass" ? lb("bid_pass") : SUIT_NAMES[lang][b] || b);
  const bidding = view.phase === "bidding_1" || view.phase === "bidding_2";
  const winners = view.winner_seats || [];

  const plate = (s) => html`
    <span class="name">${name(s)}${s === seat ? html` (${lb("you")})` : null}</span>
    <span class="badges">
      ${s === view.dealer ? html`<span class="badge dealer">${lb("dealer")}</span>` : null}
      ${s === view.voorhand ? html`<span class="badge">${lb("voorhand")}</span>` : null}
      ${view.teams ? html`<span class=${`badge team-${sideOf(s)}`}>${lb("team", { n: sideOf(s) + 1 })}</span>` : null}
      ${s === view.speler ? html`<span class="badge speler">${spelerWord}</span>` : null}
      ${winners.includes(s) ? html`<span class="badge winner">★</span>` : null}
    </span>
    ${bidding && lastBid(s) ? html`<span class="badges"><span class="badge bid">${bidWord(lastBid(s))}</span></span>` : null}
    ${view.roem && view.roem[s] && view.roem[s].length ? html`<span class="badges"><span class="badge roem">${`${lb("roem")}: ${view.roem[s].map((m) => MELDS[lang][m.type] || m.type).join(", ")}`}</span></span>` : null}
    ${s !== seat && view.hand_sizes[s] > 0 ? html`<${Backs} count=${view.hand_sizes[s]} label=${lb("hand_of", { name: name(s), n: view.hand_sizes[s] })} />` : null}`;

  const info = html`<span><b>${lb("deal", { n: view.deal_no })}</b> · ${lb("target", { n: view.target })}</span>
    <span>${lb("trump")}: ${view.trump ? html`<${SuitIcon} suit=${view.trump} lang=${lang} /> ${SUIT_NAMES[lang][view.trump]}` : lb("trump_open")}</span>
    ${view.turned_card ? html`<span class="turned">${lb("turned")}: <${Card} card=${view.turned_card} small=${true} lang=${lang} /></span>` : null}
    ${view.speler !== null && view.speler !== undefined ? html`<span>${spelerWord}: ${name(view.speler)}</span>` : null}
    ${view.dead_hand_size ? html`<span>${lb("dead_hand", { n: view.dead_hand_size })}</span>` : null}
    ${view.extra_counts && view.extra_counts.some((k) => k > 0) ? html`<span>${lb("extras", { n: view.extra_counts.join(" / ") })}</span>` : null}`;

  // bidding and roem choices
  const btn = (m, text, cls = "") => {
    placed.add(moveKey(m));
    return html`<button type="button" class=${cls} data-move=${moveKey(m)} onClick=${() => act(m)}>${text}</button>`;
  };
  const bidMoves = moves.filter((m) => m.type === "bid");
  const trumpMoves = moves.filter((m) => m.type === "choose_trump");
  const passMoves = moves.filter((m) => m.type === "pass");
  const roemMoves = moves.filter((m) => m.type === "declare_roem");
  const proposed = view.turned_card ? view.turned_card.slice(-1) : null;
  const bidPanel = bidMoves.length || trumpMoves.length ? html`<div class="choice-panel" data-testid="choices">
    <div class="prompt">${bidMoves.length ? lb("bid1") : lb("bid2")}
      ${bidMoves.length && proposed ? html` <${SuitIcon} suit=${proposed} lang=${lang} /> ${SUIT_NAMES[lang][proposed]}` : null}</div>
    ${bidMoves.map((m) => btn(m, m.choice === "play" ? lb("play_bid") : m.choice === "pass" ? lb("pass") : m.choice))}
    ${trumpMoves.map((m) => btn(m, html`<${SuitIcon} suit=${m.suit} lang=${lang} /> ${SUIT_NAMES[lang][m.suit] || m.suit}`, "suit-button"))}
    ${passMoves.map((m) => btn(m, lb("pass")))}
  </div>` : null;
  const roemPanel = roemMoves.length ? html`<div class="choice-panel roem-panel" data-testid="choices">
    <div class="prompt">${lb("roem_prompt")}</div>
    ${roemMoves.map((m) => btn(m, html`${lb("declare", { melds: "" })} <${MeldCards} melds=${m.melds} lang=${lang} />`, "roem-button"))}
  </div>` : null;

  const hand = view.hand || null;
  const handCards = new Set(hand || []);
  const playMoves = moves.filter((m) => m.type === "play_card" && handCards.has(m.card));
  playMoves.forEach((m) => placed.add(moveKey(m)));
  const status = view.phase === "game_over"
    ? (winners.length ? lb(winners.length > 1 ? "winner" : "winner_one", { names: winners.map(name).join(" & ") }) : lb("game_over"))
    : myTurn ? lb("your_turn") : movers.length ? lb("turn_of", { name: movers.map(name).join(", ") }) : "";

  const scoreRows = Array.from({ length: sides }, (_, side) => side);
  const scores = html`<div class="kl-scores">
    <table class="scores" data-testid="scores">
      <thead><tr><th>${view.teams ? lb("side") : ""}</th><th class="num">${lb("points")}</th>
        <th class="num">${lb("roem_scored")}</th><th class="num">${lb("score")}</th></tr></thead>
      <tbody>${scoreRows.map((side) => {
        const attrs = view.teams ? { "data-team": side } : { "data-seat": sideMembers(side)[0] };
        const me = seat !== null && sideOf(seat) === side;
        const win = view.winner === side;
        return html`<tr ...${attrs} data-score=${view.score[side]} class=${`${me ? "me" : ""} ${win ? "winner" : ""}`}>
          <td>${view.teams ? html`<span class=${`badge team-${side}`}>${side + 1}</span> ` : null}${sideName(side)}
            ${side === view.playing_side ? html` <span class="badge speler">${lb("playing_side")}</span>` : null}</td>
          <td class="num">${view.card_points[side]}${view.last_trick_side === side ? html` <small>(+10 ${lb("last_trick")})</small>` : null}</td>
          <td class="num">${view.roem_scored[side]}</td><td class="num"><b>${view.score[side]}</b></td></tr>`;
      })}</tbody></table>
    ${view.results && view.results.length ? html`<table class="scores deal-sheet">
      <thead><tr><th>#</th>${scoreRows.map((side) => html`<th class="num">${view.teams ? lb("team", { n: side + 1 }) : name(sideMembers(side)[0])}</th>`)}</tr></thead>
      <tbody>${view.results.map((r) => html`<tr>
        <td>${r.deal_no}${r.trump ? html` <${SuitIcon} suit=${r.trump} lang=${lang} />` : null}</td>
        ${r.void ? html`<td colspan=${sides}>${lb("void")}</td>` : scoreRows.map((side) => html`<td class=${`num${side === r.playing_side ? (r.won ? " made" : " failed") : ""}`}>
          ${r.added ? r.added[side] : ""}</td>`)}</tr>`)}
        <tr class="total"><td>${lb("total")}</td>${scoreRows.map((side) => html`<td class="num"><b>${view.score[side]}</b></td>`)}</tr>
      </tbody></table>` : null}
  </div>`;

  const roemList = view.roem && view.roem.some((r) => r.length) ? html`<div class="panel-title">${lb("roem")}</div>
    <div class="kl-roem">${order.filter((s) => view.roem[s].length).map((s) => html`<div data-seat=${s}>${name(s)}:${" "}${view.roem[s].map((m) => meldText(m, lang)).join("; ")}</div>`)}</div>` : null;

  const log = view.tricks && view.tricks.length && view.phase !== "game_over" ? html`<div class="panel-title">${lb("tricks")}</div>
    <div class="trick-log">${view.tricks.map((tr) => html`<span class="past-trick">
      ${tr.cards.map((c) => html`<${Card} card=${c.card} small=${true} lang=${lang} />`)}
      <span class="won-by">${lb("won_by", { name: name(tr.winner) })} (${tr.points})</span></span>`)}</div>` : null;

  const omboeren = view.omboeren && view.omboeren.length && view.deal_no <= 1 && view.phase !== "game_over" ? html`<details class="kl-omboeren">
    <summary>${lb("omboeren")}</summary>
    ${order.map((s) => html`<div>${name(s)}: ${view.omboeren.filter((o) => o.seat === s).map((o) => html`<${Card} card=${o.card} small=${true} lang=${lang} />`)}</div>`)}
  </details>` : null;

  const rest = otherMoves({ moves, act, t }, placed);
  return html`<div class="card-game klapper" data-phase=${view.phase}>
    <div class="game-bar">
      <span class=${`cg-status${myTurn ? " mine" : ""}`} data-testid="status">${status}</span>
      <span>${(lb(`phase_${view.phase}`) === `phase_${view.phase}` ? view.phase : lb(`phase_${view.phase}`))}</span>
      ${seat === null ? html`<span>${lb("spectator")}</span>` : null}
    </div>
    <${TableLayout} order=${order} me=${seat} plate=${plate} turn=${view.turn} info=${info}
      trick=${view.trick ? view.trick.cards : []} trickLabel=${lb("trick")}
      lastTrick=${view.tricks && view.tricks.length ? view.tricks[view.tricks.length - 1].cards : null} lastLabel=${lb("prev_trick")} />
    ${bidPanel}
    ${hand && hand.length ? html`<div class="hand-area">
      ${playMoves.length ? html`<div class="prompt card-prompt">${lb("play")}</div>` : null}
      <${Hand} cards=${hand} moves=${playMoves} act=${act} lang=${lang} label=${lb("hand")}
        order=${HAND_ORDER} /></div>` : null}
    ${roemPanel}
    ${rest}
    ${scores}
    ${roemList}
    ${log}
    ${omboeren}
  </div>`;
}

/** A sentence for the event log; null for events this game does not know (the page describes those). */
export function describeEvent(event, t, lang, seats) {
  if (Array.isArray(lang)) [lang, seats] = [undefined, lang]; // also called as (event, t, seats)
  const l = eventLang(t, lang);
  const lb = labels(E, l, t, "klapper.event");
  const p = event.payload || {};
  const who = (s) => seatName(seats, s, l);
  const suit = (s) => SUIT_NAMES[l][s] || s;
  switch (event.type) {
    case "BidMade": return lb(p.bid === "play" ? "BidPlay" : p.bid === "pass" ? "BidPass" : "BidSuit",
      { name: who(p.seat), suit: suit(p.bid) });
    case "Passed": return lb("BidPass", { name: who(p.seat) });
    case "SecondRoundStarted": return lb("SecondRoundStarted");
    case "SpelerFixed": return lb("SpelerFixed", { name: who(p.speler), suit: suit(p.trump) });
    case "CardPlayed": return lb("CardPlayed", { name: who(p.seat), card: cardName(p.card, l) });
    case "RoemDeclared": return lb("RoemDeclared", { name: who(p.seat),
      melds: (p.melds || []).map((m) => MELDS[l][m.type] || m.type).join(", ") });
    case "TrickWon": return lb(p.last ? "LastTrickWon" : "TrickWon", { name: who(p.winner), n: p.trick_no, points: p.points });
    case "RoemScored": return p.holder === null || p.holder === undefined ? lb("NoRoem") : lb("RoemScored", { name: who(p.holder) });
    case "DealScored": return lb(p.won ? "DealWon" : "DealLost", { n: p.deal_no, name: who(p.speler),
      a: (p.added || []).join(" – "), s: (p.scores || []).join(" – ") });
    case "DealVoided": return lb("DealVoid");
    case "ExtrasTakenUp": return lb("ExtrasTakenUp");
    default: return null;
  }
}

const E = {
  nl: {
    BidPlay: "{name} speelt", BidPass: "{name} past", BidSuit: "{name} kiest {suit}",
    SecondRoundStarted: "Iedereen paste: tweede biedronde", SpelerFixed: "{name} is Speler, troef {suit}",
    CardPlayed: "{name} speelt {card}", RoemDeclared: "{name} meldt roem: {melds}",
    TrickWon: "{name} wint slag {n} ({points} punten)", LastTrickWon: "{name} wint de laatste slag ({points} punten)",
    NoRoem: "Geen roem gescoord", RoemScored: "Roem voor de zijde van {name}",
    DealWon: "Potje {n}: {name} haalt het ({a}); stand {s}", DealLost: "Potje {n}: {name} gaat nat ({a}); stand {s}",
    DealVoid: "Allen gepast: geen spel", ExtrasTakenUp: "De extra kaarten worden opgepakt",
  },
  en: {
    BidPlay: "{name} plays", BidPass: "{name} passes", BidSuit: "{name} names {suit}",
    SecondRoundStarted: "All passed: second bidding round", SpelerFixed: "{name} is Speler, trump {suit}",
    CardPlayed: "{name} plays {card}", RoemDeclared: "{name} declares roem: {melds}",
    TrickWon: "{name} wins trick {n} ({points} points)", LastTrickWon: "{name} wins the last trick ({points} points)",
    NoRoem: "No roem scored", RoemScored: "Roem for {name}'s side",
    DealWon: "Deal {n}: {name} makes it ({a}); score {s}", DealLost: "Deal {n}: {name} fails ({a}); score {s}",
    DealVoid: "All passed: void deal", ExtrasTakenUp: "The extra cards are taken up",
  },
};
