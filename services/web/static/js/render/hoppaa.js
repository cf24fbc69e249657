// HopPaa's table (rules: shared/rules/hoppaa.md). Draws the reader's view only: the own hand, the other
// hands as backs with their counts, the trick by seat, bids, trump, the white pawn, each player's score
// track (0-35, green numbers, red dots) with the green and red pawns, and the score sheet. Legal moves
// become buttons: cards (play_card, discard), the white pawn choice, bids (with trump for the opener) and
// the scoring choices (choose_pawn_move, choose_penalty_pawn, decline_move); anything else goes to otherMoves.
import { html, moveKey } from "../lib.js";
import { otherMoves } from "./index.js";
import {
  Backs, Card, Hand, SUIT_NAMES, handOrder, SuitIcon, TableLayout, cardName, eventLang, labels, loadCss, seatName,
} from "./cards.js";

loadCss("../../css/hoppaa.css");

const L = {
  nl: {
    round: "Ronde {n}", dealer: "deler", opener: "leider", trump: "Troef", no_trump: "zonder troef",
    trump_open: "nog niet gekozen", bid: "bod {n}", tricks: "{n} slagen", no_bid: "geen bod",
    white_pawn: "witte pion", white_offered: "Witte pion aangeboden aan {name}", white_used: "{name} speelt met de witte pion",
    white_declined: "{name} heeft de witte pion geweigerd", your_turn: "Jij bent aan zet",
    turn_of: "{name} is aan zet", hand: "Jouw hand", hand_of: "Kaarten van {name}: {n}",
    use_white: "Witte pion gebruiken", decline_white: "Witte pion weigeren",
    choose_white: "Wil je met de witte pion spelen (dubbele punten)?",
    choose_bid: "Bied je aantal slagen", choose_bid_trump: "Bied je aantal slagen en kies troef",
    forbidden: "Niet toegestaan: {n} (som 9)", discard: "Leg één kaart blind af", play: "Speel een kaart",
    made: "HopPaa! Kies een pion en het aantal stappen vooruit",
    missed: "Bod gemist: kies de pion die {n} stap(pen) terug gaat", decline_move: "Niet bewegen",
    green: "groen", red: "rood", pawn_green: "Groene pion", pawn_red: "Rode pion", steps: "+{n}", back: "−{n}",
    scores: "Scorebord", player: "Speler", pawns: "Pionnen", total: "Totaal", team: "Team {n}",
    tracks: "Scorespoor", start: "start", finish: "HopPaa", my_discard: "Jouw afgelegde kaart",
    last_round: "Uitslag van de ronde", made_word: "gemaakt", missed_word: "gemist", nothing: "geen zet",
    knocked: "{pawn} eraf gegooid", tricks_round: "Slagen deze ronde", won_by: "→ {name}",
    winner: "{name} wint!", winners: "{names} winnen!", game_over: "Spel afgelopen", spectator: "Je kijkt mee",
    trick: "Huidige slag", last_trick: "Vorige slag", phase_white_pawn: "witte pion", phase_bidding: "bieden", phase_play: "spelen",
    phase_scoring: "tellen", phase_deal: "delen", phase_game_over: "afgelopen", you: "jij", scoring_of: "{name} zet een pion",
    reserve: "reserve: {n}",
  },
  en: {
    round: "Round {n}", dealer: "dealer", opener: "opener", trump: "Trump", no_trump: "no trump",
    trump_open: "not chosen yet", bid: "bid {n}", tricks: "{n} tricks", no_bid: "no bid",
    white_pawn: "white pawn", white_offered: "White pawn offered to {name}", white_used: "{name} plays with the white pawn",
    white_declined: "{name} declined the white pawn", your_turn: "Your turn",
    turn_of: "{name} to move", hand: "Your hand", hand_of: "{name}'s cards: {n}",
    use_white: "Use the white pawn", decline_white: "Decline the white pawn",
    choose_white: "Play with the white pawn (double points)?",
    choose_bid: "Bid your number of tricks", choose_bid_trump: "Bid your tricks and choose trump",
    forbidden: "Not allowed: {n} (sum 9)", discard: "Discard one card face down", play: "Play a card",
    made: "HopPaa! Choose a pawn and how many steps forward",
    missed: "Bid missed: choose the pawn that goes {n} step(s) back", decline_move: "Do not move",
    green: "green", red: "red", pawn_green: "Green pawn", pawn_red: "Red pawn", steps: "+{n}", back: "−{n}",
    scores: "Score sheet", player: "Player", pawns: "Pawns", total: "Total", team: "Team {n}",
    tracks: "Score track", start: "start", finish: "HopPaa", my_discard: "Your discard",
    last_round: "Round results", made_word: "made", missed_word: "missed", nothing: "no move",
    knocked: "{pawn} knocked off", tricks_round: "Tricks this round", won_by: "→ {name}",
    winner: "{name} wins!", winners: "{names} win!", game_over: "Game over", spectator: "You are watching",
    trick: "Current trick", last_trick: "Previous trick", phase_white_pawn: "white pawn", phase_bidding: "bidding", phase_play: "play",
    phase_scoring: "scoring", phase_deal: "dealing", phase_game_over: "finished", you: "you", scoring_of: "{name} moves a pawn",
    reserve: "reserve: {n}",
  },
};

const HAND_ORDER = handOrder(["10", "9", "8", "7", "6", "5", "4", "3", "2", "A"]); // HopPaa: the ace is lowest
const GREEN_SQUARES = new Set([1, 7, 14, 21, 25]);
const RED_DOTS = new Set([30, 32]);

function Track({ seat, pawns, name, me, white, dealer, lb }) {
  // 36 squares (0 = start … 35 = HopPaa) as a 6×6 snake, bottom-left to top-left.
  const cells = [];
  for (let row = 5; row >= 0; row--) {
    for (let col = 0; col < 6; col++) {
      const sq = row % 2 === 0 ? row * 6 + col : row * 6 + (5 - col);
      cells.push(sq);
    }
  }
  const here = (sq) => Object.entries(pawns || {}).filter(([, pos]) => pos === sq).map(([colour]) => colour);
  return html`<div class=${`hp-track${me ? " me" : ""}`} data-track=${seat}>
    <div class="hp-track-name">${name}${white ? html` <span class="white-pawn" title=${lb("white_pawn")}></span>` : null}
      ${dealer ? html` <span class="black-pawn" title=${lb("dealer")}></span>` : null}</div>
    <div class="hp-grid">
      ${cells.map((sq) => html`<div key=${sq} data-square=${sq} class=${`sq${GREEN_SQUARES.has(sq) ? " green" : ""}${
        RED_DOTS.has(sq) ? " reddot" : ""}${sq === 0 ? " start" : ""}${sq === 35 ? " finish" : ""}`}>
        <span class="num">${sq === 0 ? lb("start") : sq === 35 ? "35" : sq}</span>
        ${here(sq).map((colour) => html`<span class=${`pawn ${colour}`} data-pawn=${colour} data-seat=${seat}
            data-pos=${sq} title=${`${name}: ${lb(`pawn_${colour}`)} ${sq}`}></span>`)}
      </div>`)}
    </div>
  </div>`;
}

function bidsPanel(moves, act, lb, lang, placed, forbidden) {
  const bids = moves.filter((m) => m.type === "bid");
  if (!bids.length) return null;
  const withTrump = bids.some((m) => m.trump !== undefined && m.trump !== null);
  const button = (m) => {
    placed.add(moveKey(m));
    return html`<button type="button" class="bid-button" data-move=${moveKey(m)} onClick=${() => act(m)}>${m.n}</button>`;
  };
  const note = forbidden !== null && forbidden !== undefined ? html`<div class="prompt note">${lb("forbidden", { n: forbidden })}</div>` : null;
  if (!withTrump) {
    return html`<div class="choice-panel" data-testid="choices"><div class="prompt">${lb("choose_bid")}</div>
      <div class="group">${bids.map(button)}</div>${note}</div>`;
  }
  const trumps = [...new Set(bids.map((m) => m.trump))];
  return html`<div class="choice-panel bid-grid" data-testid="choices"><div class="prompt">${lb("choose_bid_trump")}</div>
    ${trumps.map((tr) => html`<div class="group"><span class="group-label"><${SuitIcon} suit=${tr} lang=${lang} />
      <span class="suit-word">${SUIT_NAMES[lang][tr] || tr}</span></span>${bids.filter((m) => m.trump === tr).map(button)}</div>`)}
    ${note}</div>`;
}

function scoringPanel(view, moves, act, lb, placed) {
  const forward = moves.filter((m) => m.type === "choose_pawn_move");
  const penalty = moves.filter((m) => m.type === "choose_penalty_pawn");
  const decline = moves.filter((m) => m.type === "decline_move");
  if (!forward.length && !penalty.length && !decline.length) return null;
  const btn = (m, text) => {
    placed.add(moveKey(m));
    return html`<button type="button" data-move=${moveKey(m)} onClick=${() => act(m)}>${text}</button>`;
  };
  const pawns = [...new Set([...forward, ...penalty].map((m) => m.pawn))];
  const d = view.scoring ? view.scoring.penalty : 0;
  return html`<div class="choice-panel" data-testid="choices">
    <div class="prompt">${forward.length || decline.length ? lb("made") : lb("missed", { n: d })}</div>
    ${pawns.map((pawn) => html`<div class="group"><span class="group-label"><span class=${`pawn inline ${pawn}`}></span>
      ${lb(`pawn_${pawn}`)}</span>
      ${forward.filter((m) => m.pawn === pawn).map((m) => btn(m, lb("steps", { n: m.steps })))}
      ${penalty.filter((m) => m.pawn === pawn).map((m) => btn(m, lb("back", { n: d })))}</div>`)}
    ${decline.map((m) => btn(m, lb("decline_move")))}
  </div>`;
}

function statusLine(view, seat, seats, lb, lang) {
  const name = (s) => seatName(seats, s, lang);
  if (view.phase === "game_over") {
    const w = view.winner_seats || (view.winner !== null ? [view.winner] : []);
    return w.length > 1 ? lb("winners", { names: w.map(name).join(" & ") }) : w.length ? lb("winner", { name: name(w[0]) }) : lb("game_over");
  }
  const movers = view.to_move || [];
  if (seat !== null && seat !== undefined && movers.includes(seat)) return lb("your_turn");
  if (view.phase === "scoring" && view.scoring) return lb("scoring_of", { name: name(view.scoring.seat) });
  if (movers.length) return lb("turn_of", { name: movers.map(name).join(", ") });
  return "";
}

export function renderTable(ctx) {
  const { view, moves = [], seat = null, seats = [], act, t, lang: rawLang } = ctx;
  const lang = rawLang === "en" ? "en" : "nl";
  const lb = labels(L, lang, t, "hoppaa");
  const name = (s) => seatName(seats, s, lang);
  const n = view.num_players;
  const order = Array.from({ length: n }, (_, i) => i);
  const placed = new Set();
  const movers = view.to_move || [];
  const turn = view.phase === "scoring" && view.scoring ? view.scoring.seat : view.turn;
  const teamOf = (s) => (view.teams ? view.teams.findIndex((tm) => tm.includes(s)) : -1);
  const white = view.white_pawn || {};
  const whiteHolder = white.used === true ? white.offered_to : null;
  const myTurn = seat !== null && movers.includes(seat);

  const plate = (s) => html`
    <span class="name">${name(s)}${s === seat ? html` (${lb("you")})` : null}</span>
    <span class="badges">
      ${s === view.dealer ? html`<span class="badge dealer">${lb("dealer")}</span>` : null}
      ${s === view.opener ? html`<span class="badge">${lb("opener")}</span>` : null}
      ${teamOf(s) >= 0 ? html`<span class=${`badge team-${teamOf(s)}`}>${lb("team", { n: teamOf(s) + 1 })}</span>` : null}
      ${s === whiteHolder ? html`<span class="badge white">${lb("white_pawn")}</span>` : null}
      ${(view.winner_seats || []).includes(s) ? html`<span class="badge winner">★</span>` : null}
    </span>
    <span class="badges">
      <span class="badge bid" data-bid=${view.bids[s] ?? ""}>${view.bids[s] === null || view.bids[s] === undefined ? lb("no_bid") : lb("bid", { n: view.bids[s] })}</span>
      <span class="badge tricks" data-tricks=${view.tricks_won[s]}>${lb("tricks", { n: view.tricks_won[s] })}</span>
    </span>
    ${s !== seat && view.hand_sizes[s] > 0 ? html`<${Backs} count=${view.hand_sizes[s]} label=${lb("hand_of", { name: name(s), n: view.hand_sizes[s] })} />` : null}`;

  const trumpInfo = html`<div><b>${lb("round", { n: view.round })}</b></div>
    <div>${lb("trump")}: ${view.trump ? html`<${SuitIcon} suit=${view.trump} lang=${lang} /> ${SUIT_NAMES[lang][view.trump] || view.trump}` : lb("trump_open")}</div>
    ${white.offered_to !== null && white.offered_to !== undefined ? html`<div class="white-info">
      <span class="white-pawn"></span> ${white.used === true ? lb("white_used", { name: name(white.offered_to) })
        : white.used === false ? lb("white_declined", { name: name(white.offered_to) }) : lb("white_offered", { name: name(white.offered_to) })}</div>` : null}
    ${view.reserve_size ? html`<div>${lb("reserve", { n: view.reserve_size })}</div>` : null}`;

  const whiteMoves = moves.filter((m) => m.type === "choose_white_pawn");
  const whitePanel = whiteMoves.length ? html`<div class="choice-panel" data-testid="choices">
    <div class="prompt">${lb("choose_white")}</div>
    ${whiteMoves.map((m) => {
      placed.add(moveKey(m));
      return html`<button type="button" data-move=${moveKey(m)} onClick=${() => act(m)}>${m.use ? lb("use_white") : lb("decline_white")}</button>`;
    })}</div>` : null;

  const cardPrompt = moves.some((m) => m.type === "discard") ? lb("discard") : moves.some((m) => m.type === "play_card") ? lb("play") : null;
  const hand = view.hand || null;
  const tracks = html`<div class="hp-tracks" aria-label=${lb("tracks")}>
    ${order.map((s) => html`<${Track} seat=${s} pawns=${view.pawns[s]} name=${name(s)} me=${s === seat}
      white=${s === whiteHolder} dealer=${s === view.dealer} lb=${lb} />`)}</div>`;

  const scores = html`<table class="scores" data-testid="scores">
    <thead><tr><th>${lb("player")}</th><th>${lb("pawns")}</th><th class="num">${lb("bid", { n: "" }).trim()}</th>
      <th class="num">${lb("tricks", { n: "" }).trim()}</th><th class="num">${lb("total")}</th></tr></thead>
    <tbody>${order.map((s) => {
      const p = view.pawns[s] || {};
      const total = Object.values(p).reduce((a, b) => a + b, 0);
      return html`<tr data-seat=${s} data-score=${total} class=${`${s === seat ? "me" : ""} ${(view.winner_seats || []).includes(s) ? "winner" : ""}`}>
        <td>${name(s)}${teamOf(s) >= 0 ? html` <span class=${`badge team-${teamOf(s)}`}>${teamOf(s) + 1}</span>` : null}</td>
        <td>${Object.entries(p).map(([c, pos]) => html`<span class="pawn-pos"><span class=${`pawn inline ${c}`}></span>${pos}</span>`)}</td>
        <td class="num">${view.bids[s] ?? "–"}</td><td class="num">${view.tricks_won[s]}</td><td class="num">${total}</td></tr>`;
    })}
    ${view.teams ? view.teams.map((tm, i) => {
      const total = tm.reduce((a, s) => a + Object.values(view.pawns[s] || {}).reduce((x, y) => x + y, 0), 0);
      return html`<tr data-team=${i} data-score=${total} class="team-row"><td colspan="4">${lb("team", { n: i + 1 })}: ${tm.map(name).join(" & ")}</td><td class="num">${total}</td></tr>`;
    }) : null}
    </tbody></table>`;

  const results = view.results && view.results.length ? html`<div class="panel-title">${lb("last_round")}</div>
    <ul class="hp-results">${view.results.map((r) => html`<li data-seat=${r.seat}>${name(r.seat)}: ${`${lb("bid", { n: r.bid })}, ${lb("tricks", { n: r.tricks })}`} — ${r.result === "made" ? lb("made_word") : lb("missed_word")}${r.pawn
        ? html`, <span class=${`pawn inline ${r.pawn}`}></span> ${r.from} → ${r.to}${r.knocked_off ? html` (${lb("knocked", { pawn: lb(r.knocked_off) })})` : null}`
        : html` (${lb("nothing")})`}</li>`)}</ul>` : null;

  const log = view.trick_log && view.trick_log.length && view.phase !== "game_over" ? html`<div class="panel-title">${lb("tricks_round")}</div>
    <div class="trick-log">${view.trick_log.map((tr) => html`<span class="past-trick">
      ${tr.cards.map((c) => html`<${Card} card=${c.card} small=${true} lang=${lang} />`)}
      <span class="won-by">${lb("won_by", { name: name(tr.winner) })}</span></span>`)}</div>` : null;

  const status = statusLine(view, seat, seats, lb, lang);
  const bidPanel = bidsPanel(moves, act, lb, lang, placed, view.forbidden_bid);
  const scorePanel = scoringPanel(view, moves, act, lb, placed);
  const rest = otherMoves({ moves, act, t }, new Set([...placed, ...handMoveKeys(hand, moves)]));
  return html`<div class="card-game hoppaa" data-phase=${view.phase}>
    <div class="game-bar">
      <span class=${`cg-status${myTurn ? " mine" : ""}`} data-testid="status">${status}</span>
      <span>${(lb(`phase_${view.phase}`) === `phase_${view.phase}` ? view.phase : lb(`phase_${view.phase}`))}</span>
      ${seat === null ? html`<span>${lb("spectator")}</span>` : null}
    </div>
    <${TableLayout} order=${order} me=${seat} plate=${plate} turn=${turn} info=${trumpInfo}
      trick=${view.trick ? view.trick.cards : []} trickLabel=${lb("trick")}
      lastTrick=${view.trick_log && view.trick_log.length ? view.trick_log[view.trick_log.length - 1].cards : null} lastLabel=${lb("last_trick")} />
    ${whitePanel}
    ${bidPanel}
    ${scorePanel}
    ${hand && (hand.length || view.my_discard) ? html`<div class="hand-area">
      ${cardPrompt ? html`<div class="prompt card-prompt">${cardPrompt}</div>` : null}
      ${hand.length ? html`<${Hand} cards=${hand} moves=${moves.filter((m) => m.type === "play_card" || m.type === "discard")}
        act=${act} lang=${lang} label=${lb("hand")} order=${HAND_ORDER} />` : null}
      ${view.my_discard ? html`<div class="my-discard">${lb("my_discard")}: <${Card} card=${view.my_discard} small=${true} lang=${lang} /></div>` : null}
    </div>` : null}
    ${rest}
    ${tracks}
    ${scores}
    ${results}
    ${log}
  </div>`;
}

function handMoveKeys(hand, moves) {
  if (!hand) return [];
  const cards = new Set(hand);
  return moves.filter((m) => (m.type === "play_card" || m.type === "discard") && cards.has(m.card)).map(moveKey);
}

/** A sentence for the event log; null for events this game does not know (the page describes those). */
export function describeEvent(event, t, lang, seats) {
  if (Array.isArray(lang)) [lang, seats] = [undefined, lang]; // also called as (event, t, seats)
  const l = eventLang(t, lang);
  const lb = labels(E, l, t, "hoppaa.event");
  const p = event.payload || {};
  const who = (s) => seatName(seats, s, l);
  const card = (c) => (c === "hidden" || !c ? lb("a_card") : cardName(c, l));
  switch (event.type) {
    case "RoundStarted": return lb("RoundStarted", { n: p.round, dealer: who(p.dealer), opener: who(p.opener) });
    case "WhitePawnChosen": return lb(p.use ? "WhitePawnUsed" : "WhitePawnDeclined", { name: who(p.seat) });
    case "BidMade": return lb(p.trump ? "BidMadeTrump" : "BidMade", { name: who(p.seat), n: p.n,
      trump: p.trump ? SUIT_NAMES[l][p.trump] || p.trump : "" });
    case "CardDiscarded": return lb("CardDiscarded", { name: who(p.seat), card: card(p.card) });
    case "CardPlayed": return lb("CardPlayed", { name: who(p.seat), card: card(p.card) });
    case "TrickWon": return lb("TrickWon", { name: who(p.winner), n: p.number });
    case "PawnMoved":
    case "MoveAutoResolved":
      if (!p.pawn) return lb("NoMove", { name: who(p.seat), bid: p.bid, tricks: p.tricks });
      return lb(p.direction === "back" ? "PawnBack" : "PawnForward", { name: who(p.seat), pawn: lb(p.pawn),
        from: p.from, to: p.to, bid: p.bid, tricks: p.tricks });
    case "GameEnded": return lb("GameEnded", { names: (p.seats || []).map(who).join(" & ") });
    default: return null;
  }
}

const E = {
  nl: {
    RoundStarted: "Ronde {n}: {dealer} deelt, {opener} is leider", WhitePawnUsed: "{name} speelt met de witte pion",
    WhitePawnDeclined: "{name} weigert de witte pion", BidMade: "{name} biedt {n}",
    BidMadeTrump: "{name} biedt {n}, troef: {trump}", CardDiscarded: "{name} legt {card} af",
    CardPlayed: "{name} speelt {card}", TrickWon: "{name} wint slag {n}", a_card: "een kaart",
    PawnForward: "{name} ({tricks}/{bid}): {pawn} van {from} naar {to}",
    PawnBack: "{name} ({tricks}/{bid}): {pawn} terug van {from} naar {to}",
    NoMove: "{name} ({tricks}/{bid}): geen pion beweegt", GameEnded: "{names} wint het spel", green: "groen", red: "rood",
  },
  en: {
    RoundStarted: "Round {n}: {dealer} deals, {opener} opens", WhitePawnUsed: "{name} plays with the white pawn",
    WhitePawnDeclined: "{name} declines the white pawn", BidMade: "{name} bids {n}",
    BidMadeTrump: "{name} bids {n}, trump: {trump}", CardDiscarded: "{name} discards {card}",
    CardPlayed: "{name} plays {card}", TrickWon: "{name} wins trick {n}", a_card: "a card",
    PawnForward: "{name} ({tricks}/{bid}): {pawn} pawn from {from} to {to}",
    PawnBack: "{name} ({tricks}/{bid}): {pawn} pawn back from {from} to {to}",
    NoMove: "{name} ({tricks}/{bid}): no pawn moves", GameEnded: "{names} wins the game", green: "green", red: "red",
  },
};
