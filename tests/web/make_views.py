"""Writes the dev harness's example tables (static/dev/views/<game>-<phase>.json) from random self-play.

Each file is what a renderer gets: {game_type, seat, seats, view, moves, events} — the reader's view
(engine.view), its legal moves when it is to move, and the last game events in the API's shape, with
chance values and other seats' discards left out. Run from the repository root:

    .venv/bin/python -m tests.web.make_views
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.games.domain.play import Progress, apply_move, open_game
from services.games.engines.base import CHANCE_EVENT, Engine, GameConfig
from services.games.engines.registry import default_registry
from services.games.service_layer.selfplay import seeds_for

OUT = Path(__file__).resolve().parents[2] / "services" / "web" / "static" / "dev" / "views"
NAMES = ["Anna", "Bram", "Cor", "Daan", "Eva", "Fien"]
View = dict[str, Any]
Pick = Callable[[View], bool]  # on the full view, plus "_legal": the move types of the seat to move


def public_events(log: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    out = []
    for version, event in enumerate(log, start=1):
        if event.get("type") == CHANCE_EVENT:
            continue
        if event.get("type") == "CardDiscarded" and event.get("seat") != seat:
            event = event | {"card": "hidden"}
        out.append({"version": version, "type": event["type"], "payload": event,
                    "recorded_at": "2026-12-01T12:00:00+00:00"})
    return out[-10:]


def snapshot(engine: Engine[Any], progress: Progress, log: list[dict[str, Any]], seat: int | None,
             n: int) -> dict[str, Any]:
    state = progress.state
    moves = engine.legal_moves(state, seat) if seat is not None and seat in engine.to_move(state) else []
    return {
        "game_type": engine.game_type,
        "seat": seat,
        "seats": [{"seat": s, "player_id": f"p{s}", "display_name": NAMES[s]} for s in range(n)],
        "view": engine.view(state, seat),
        "moves": moves,
        "events": public_events(log, seat),
    }


def find(engine: Engine[Any], config: GameConfig, pick: Pick, seed: int, spectator: bool = False,
         viewer: Callable[[View], int | None] | None = None, tries: int = 40) -> dict[str, Any]:
    """The first state of a random game where ``pick(full view)`` holds, seen by the seat to move."""
    for k in range(tries):
        chooser, seeds = random.Random(seed + k), seeds_for(seed + k)
        provider = engine.selfplay_provider()
        progress, log = open_game(engine, config, seeds, None, provider)
        for _ in range(5000):
            full = engine.full_view(progress.state)
            to_move = engine.to_move(progress.state)
            full["_legal"] = {m["type"] for m in engine.legal_moves(progress.state, to_move[0])} if to_move else set()
            if pick(full):
                seat = None if spectator else (viewer(full) if viewer else (to_move[0] if to_move else 0))
                return snapshot(engine, progress, log, seat, config.num_players)
            if engine.outcome(progress.state) is not None:
                break
            seat = chooser.choice(engine.to_move(progress.state))
            move = chooser.choice(engine.selfplay_moves(progress.state, seat))
            log.extend(apply_move(engine, progress, seat, move, seeds, None, provider))
    raise RuntimeError(f"no state found for {engine.game_type}")


def variant(engine: Engine[Any], n: int, **options: Any) -> GameConfig:
    for config in engine.variants():
        if config.num_players == n and all(config.options.get(k) == v for k, v in options.items()):
            return config
    raise LookupError((engine.game_type, n, options))


def build() -> dict[str, dict[str, Any]]:
    """Every example table, by name (deterministic: seeded self-play)."""
    registry = default_registry("")
    hp, kl, pk = (registry.get(g) for g in ("hoppaa", "klapper", "paardenkoppen"))
    hp4 = variant(hp, 4, mode="solo", pawns_per_player=2)

    def made(v: View) -> bool:
        return bool(v["phase"] == "scoring" and v["scoring"] and v["scoring"]["result"] == "made"
                    and len(v["scoring"]["steps"]) > 1 and v["round"] >= 3)

    def missed(v: View) -> bool:
        return bool(v["phase"] == "scoring" and v["scoring"] and v["scoring"]["result"] == "missed"
                    and v["round"] >= 3)

    cases: dict[str, dict[str, Any]] = {
        "hoppaa-white-pawn": find(hp, hp4, lambda v: v["phase"] == "white_pawn", 1),
        "hoppaa-bidding": find(hp, hp4, lambda v: v["phase"] == "bidding" and not v["discard_pending"]
                               and sum(b is not None for b in v["bids"]) == 3, 2),
        "hoppaa-opener-bid": find(hp, hp4, lambda v: v["phase"] == "bidding" and not v["discard_pending"]
                                  and all(b is None for b in v["bids"]), 3),
        "hoppaa-discard": find(hp, hp4, lambda v: v["phase"] == "bidding" and v["discard_pending"], 4),
        "hoppaa-mid-trick": find(hp, hp4, lambda v: v["phase"] == "play" and len(v["trick"]["cards"]) == 2
                                 and v["round"] >= 4, 5),
        "hoppaa-score-made": find(hp, hp4, made, 6),
        "hoppaa-score-missed": find(hp, hp4, missed, 7),
        "hoppaa-team": find(hp, variant(hp, 4, mode="team", pawns_per_player=2),
                            lambda v: v["phase"] == "play" and len(v["trick"]["cards"]) == 1
                            and v["round"] >= 6, 8),
        "hoppaa-two-quick": find(hp, variant(hp, 2, pawns_per_player=1),
                                 lambda v: v["phase"] == "play" and v["round"] >= 3, 9),
        "hoppaa-spectator": find(hp, variant(hp, 3, pawns_per_player=2),
                                 lambda v: v["phase"] == "play" and len(v["trick"]["cards"]) == 2
                                 and v["round"] >= 5, 10, spectator=True),
        "hoppaa-three-bidding": find(hp, variant(hp, 3, pawns_per_player=2), lambda v: v["phase"] == "bidding"
                                     and not v["discard_pending"] and all(b is None for b in v["bids"]), 12),
        "hoppaa-finished": find(hp, hp4, lambda v: v["phase"] == "game_over", 11, viewer=lambda v: 0),
    }
    kl4 = variant(kl, 4)
    cases |= {
        "klapper-bidding-1": find(kl, kl4, lambda v: v["phase"] == "bidding_1" and len(v["bids"]) == 2, 1),
        "klapper-bidding-2": find(kl, kl4, lambda v: v["phase"] == "bidding_2" and len(v["bids"]) >= 5, 2),
        "klapper-declared": find(kl, kl4, lambda v: v["phase"] == "play" and not v["tricks"]
                                 and any(v["roem"]) and len(v["trick"]["cards"]) == 3, 10),
        "klapper-end-of-deal": find(kl, kl4, lambda v: v["phase"] == "play" and len(v["tricks"]) == 5
                                    and len(v["trick"]["cards"]) == 3 and v["deal_no"] >= 2, 11),
        "klapper-roem": find(kl, kl4, lambda v: v["phase"] == "play" and "declare_roem" in v["_legal"], 3),
        "klapper-mid-trick": find(kl, kl4, lambda v: v["phase"] == "play" and len(v["tricks"]) == 3
                                  and len(v["trick"]["cards"]) == 2 and v["deal_no"] >= 3, 4),
        "klapper-three": find(kl, variant(kl, 3), lambda v: v["phase"] == "play" and len(v["tricks"]) == 2
                              and len(v["trick"]["cards"]) == 1, 5),
        "klapper-two": find(kl, variant(kl, 2), lambda v: v["phase"] == "play" and len(v["tricks"]) == 1, 6),
        "klapper-two-bidding": find(kl, variant(kl, 2), lambda v: v["phase"] == "bidding_1", 12),
        "klapper-six": find(kl, variant(kl, 6), lambda v: v["phase"] == "play" and len(v["trick"]["cards"]) == 4
                            and v["deal_no"] >= 2, 7),
        "klapper-spectator": find(kl, kl4, lambda v: v["phase"] == "play" and len(v["trick"]["cards"]) == 3,
                                  8, spectator=True),
        "klapper-finished": find(kl, kl4, lambda v: v["phase"] == "game_over", 9, viewer=lambda v: 0),
    }
    pk4 = variant(pk, 4)
    cases |= {
        "paardenkoppen-start": find(pk, pk4, lambda v: v["phase"] == "playing" and sum(
            len(r["cards"]) for r in v["rows"].values()) == 1, 1),
        "paardenkoppen-mid-round": find(pk, pk4, lambda v: v["phase"] == "playing" and v["round_no"] >= 3
                                        and sum(len(r["cards"]) for r in v["rows"].values()) >= 22
                                        and v["pot"] > 0, 2),
        "paardenkoppen-pass": find(pk, pk4, lambda v: v["phase"] == "playing" and v["round_no"] >= 2
                                   and v["pot"] >= 3 and "pass" in v["_legal"], 3),
        "paardenkoppen-head-card": find(pk, pk4, lambda v: v["phase"] == "playing" and "play_card" in v["_legal"]
                                        and any(r["low"] == 1 and r["high"] == r["head_rank"] - 1
                                                for r in v["rows"].values() if r["low"] is not None), 7),
        "paardenkoppen-six": find(pk, variant(pk, 6), lambda v: v["phase"] == "playing" and v["round_no"] >= 2
                                  and sum(len(r["cards"]) for r in v["rows"].values()) >= 30, 4),
        "paardenkoppen-spectator": find(pk, variant(pk, 3), lambda v: v["phase"] == "playing"
                                        and sum(len(r["cards"]) for r in v["rows"].values()) >= 15, 5,
                                        spectator=True),
        "paardenkoppen-finished": find(pk, pk4, lambda v: v["phase"] == "finished", 6, viewer=lambda v: 0),
    }
    return cases


def main() -> None:
    cases = build()
    OUT.mkdir(exist_ok=True)
    for name, case in cases.items():
        (OUT / f"{name}.json").write_text(json.dumps(case, separators=(",", ":")) + "\n", encoding="utf-8")
    (OUT / "index.json").write_text(json.dumps(sorted(cases), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} views to {OUT}")


if __name__ == "__main__":
    main()
