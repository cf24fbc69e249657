"""ROPARUN the Game (spec rules/roparun.md): the Engine subclass the host drives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.games.engines.base import (
    CHANCE_EVENT,
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    MoveDoc,
    Outcome,
    Rng,
)
from services.games.engines.roparun import length as game_length
from services.games.engines.roparun.actions import action_json, parse_action
from services.games.engines.roparun.board import (
    C1,
    C2,
    CAR,
    OFF,
    PAWNS,
    RUNNER,
)
from services.games.engines.roparun.cards import DRAW_VALUE, deck_for, rank_of
from services.games.engines.roparun.determinize import determinize as determinize_view
from services.games.engines.roparun.invariants import check
from services.games.engines.roparun.options import (
    DEFAULTS,
    board_of,
    normalize,
    schema,
)
from services.games.engines.roparun.rules import (
    ZERO,
    Play,
    card_plays,
    order_defect,
    resolve,
    team_finished,
)
from services.games.engines.roparun.state import (
    BETWEEN_DEALS,
    DEAL_DONE,
    DEALER_DRAW,
    FINISHED,
    SHUFFLE,
    TURN,
    RoparunState,
)


def _setup_team() -> list[int]:
    """§2 setup: c1 on slot 1, r on slot 2, c2 on slot 3, the car in the off-route box."""
    team = [OFF] * 4
    team[C1], team[RUNNER], team[C2], team[CAR] = 1, 2, 3, OFF
    return team


class RoparunEngine(Engine[RoparunState]):
    game_type = "roparun"
    title = "ROPARUN the Game"
    player_counts = (2, 3, 4)
    spec = "rules/roparun.md"
    card_notation: ClassVar[dict[str, Any]] = {
        "family": "french",
        "description": (
            "rank then suit letter, no separator: ranks A 2 3 4 5 6 7 8 9 10 J Q K (no spades "
            "with 3 players); suits S (spades), H (hearts), D (diamonds), C (clubs)"
        ),
        "pattern": "^(A|[2-9]|10|J|Q|K)[SHDC]$",
        "examples": ["AS", "10H", "KD"],
    }
    everything_public_after_end = False  # RR-13 / R29: face-down discards are never revealed; stock order nobody, also after the end

    # --- configuration -------------------------------------------------------------------
    def options_schema(self) -> dict[str, Any]:
        return schema()

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        return normalize(num_players, options)

    def variants(self) -> list[GameConfig]:
        out: list[GameConfig] = []
        for n in self.player_counts:
            out.append(GameConfig(n, self.normalize_options(n, {})))
            out.append(
                GameConfig(
                    n,
                    self.normalize_options(
                        n,
                        {
                            "obligation": "while_possible",
                            "dealer_rotation": "per_deal",
                            "seven_max_pawns": 2,
                            "first_dealer": n - 1,
                            "section_length": 8,
                            "sections": n + 1,
                        },
                    ),
                )
            )
        return out

    def moves(self) -> list[MoveDoc]:
        pawn = {"type": "string", "enum": list(PAWNS)}
        entry = {
            "type": "object",
            "properties": {"pawn": pawn, "slot": {"type": "integer", "minimum": 0, "maximum": 3}},
            "required": ["pawn", "slot"],
            "additionalProperties": False,
        }
        part = {
            "type": "object",
            "properties": {"pawn": pawn, "steps": {"type": "integer", "minimum": 1, "maximum": 7}},
            "required": ["pawn", "steps"],
            "additionalProperties": False,
        }
        action = {
            "oneOf": [
                {
                    "type": "object",
                    "description": "2, 3, 5, 6, 8, 9, 10, Q forward; 4 backward (RR-18)",
                    "properties": {"move": pawn},
                    "required": ["move"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "description": "A: 1 or 11 steps forward",
                    "properties": {"move": pawn, "steps": {"enum": [1, 11]}},
                    "required": ["move", "steps"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "description": "K or A: enter off-route pawns (RR-25), pawns in any order",
                    "properties": {"enter": {"type": "array", "items": entry, "minItems": 1, "maxItems": 4}},
                    "required": ["enter"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "description": "7: parts in execution order, distinct pawns, total 7 (RR-21)",
                    "properties": {"split": {"type": "array", "items": part, "minItems": 1, "maxItems": 4}},
                    "required": ["split"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "description": "J: swap with a same-type opponent pawn on the route (RR-30)",
                    "properties": {
                        "swap": {
                            "type": "object",
                            "properties": {
                                "pawn": pawn,
                                "target_seat": {"type": "integer", "minimum": 0, "maximum": 3},
                                "target_pawn": pawn,
                            },
                            "required": ["pawn", "target_seat", "target_pawn"],
                            "additionalProperties": False,
                        }
                    },
                    "required": ["swap"],
                    "additionalProperties": False,
                },
            ]
        }
        play_rules = tuple(f"RR-{i}" for i in range(10, 37))
        return [
            MoveDoc(
                "play_card",
                "Play one card from your hand with the use given in action (RR-10, card effects table).",
                {
                    "type": "object",
                    "properties": {"card": {"type": "string", "examples": ["10H", "AS"]}, "action": action},
                    "required": ["card", "action"],
                    "additionalProperties": False,
                },
                {
                    "type": "play_card",
                    "card": "7H",
                    "action": {"split": [{"pawn": "c2", "steps": 4}, {"pawn": "r", "steps": 3}]},
                },
                play_rules,
            ),
            MoveDoc(
                "end_turn",
                "End your turn after at least one play; the rest of your hand is discarded face down "
                "(RR-11, RR-13). Not available with obligation while_possible.",
                {"type": "object", "properties": {}, "additionalProperties": False},
                {"type": "end_turn"},
                ("RR-11", "RR-12", "RR-13"),
            ),
        ]

    # --- the game ------------------------------------------------------------------------
    def initial_state(self, config: GameConfig) -> RoparunState:
        options = {**DEFAULTS, **config.options}
        n = config.num_players
        board = board_of(n, options)
        deck = deck_for(n)
        first = options["first_dealer"]
        return RoparunState(
            config=config,
            board=board,
            deck=deck,
            stage=DEALER_DRAW if first is None else SHUFFLE,
            pawns=[_setup_team() for _ in range(n)],
            hands=[[] for _ in range(n)],
            stock=list(deck),
            dealer=first,
            draw_contenders=list(range(n)) if first is None else [],
            home_place=[[OFF] * 4 for _ in range(n)],
        )

    def opening_events(self, config: GameConfig) -> list[Event]:
        return [{"type": "GameConfigured", "num_players": config.num_players, "options": dict(config.options)}]

    def chance_request(self, state: RoparunState) -> ChanceRequest | None:
        if state.stage == DEALER_DRAW:
            return ChanceRequest("dealer_draw", "shuffle", len(state.deck))
        if state.stage == SHUFFLE:
            return ChanceRequest("deal", "shuffle", len(state.deck))
        return None

    def to_move(self, state: RoparunState) -> list[int]:
        if state.stage == TURN and state.current is not None:
            return [state.current]
        return []

    def _seven_max(self, state: RoparunState) -> int:
        return int(state.config.options.get("seven_max_pawns", DEFAULTS["seven_max_pawns"]))

    def _while_possible(self, state: RoparunState) -> bool:
        return bool(state.config.options.get("obligation", DEFAULTS["obligation"]) == "while_possible")

    def _per_deal(self, state: RoparunState) -> bool:
        return bool(state.config.options.get("dealer_rotation", DEFAULTS["dealer_rotation"]) == "per_deal")

    def _plays_by_rank(self, state: RoparunState, seat: int) -> dict[str, list[Play]]:
        out: dict[str, list[Play]] = {}
        for card in state.hands[seat]:
            rank = rank_of(card)
            if rank is not None and rank not in out:
                out[rank] = list(card_plays(state.board, state.pawns, seat, rank, self._seven_max(state)))
        return out

    def has_legal_play(self, state: RoparunState, seat: int) -> bool:
        """RR-12: does any card in hand have a legal use?"""
        ranks = {rank_of(card) for card in state.hands[seat]}
        for rank in sorted((r for r in ranks if r is not None), key=lambda r: (r == "7", r)):  # 7 last
            for _ in card_plays(state.board, state.pawns, seat, rank, self._seven_max(state)):
                return True
        return False

    def legal_moves(self, state: RoparunState, seat: int) -> list[Move]:
        if seat not in self.to_move(state):
            return []
        by_rank = self._plays_by_rank(state, seat)
        moves: list[Move] = []
        for card in state.hands[seat]:
            for play in by_rank.get(rank_of(card) or "", []):
                moves.append({"type": "play_card", "card": card, "action": action_json(play)})
        if state.plays_this_turn >= 1 and not self._while_possible(state):
            moves.append({"type": "end_turn"})
        return moves

    def decide(self, state: RoparunState, seat: int, move: Move) -> list[Event]:
        if state.stage == FINISHED:
            raise IllegalMove("RR-38", "game_over", "the game is over")
        if state.stage != TURN:
            raise IllegalMove("RR-9", "no_turn", "no turn is in progress (the cards are being dealt)")
        if seat != state.current:
            raise IllegalMove("RR-9", "not_your_turn", "it is not your turn")
        if not isinstance(move, dict):
            raise IllegalMove("RR-10", "unknown_move", "a move is an object with a type")
        kind = move.get("type")
        if kind == "end_turn":
            if set(move) != {"type"}:
                raise IllegalMove("RR-11", "bad_end_turn", "end_turn takes no parameters")
            if self._while_possible(state):
                raise IllegalMove(
                    "RR-11", "must_keep_playing", "you must keep playing while you have a legal play"
                )
            if state.plays_this_turn == 0:
                raise IllegalMove("RR-11", "must_play", "you have a legal play: play a card first")
            first: Event = {
                "type": "TurnEnded",
                "seat": seat,
                "reason": "voluntary",
                "discarded_count": len(state.hands[seat]),
            }
            return self._with_auto(state, [first])
        if kind != "play_card":
            raise IllegalMove("RR-10", "unknown_move", f"unknown move {kind!r}: use play_card or end_turn")
        if set(move) != {"type", "card", "action"}:
            raise IllegalMove("RR-10", "bad_move", "play_card needs exactly the fields card and action")
        card = move["card"]
        rank = rank_of(card) if isinstance(card, str) else None
        if rank is None or card not in state.deck:
            raise IllegalMove("RR-10", "unknown_card", f"{card!r} is not a card of this game")
        if card not in state.hands[seat]:
            raise IllegalMove("RR-10", "card_not_in_hand", f"{card} is not in your hand")
        play = parse_action(rank, move["action"], self._seven_max(state))
        result = resolve(state.board, state.pawns, seat, play)
        played: Event = {
            "type": "CardPlayed",
            "seat": seat,
            "card": card,
            "action": action_json(play),
            "captures": [
                {"seat": c.seat, "pawn": PAWNS[c.pawn], "square": c.square} for c in result.captures
            ],
            "order_before": list(result.defect_before),
            "order_after": list(result.defect_after),
        }
        if team_finished(state.board.n, result.pawns[seat]):
            return [played, {"type": "GameWon", "seat": seat}]
        return self._with_auto(state, [played])

    # --- automatic steps -------------------------------------------------------------------
    def _with_auto(self, state: RoparunState, events: list[Event]) -> list[Event]:
        sim = state.clone()
        for event in events:
            self._apply(sim, event)
        while (auto := self._next_auto(sim)) is not None:
            events.append(auto)
            self._apply(sim, auto)
        return events

    def _next_auto(self, state: RoparunState) -> Event | None:
        """The next automatic event the rules call for, if any (RR-8, RR-9, RR-12)."""
        n = state.num_players
        dealer = state.dealer if state.dealer is not None else 0
        if state.stage == TURN and state.current is not None:
            seat = state.current
            hand = state.hands[seat]
            if not hand:
                return {"type": "TurnEnded", "seat": seat, "reason": "hand_empty", "discarded_count": 0}
            if not self.has_legal_play(state, seat):
                return {
                    "type": "TurnEnded",
                    "seat": seat,
                    "reason": "no_legal_play",
                    "discarded_count": len(hand),
                }
            return None
        if state.stage == DEAL_DONE:
            nxt = (dealer + 1) % n if self._per_deal(state) else dealer
            return {"type": "DealEnded", "deal_no": state.deal_no, "next_dealer": nxt}
        if state.stage == BETWEEN_DEALS:
            if not state.stock:
                new_dealer = dealer if self._per_deal(state) else (dealer + 1) % n
                return {"type": "CycleEnded", "cycle_no": state.cycle_no, "new_dealer": new_dealer}
            return self._deal(state, dealer)
        return None

    def _deal(self, state: RoparunState, dealer: int) -> Event:
        """RR-6 / RR-7: 5 then 4 each (2 players: 4), one at a time from the left of the dealer."""
        n = state.num_players
        size = 5 if state.deal_in_cycle == 0 and n >= 3 else 4
        total = min(size * n, len(state.stock))
        hands: list[list[str]] = [[] for _ in range(n)]
        for i in range(total):
            hands[(dealer + 1 + i) % n].append(state.stock[i])
        return {"type": "CardsDealt", "dealer": dealer, "deal_no": state.deal_no + 1, "hands": hands}

    # --- folding ---------------------------------------------------------------------------
    def evolve(self, state: RoparunState, event: Event) -> RoparunState:
        new = state.clone()
        self._apply(new, event)
        if event.get("type") == CHANCE_EVENT:
            while (auto := self._next_auto(new)) is not None:
                self._apply(new, auto)
        return new

    def _apply(self, s: RoparunState, event: Event) -> None:
        """Fold one event into ``s`` in place (``s`` is always a fresh copy)."""
        kind = event["type"]
        n = s.num_players
        if kind == "GameConfigured":
            return
        if kind == CHANCE_EVENT:
            self._apply_chance(s, event)
        elif kind == "CardPlayed":
            seat = event["seat"]
            card = event["card"]
            rank = rank_of(card)
            if rank is None:
                raise ValueError(f"CardPlayed with unknown card {card!r}")
            play = parse_action(rank, event["action"], self._seven_max(s))
            result = resolve(s.board, s.pawns, seat, play)
            s.pawns = result.pawns
            s.hands[seat].remove(card)
            s.discard_up.append(card)
            s.plays_this_turn += 1
            s.last_play = {
                "seat": seat,
                "card": card,
                "action": event["action"],
                "captures": event["captures"],
                "order_before": list(result.defect_before),
                "order_after": list(result.defect_after),
            }
            for seat_i, team in enumerate(s.pawns):
                for idx, code in enumerate(team):
                    if code >= s.board.n:
                        s.home_place[seat_i][idx] = max(s.home_place[seat_i][idx], code)
            if team_finished(s.board.n, s.pawns[seat]):
                s.winner = seat
                s.stage = FINISHED
                s.current = None
        elif kind == "GameWon":
            if s.winner != event["seat"]:
                raise ValueError("GameWon does not match the finished team")
        elif kind == "TurnEnded":
            seat = event["seat"]
            s.discard_down.extend(s.hands[seat])
            s.hands[seat] = []
            s.turns_done += 1
            s.plays_this_turn = 0
            if s.turns_done >= n:
                s.stage = DEAL_DONE
                s.current = None
            else:
                s.current = (seat + 1) % n
        elif kind == "DealEnded":
            s.dealer = event["next_dealer"]
            s.stage = BETWEEN_DEALS
        elif kind == "CycleEnded":
            s.dealer = event["new_dealer"]
            s.stock = list(s.deck)  # RR-8: all cards go back for the new cycle
            s.discard_up = []
            s.discard_down = []
            s.hands = [[] for _ in range(n)]
            s.last_play = None  # its card is back in the deck
            s.stage = SHUFFLE
        elif kind == "CardsDealt":
            hands = event["hands"]
            total = sum(len(h) for h in hands)
            s.hands = [list(h) for h in hands]
            s.stock = s.stock[total:]
            s.dealer = event["dealer"]
            s.deal_no += 1
            s.deal_in_cycle += 1
            s.current = (event["dealer"] + 1) % n  # RR-9
            s.turns_done = 0
            s.plays_this_turn = 0
            s.stage = TURN
        else:
            raise ValueError(f"unknown event {kind!r}")

    def _apply_chance(self, s: RoparunState, event: Event) -> None:
        values = event["values"]
        if sorted(values) != list(range(len(s.deck))):
            raise ValueError("a shuffle must be a permutation of the deck")
        order = [s.deck[v] for v in values]
        purpose = event["purpose"]
        if purpose == "dealer_draw" and s.stage == DEALER_DRAW:
            self._dealer_draw(s, order)
        elif purpose == "deal" and s.stage == SHUFFLE:
            s.stock = order  # RR-5: the dealer shuffles all cards in use
            s.cycle_no += 1
            s.deal_in_cycle = 0
            s.stage = BETWEEN_DEALS
        else:
            raise ValueError(f"unexpected chance {purpose!r} in stage {s.stage}")

    def _dealer_draw(self, s: RoparunState, order: list[str]) -> None:
        """RR-4: seat order draws; tied lowest redraw from the same deck (reshuffle if it runs out)."""
        pos = 0
        contenders = list(s.draw_contenders)
        while len(order) - pos >= len(contenders):
            draws = [(seat, order[pos + i]) for i, seat in enumerate(contenders)]
            pos += len(contenders)
            # Public (§4); rank and suit apart, since these cards go back into the deck (RR-4).
            s.dealer_draws.append(
                [{"seat": seat, "rank": card[:-1], "suit": card[-1]} for seat, card in draws]
            )
            values = {seat: DRAW_VALUE[str(rank_of(card))] for seat, card in draws}
            low = min(values.values())
            contenders = [seat for seat, _ in draws if values[seat] == low]
            if len(contenders) == 1:
                s.dealer = contenders[0]
                s.draw_contenders = []
                s.stage = SHUFFLE  # all cards go back; the dealer shuffles for the first cycle
                return
        s.draw_contenders = contenders  # the deck ran out: reshuffle, the tied players redraw

    # --- result and views ------------------------------------------------------------------
    # --- the length guard (RR-R-LEN) --------------------------------------------------------
    length_limit = game_length.LIMIT

    def length(self, state: RoparunState) -> int:
        return game_length.length(state)

    def adjudicate(self, state: RoparunState) -> Outcome:
        return game_length.adjudicate(state)

    def outcome(self, state: RoparunState) -> Outcome | None:
        if state.stage != FINISHED or state.winner is None:
            return None
        n = state.num_players
        winner = state.winner
        return Outcome(
            ranks=[1 if seat == winner else 2 for seat in range(n)],
            scores=[1.0 if seat == winner else 0.0 for seat in range(n)],
            reason=f"{state.board.colour(winner)} finished: all four pawns home, runner on top (RR-38)",
        )

    def _public(self, state: RoparunState) -> dict[str, Any]:
        board = state.board
        n_sq = board.n
        teams = []
        for seat, team in enumerate(state.pawns):
            defect = order_defect(n_sq, team)
            teams.append(
                {
                    "seat": seat,
                    "colour": board.colour(seat),
                    "pawns": {PAWNS[i]: board.location(seat, code) for i, code in enumerate(team)},
                    "order_defect": list(defect),
                    "stop_go": defect != ZERO,
                    "finished": team_finished(n_sq, team),
                    "hand_size": len(state.hands[seat]),
                }
            )
        can_end = state.stage == TURN and state.plays_this_turn >= 1 and not self._while_possible(state)
        return {
            "game_type": self.game_type,
            "num_players": state.num_players,
            "options": dict(state.config.options),
            "phase": state.phase,
            "stage": state.stage,
            "board": board.describe(),
            "teams": teams,
            "stock_size": len(state.stock),
            "deck_size": len(state.deck),
            "discard_face_up": list(state.discard_up),
            "discard_face_down_count": len(state.discard_down),
            "dealer": state.dealer,
            "cycle_no": state.cycle_no,
            "deal_no": state.deal_no,
            "deal_in_cycle": state.deal_in_cycle,
            "current_seat": state.current,
            "to_move": self.to_move(state),
            "plays_this_turn": state.plays_this_turn,
            "turns_done_this_deal": state.turns_done,
            "can_end_turn": can_end,
            "winner": state.winner,
            "dealer_draws": [list(r) for r in state.dealer_draws],
            "last_play": state.last_play,
        }

    def view(self, state: RoparunState, seat: int | None) -> dict[str, Any]:
        out = self._public(state)
        out["seat"] = seat
        out["hand"] = list(state.hands[seat]) if seat is not None and 0 <= seat < state.num_players else None
        return out

    def full_view(self, state: RoparunState) -> dict[str, Any]:
        out = self._public(state)
        out["hands"] = [list(h) for h in state.hands]
        out["stock"] = list(state.stock)
        out["discard_face_down"] = list(state.discard_down)
        out["draw_contenders"] = list(state.draw_contenders)
        return out

    def redact_event(
        self, event: Event, seat: int | None, before: RoparunState, after: RoparunState
    ) -> Event:
        kind = event.get("type")
        if kind == CHANCE_EVENT:
            return {k: v for k, v in event.items() if k != "values"} | {"values": "hidden"}
        if kind == "CardsDealt":
            hands = event["hands"]
            return event | {
                "hands": [list(h) if s == seat else None for s, h in enumerate(hands)],
                "hand_sizes": [len(h) for h in hands],
            }
        return event

    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> RoparunState:
        """A full state consistent with ``seat``'s view: the unseen cards spread at random over the
        other hands, the stock and the face-down discards (issue 18.3; see ``determinize.py``)."""
        return determinize_view(view, seat, rng)

    # --- invariants ------------------------------------------------------------------------
    def invariants(self, state: RoparunState) -> list[str]:
        return check(state)
