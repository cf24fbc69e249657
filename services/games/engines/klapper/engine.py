"""KlapperEngine: the Engine contract for rules/klapper.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.games.engines.base import (
    ChanceRequest,
    Engine,
    Event,
    GameConfig,
    InvalidOptions,
    Move,
    MoveDoc,
    Outcome,
    Rng,
)

from . import checks, decide, events, views
from . import length as game_length
from .cards import DECK_SIZE
from .determinize import determinize as sample_state
from .melds import MELD_TYPES
from .state import KlapperState, Options

OPTION_DEFAULTS = Options()


class KlapperEngine(Engine[KlapperState]):
    game_type = "klapper"
    title = "Klapper"
    player_counts = (4, 3, 2, 6)
    spec = "rules/klapper.md"
    card_notation: ClassVar[dict[str, Any]] = {
        "family": "french",
        "description": (
            "rank then suit letter, no separator: ranks A K Q J 10 9 (the 24-card deck); "
            "suits S (spades), H (hearts), D (diamonds), C (clubs)"
        ),
        "pattern": "^(A|K|Q|J|10|9)[SHDC]$",
        "examples": ["AS", "10H", "QC"],
    }
    everything_public_after_end = False  # KL-44 / section 4: the dead hand is never revealed, hands only to their owners, also after the end

    # --- configuration -------------------------------------------------------------------
    def options_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "seating": {
                    "type": "string",
                    "enum": ["omboeren", "fixed"],
                    "default": "omboeren",
                    "description": "KL-2, KL-5, KL-R1: 'omboeren' deals for jacks to pick the first dealer "
                    "(and, with 4 players, seats and partners); 'fixed' takes seats in join order "
                    "and the first dealer from first_dealer.",
                },
                "first_dealer": {
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                    "description": "KL-R1: first dealer's seat when seating is 'fixed'.",
                },
                "target": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 100000,
                    "default": 500,
                    "description": "KL-39, KL-R18: the game ends after a deal in which a side reaches this "
                    "score alone at the top.",
                },
                "round2_turned_suit": {
                    "type": "boolean",
                    "default": True,
                    "description": "KL-12, KL-R5: whether the proposed (turned) suit may be named in round 2.",
                },
                "roem_tie": {
                    "type": "string",
                    "enum": ["nobody", "voorhand_first"],
                    "default": "nobody",
                    "description": "KL-35, KL-R12: tie for the highest roem between sides: 'nobody' scores "
                    "roem, or the tied player first from voorhand scores it. Ties inside one side "
                    "always score.",
                },
                "compare_with_roem": {
                    "type": "boolean",
                    "default": True,
                    "description": "KL-36, KL-R16: whether roem counts when comparing the playing side "
                    "with the opponents (scores added always include roem).",
                },
            },
        }

    def normalize_options(self, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        if num_players not in self.player_counts:
            raise InvalidOptions("players", "Klapper is played by 4, 3, 2 or 6 players", "KL-5")
        if not isinstance(options, Mapping):
            raise InvalidOptions("options", "options must be an object")
        known = set(self.options_schema()["properties"])
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidOptions(unknown[0], "unknown option")
        d = OPTION_DEFAULTS
        seating = options.get("seating", d.seating)
        if seating not in ("omboeren", "fixed"):
            raise InvalidOptions("seating", "must be 'omboeren' or 'fixed'", "KL-R1")
        first = options.get("first_dealer", d.first_dealer)
        if not _is_int(first) or not 0 <= first < num_players:
            raise InvalidOptions("first_dealer", f"must be a seat from 0 to {num_players - 1}", "KL-R1")
        target = options.get("target", d.target)
        if not _is_int(target) or not 1 <= target <= 100000:
            raise InvalidOptions("target", "must be an integer from 1 to 100000", "KL-39")
        turned = options.get("round2_turned_suit", d.round2_turned_suit)
        if not isinstance(turned, bool):
            raise InvalidOptions("round2_turned_suit", "must be true or false", "KL-R5")
        tie = options.get("roem_tie", d.roem_tie)
        if tie not in ("nobody", "voorhand_first"):
            raise InvalidOptions("roem_tie", "must be 'nobody' or 'voorhand_first'", "KL-R12")
        compare = options.get("compare_with_roem", d.compare_with_roem)
        if not isinstance(compare, bool):
            raise InvalidOptions("compare_with_roem", "must be true or false", "KL-R16")
        return Options(seating, first, target, turned, tie, compare).as_dict()

    def variants(self) -> list[GameConfig]:
        out = [GameConfig(n, self.normalize_options(n, {})) for n in self.player_counts]
        out.append(
            GameConfig(
                4,
                self.normalize_options(
                    4,
                    {
                        "seating": "fixed",
                        "first_dealer": 2,
                        "round2_turned_suit": False,
                        "roem_tie": "voorhand_first",
                        "compare_with_roem": False,
                    },
                ),
            )
        )
        out.append(GameConfig(3, self.normalize_options(3, {"roem_tie": "voorhand_first"})))
        out.append(GameConfig(6, self.normalize_options(6, {"seating": "fixed", "compare_with_roem": False})))
        return out

    def teams(self, config: GameConfig) -> list[list[int]] | None:
        """Fixed partnerships: 6 players always, 4 players with fixed seating.

        With omboeren the 4-player partnerships come from the jacks (KL-4) and are known only
        after the first chance event; they are in every view ("teams") and in the outcome.
        """
        n = config.num_players
        if n == 6:
            return [[0, 2, 4], [1, 3, 5]]
        if n == 4 and config.options.get("seating", "omboeren") == "fixed":
            return [[0, 2], [1, 3]]
        return None

    def moves(self) -> list[MoveDoc]:
        suit = {"type": "string", "enum": ["S", "H", "D", "C"]}
        card = {"type": "string", "pattern": "^(A|K|Q|J|10|9)[SHDC]$"}
        meld = {
            "type": "object",
            "required": ["type", "cards"],
            "properties": {
                "type": {"type": "string", "enum": list(MELD_TYPES)},
                "cards": {"type": "array", "items": card, "minItems": 2, "maxItems": 5},
            },
        }
        return [
            MoveDoc(
                "bid",
                "Round 1: play or pass the proposed trump suit.",
                {
                    "type": "object",
                    "required": ["choice"],
                    "properties": {"choice": {"enum": ["play", "pass"]}},
                },
                {"type": "bid", "choice": "play"},
                ("KL-10", "KL-11", "KL-12"),
            ),
            MoveDoc(
                "choose_trump",
                "Round 2: name any suit as trump and become the Speler.",
                {"type": "object", "required": ["suit"], "properties": {"suit": suit}},
                {"type": "choose_trump", "suit": "S"},
                ("KL-12", "KL-13", "KL-R5", "KL-R6"),
            ),
            MoveDoc(
                "pass",
                "Round 2: pass. If everyone passes the deal is void.",
                {"type": "object", "properties": {}},
                {"type": "pass"},
                ("KL-12", "KL-14"),
            ),
            MoveDoc(
                "declare_roem",
                "First trick, at your turn, before your card, once: declare melds from your hand.",
                {
                    "type": "object",
                    "required": ["melds"],
                    "properties": {"melds": {"type": "array", "items": meld, "minItems": 1}},
                },
                {"type": "declare_roem", "melds": [{"type": "stuk", "cards": ["KH", "QH"]}]},
                ("KL-29", "KL-30", "KL-31", "KL-32", "KL-33", "KL-34"),
            ),
            MoveDoc(
                "play_card",
                "Play a card: follow suit, else trump, overtrumping when you can.",
                {"type": "object", "required": ["card"], "properties": {"card": card}},
                {"type": "play_card", "card": "AS"},
                ("KL-17", "KL-18", "KL-19", "KL-20", "KL-21", "KL-22", "KL-25"),
            ),
        ]

    # --- the game ------------------------------------------------------------------------
    def initial_state(self, config: GameConfig) -> KlapperState:
        n = config.num_players
        opts = Options.from_dict(config.options)
        table = list(range(n))
        num_sides = 2 if n in (4, 6) else n
        state = KlapperState(
            n=n,
            opts=opts,
            table=table,
            side_of=events.sides_for(n, table),
            num_sides=num_sides,
            phase="omboeren",
            pending="omboeren",
            score=[0] * num_sides,
            card_points=[0] * num_sides,
            roem_scored=[0] * num_sides,
        )
        if opts.seating == "fixed":
            state.dealer, state.phase, state.pending = opts.first_dealer, "dealing", "deal"
        return state

    def chance_request(self, state: KlapperState) -> ChanceRequest | None:
        if state.pending is None:
            return None
        return ChanceRequest(state.pending, "shuffle", DECK_SIZE)

    def to_move(self, state: KlapperState) -> list[int]:
        if state.pending is not None or state.turn is None or state.phase == "game_over":
            return []
        return [state.turn]

    def legal_moves(self, state: KlapperState, seat: int) -> list[Move]:
        return decide.legal_moves(state, seat)

    def decide(self, state: KlapperState, seat: int, move: Move) -> list[Event]:
        return decide.decide(state, seat, move)

    def evolve(self, state: KlapperState, event: Event) -> KlapperState:
        return events.apply(state, event)

    def teams_in(self, state: KlapperState, config: GameConfig) -> list[list[int]] | None:
        """After omboeren the jacks have fixed the 4-player partnerships (KL-4)."""
        if state.n in (4, 6) and state.side_of:
            return [state.members(s) for s in range(state.num_sides)]
        return self.teams(config)

    def outcome(self, state: KlapperState) -> Outcome | None:
        if state.phase != "game_over":
            return None
        return game_length.ranked_on_scores(state, f"a side reached {state.opts.target} with the highest score (KL-39)")

    # --- the length guard (KL-R-LEN) --------------------------------------------------------
    length_limit = game_length.LIMIT

    def length(self, state: KlapperState) -> int:
        return game_length.length(state)

    def adjudicate(self, state: KlapperState) -> Outcome:
        return game_length.adjudicate(state)

    # --- what each viewer may see --------------------------------------------------------
    def view(self, state: KlapperState, seat: int | None) -> dict[str, Any]:
        return views.seat_view(state, seat)

    def full_view(self, state: KlapperState) -> dict[str, Any]:
        return views.full_view(state)

    def redact_event(
        self, event: Event, seat: int | None, before: KlapperState, after: KlapperState
    ) -> Event:
        return views.redact(event, seat, after)

    def determinize(self, view: Mapping[str, Any], seat: int, rng: Rng) -> KlapperState:
        """A state consistent with ``seat``'s view: unseen cards dealt at random (determinize.py)."""
        return sample_state(view, seat, rng)

    # --- checks for random play ----------------------------------------------------------
    def invariants(self, state: KlapperState) -> list[str]:
        return checks.check(state)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
