// Labels in Dutch (nl, the games' own language) and English (en). Game terms follow the rules specs
// (/work/shared/rules/*.md, their glossaries): slag, troef, roem, bieden, passen, pion, fiche, pot ...
// t(key, vars): the label for the chosen language, {name} placeholders filled from vars; a key with no
// label in either language comes back as itself (so a missing label is visible, never empty).
import { getState } from "./state.js";

export const LANGS = ["nl", "en"];

const nl = {
  "app.title": "Speltafel",
  "nav.lobby": "Lobby", "nav.status": "Status", "nav.profile": "Mijn profiel",
  "lang.toggle": "English", "lang.label": "Taal",
  "me.loggedIn": "Ingelogd als {name}", "me.logout": "Uitloggen", "bot.add": "Bot erbij", "bot.level": "Niveau van de bot", "bot.random": "willekeurig", "bot.rules": "regels", "bot.strong": "sterk", "bot.badge": "bot ({level})", "me.another": "Andere speler in dit tabblad",
  "me.anotherHint": "Speel in dit tabblad als een andere speler; je andere tabbladen blijven wie ze zijn",
  "register.title": "Aanmelden", "register.name": "Je naam", "register.submit": "Aanmelden",
  "register.hint": "Je krijgt een sleutel (token) die in deze browser bewaard wordt; uitloggen trekt hem in.",
  "lobby.open": "Open tafels", "lobby.running": "Lopende partijen", "lobby.finished": "Afgelopen partijen",
  "lobby.none": "Geen.", "lobby.refresh": "Vernieuwen", "lobby.watch": "Kijken", "lobby.open_table": "Naar de tafel",
  "lobby.seats": "Plaatsen", "lobby.type": "Spel", "lobby.status": "Stand",
  "create.title": "Nieuwe tafel", "create.game_type": "Spel", "create.variant": "Variant",
  "create.num_players": "Aantal spelers", "create.options": "Opties", "create.submit": "Tafel openen",
  "create.custom": "eigen instellingen", "create.null": "(standaard)",
  "create.sit": "Zelf aan tafel (plaats 0)",
  "clock.title": "Klok", "clock.kind": "Soort", "clock.none": "geen klok", "clock.fischer": "Fischer (basis + ophoging)",
  "clock.per_move": "per zet", "clock.correspondence": "correspondentie (dagen per zet)",
  "clock.base_seconds": "Basis (s)", "clock.increment_seconds": "Ophoging per zet (s)", "clock.seconds": "Seconden per zet",
  "clock.days_per_move": "Dagen per zet", "clock.policy": "Tijd op",
  "clock.policy.forfeit": "verloren (laatste plaats)", "clock.policy.auto_move": "automatische zet",
  "clock.deadline": "tijd op om {when}",
  "event.auto_move": "automatisch, tijd op", "event.time_expired": "{who}: tijd op ({policy})",
  "join.seat": "Plaats {seat} nemen", "join.client_seed": "Eigen seed (optioneel)",
  "join.client_seed_hint": "Wordt meegemengd in elke kansbeurt (eerlijk spel): A-Z a-z 0-9 _ . -, hoogstens 64.",
  "queue.title": "Wachtrij (matchmaking)", "queue.game_type": "Spel", "queue.counts": "Aantal spelers",
  "queue.join": "In de wachtrij", "queue.leave": "Uit de wachtrij", "queue.ticket": "Ticket: {status}",
  "queue.to_game": "Naar je partij",
  "invite.title": "Privé-tafel", "invite.create": "Privé-tafel openen", "invite.code": "Uitnodigingscode",
  "invite.input": "Code", "invite.join": "Aanschuiven", "invite.share": "Geef deze code aan je medespelers.",
  "table.title": "Tafel", "table.you": "jij", "table.seat": "Plaats {seat}", "table.spectator": "Je kijkt toe.",
  "table.to_move": "Aan de beurt: {who}", "table.your_turn": "Jij bent aan de beurt.",
  "table.waiting": "Wacht op spelers.", "table.waiting_for": "Wacht op: {what}",
  "table.moves": "Zetten", "table.no_moves": "Geen zetten voor jou nu.", "table.events": "Wat er gebeurde",
  "table.outcome": "Uitslag", "table.rank": "Plaats", "table.score": "Score", "table.replay": "Terugkijken",
  "table.resign": "Opgeven", "table.resign_confirm": "Echt opgeven? Je eindigt als laatste.",
  "table.busy": "Bezig…", "table.open_seat": "open", "table.join_here": "Hier gaan zitten",
  "table.status.open": "wacht op spelers", "table.status.running": "bezig", "table.status.finished": "afgelopen",
  "table.status.aborted": "afgebroken",
  "live.open": "live", "live.connecting": "verbinden…", "live.closed": "niet live",
  "problem.rule": "Regel {rule}",
  "replay.title": "Terugkijken", "replay.version": "Stand na gebeurtenis {version} van {total}",
  "replay.audit": "Controle (audit)", "replay.audit_ok": "Alles klopt", "replay.audit_bad": "Afwijkingen gevonden",
  "replay.commitment": "Seed-belofte (commitment)", "replay.reveal": "Onthulde seed", "replay.not_revealed": "nog geheim",
  "replay.export": "Exportbestand (voor speltafel verify)", "replay.back": "Terug naar de tafel",
  "replay.prev": "Vorige", "replay.next": "Volgende",
  "league.title": "Competitie", "league.standings": "Stand", "league.rounds": "Ronden", "league.round": "Ronde {n}",
  "league.table": "Tafel {n}", "league.export": "Exporteren", "league.place": "Pl.", "league.player": "Speler",
  "league.points": "Punten", "league.games": "Partijen", "league.wins": "Gewonnen", "league.buchholz": "Buchholz",
  "league.score": "Score", "league.provisional": "voorlopig", "league.byes": "Vrij", "league.decided_by": "Beslist door", "league.seed": "Plaatsing", "league.list": "Competities",
  "profile.title": "Speler", "profile.since": "Speelt sinds {date}", "profile.games": "Partijen per spel",
  "profile.ratings": "Rating-verloop", "profile.recent": "Recente partijen", "profile.no_ratings": "Nog geen rating.",
  "status.title": "Diensten", "status.intro": "Elke dienst onder één basis-URL; de hele API in één OpenAPI-document:",
  "status.service": "dienst", "status.prefix": "pad", "status.docs": "documentatie", "status.spec": "spec",
  "status.state": "status", "status.ready": "gereed", "status.down": "onbereikbaar",
  "common.loading": "Laden…", "common.error": "Fout", "common.close": "Sluiten", "common.yes": "ja", "common.no": "nee",
  "event.generic": "{who}: {type}", "event.move": "{who} speelt {move}", "event.system": "{type}",
  // move types (the games' move vocabulary, GET /v1/game-types)
  "move.play_card": "Kaart spelen", "move.pass": "Passen", "move.bid": "Bieden", "move.choose_trump": "Troef kiezen",
  "move.declare_roem": "Roem melden", "move.end_turn": "Beurt beëindigen", "move.choose_white_pawn": "Witte pion",
  "move.discard": "Afleggen", "move.choose_pawn_move": "Pion zetten", "move.decline_move": "Niet zetten",
  "move.choose_penalty_pawn": "Strafpion kiezen", "move.roll_start": "Startworp", "move.roll": "Dobbelen",
  "move.move": "Stap", "move.answer": "Antwoorden", "move.buy_city": "Stad kopen", "move.buy_end_city": "Eindstad kopen",
  "move.buy_flight": "Vlucht kopen", "move.skip_purchase": "Niets kopen", "move.fly_with_ticket": "Vliegen met ticket",
  "move.choose_chance": "Kanskaart kiezen",
  "game.hoppaa": "HopPaa", "game.klapper": "Klapper", "game.paardenkoppen": "Paardenkoppen",
  "game.roparun": "ROPARUN", "game.cityhopper": "CityHopper",
};

const en = {
  "app.title": "Speltafel",
  "nav.lobby": "Lobby", "nav.status": "Status", "nav.profile": "My profile",
  "lang.toggle": "Nederlands", "lang.label": "Language",
  "me.loggedIn": "Logged in as {name}", "me.logout": "Log out", "bot.add": "Add a bot", "bot.level": "Bot level", "bot.random": "random", "bot.rules": "rules", "bot.strong": "strong", "bot.badge": "bot ({level})", "me.another": "Another player in this tab",
  "me.anotherHint": "Play as a different player in this tab; your other tabs stay who they are",
  "register.title": "Register", "register.name": "Your name", "register.submit": "Register",
  "register.hint": "You get a token kept in this browser; logging out revokes it.",
  "lobby.open": "Open tables", "lobby.running": "Running games", "lobby.finished": "Finished games",
  "lobby.none": "None.", "lobby.refresh": "Refresh", "lobby.watch": "Watch", "lobby.open_table": "To the table",
  "lobby.seats": "Seats", "lobby.type": "Game", "lobby.status": "Status",
  "create.title": "New table", "create.game_type": "Game", "create.variant": "Variant",
  "create.num_players": "Players", "create.options": "Options", "create.submit": "Open the table",
  "create.custom": "custom settings", "create.null": "(default)",
  "create.sit": "Sit down myself (seat 0)",
  "clock.title": "Clock", "clock.kind": "Kind", "clock.none": "no clock", "clock.fischer": "Fischer (base + increment)",
  "clock.per_move": "per move", "clock.correspondence": "correspondence (days per move)",
  "clock.base_seconds": "Base (s)", "clock.increment_seconds": "Increment per move (s)", "clock.seconds": "Seconds per move",
  "clock.days_per_move": "Days per move", "clock.policy": "Out of time",
  "clock.policy.forfeit": "forfeit (ranked last)", "clock.policy.auto_move": "automatic move",
  "clock.deadline": "time runs out at {when}",
  "event.auto_move": "automatic, out of time", "event.time_expired": "{who} ran out of time ({policy})",
  "join.seat": "Take seat {seat}", "join.client_seed": "Your seed (optional)",
  "join.client_seed_hint": "Mixed into every chance event (fairness): A-Z a-z 0-9 _ . -, at most 64.",
  "queue.title": "Queue (matchmaking)", "queue.game_type": "Game", "queue.counts": "Players",
  "queue.join": "Join the queue", "queue.leave": "Leave the queue", "queue.ticket": "Ticket: {status}",
  "queue.to_game": "To your game",
  "invite.title": "Private table", "invite.create": "Open a private table", "invite.code": "Invite code",
  "invite.input": "Code", "invite.join": "Join", "invite.share": "Give this code to the other players.",
  "table.title": "Table", "table.you": "you", "table.seat": "Seat {seat}", "table.spectator": "You are watching.",
  "table.to_move": "To move: {who}", "table.your_turn": "Your turn.",
  "table.waiting": "Waiting for players.", "table.waiting_for": "Waiting for: {what}",
  "table.moves": "Moves", "table.no_moves": "No moves for you now.", "table.events": "What happened",
  "table.outcome": "Result", "table.rank": "Rank", "table.score": "Score", "table.replay": "Replay",
  "table.resign": "Resign", "table.resign_confirm": "Really resign? You will rank last.",
  "table.busy": "Working…", "table.open_seat": "open", "table.join_here": "Sit here",
  "table.status.open": "waiting for players", "table.status.running": "running", "table.status.finished": "finished",
  "table.status.aborted": "aborted",
  "live.open": "live", "live.connecting": "connecting…", "live.closed": "not live",
  "problem.rule": "Rule {rule}",
  "replay.title": "Replay", "replay.version": "State after event {version} of {total}",
  "replay.audit": "Audit", "replay.audit_ok": "Everything checks out", "replay.audit_bad": "Problems found",
  "replay.commitment": "Seed commitment", "replay.reveal": "Revealed seed", "replay.not_revealed": "still secret",
  "replay.export": "Export file (for speltafel verify)", "replay.back": "Back to the table",
  "replay.prev": "Previous", "replay.next": "Next",
  "league.title": "League", "league.standings": "Standings", "league.rounds": "Rounds", "league.round": "Round {n}",
  "league.table": "Table {n}", "league.export": "Export", "league.place": "#", "league.player": "Player",
  "league.points": "Points", "league.games": "Games", "league.wins": "Wins", "league.buchholz": "Buchholz",
  "league.score": "Score", "league.provisional": "provisional", "league.byes": "Bye", "league.decided_by": "Decided by", "league.seed": "Seed", "league.list": "Leagues",
  "profile.title": "Player", "profile.since": "Playing since {date}", "profile.games": "Games per game",
  "profile.ratings": "Rating history", "profile.recent": "Recent games", "profile.no_ratings": "No rating yet.",
  "status.title": "Services", "status.intro": "Every service under one base URL; the whole API in one OpenAPI document:",
  "status.service": "service", "status.prefix": "path prefix", "status.docs": "its docs", "status.spec": "its spec",
  "status.state": "status", "status.ready": "ready", "status.down": "down",
  "common.loading": "Loading…", "common.error": "Error", "common.close": "Close", "common.yes": "yes", "common.no": "no",
  "event.generic": "{who}: {type}", "event.move": "{who} plays {move}", "event.system": "{type}",
  "move.play_card": "Play card", "move.pass": "Pass", "move.bid": "Bid", "move.choose_trump": "Choose trump",
  "move.declare_roem": "Declare roem", "move.end_turn": "End turn", "move.choose_white_pawn": "White pawn",
  "move.discard": "Discard", "move.choose_pawn_move": "Move pawn", "move.decline_move": "Decline move",
  "move.choose_penalty_pawn": "Choose penalty pawn", "move.roll_start": "Starting roll", "move.roll": "Roll",
  "move.move": "Step", "move.answer": "Answer", "move.buy_city": "Buy city", "move.buy_end_city": "Buy end city",
  "move.buy_flight": "Buy flight", "move.skip_purchase": "Buy nothing", "move.fly_with_ticket": "Fly with ticket",
  "move.choose_chance": "Choose chance card",
  "game.hoppaa": "HopPaa", "game.klapper": "Klapper", "game.paardenkoppen": "Paardenkoppen",
  "game.roparun": "ROPARUN", "game.cityhopper": "CityHopper",
};

export const labels = { nl, en };

/** Add labels (e.g. a renderer's own): addLabels({nl: {...}, en: {...}}). */
export function addLabels(more) {
  for (const lang of LANGS) Object.assign(labels[lang], more[lang] || {});
}

export function translate(lang, key, vars) {
  const text = labels[lang]?.[key] ?? labels.en[key] ?? labels.nl[key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (all, name) => (vars[name] ?? all)) : text;
}

/** t in the current language. */
export function t(key, vars) {
  return translate(getState().lang, key, vars);
}
