"""Writes the sample views of the boards harness (static/dev/boards.html) from random self-play.

Each file ``views/<game>-<label>.json`` is ``{note, view, moves, seat, seats}``: a seat's view and
that seat's legal moves, exactly what the table page hands a renderer, at one moment of a real game
(plus a spectator's view). Run from the repository root:

    .venv/bin/python services/web/static/dev/make_views.py
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.games.domain.play import apply_move, open_game
from services.games.engines.base import Engine, GameConfig
from services.games.engines.registry import BUILTIN
from services.games.service_layer.selfplay import seeds_for
from shared.cityhopper import catalog, mapsvg
from shared.cityhopper.roads import ESTIMATE_METHOD, zero_route

OUT = Path(__file__).parent / "views"
NAMES = ["Anna", "Bram", "Carmen", "Daan"]

SPECTATE = {"seven-jack", "stopgo", "question-road_distance", "move"}
"""The moments also saved as a spectator's view."""

Pick = Callable[[dict[str, Any], list[dict[str, Any]], int], str | None]


def engine_for(game_type: str) -> Engine[Any]:
    module, cls = BUILTIN[game_type].split(":")
    mod = __import__(module, fromlist=[cls])
    engine: Engine[Any] = getattr(mod, cls)()
    return engine


def collect(game_type: str, players: int, seed: int, pick: Pick, limit: int = 20000) -> dict[str, Any]:
    """Plays one game; ``pick(view, moves, seat)`` names a snapshot to keep (first one per label)."""
    engine = engine_for(game_type)
    config = GameConfig(players, engine.normalize_options(players, {}))
    seeds = seeds_for(seed)
    provider = engine.selfplay_provider()
    progress, _ = open_game(engine, config, seeds, None, provider)
    chooser = random.Random(seed)
    seats = [{"seat": i, "player_id": f"p{i}", "display_name": NAMES[i]} for i in range(players)]
    found: dict[str, Any] = {}
    for _ in range(limit):
        if engine.outcome(progress.state) is not None:
            break
        to_move = engine.to_move(progress.state)
        seat = chooser.choice(to_move)
        view = engine.view(progress.state, seat)
        moves = engine.legal_moves(progress.state, seat)
        label = pick(view, moves, seat)
        if label and label not in found:
            found[label] = {"note": label, "view": view, "moves": moves, "seat": seat, "seats": seats}
            if label in SPECTATE:
                found[label + "-spectator"] = {
                    "note": label + " (spectator)", "view": engine.view(progress.state, None),
                    "moves": [], "seat": None, "seats": seats,
                }
        move = chooser.choice(engine.selfplay_moves(progress.state, seat))
        apply_move(engine, progress, seat, move, seeds, None, provider)
    if engine.outcome(progress.state) is not None:
        found["finished"] = {"note": "finished", "view": engine.view(progress.state, 0), "moves": [],
                             "seat": 0, "seats": seats}
    return found


def roparun_pick(view: dict[str, Any], moves: list[dict[str, Any]], seat: int) -> str | None:
    kinds = {next(iter(m["action"]), "") for m in moves if m.get("type") == "play_card"}
    teams = view.get("teams", [])
    if view.get("phase") != "playing":
        return None
    if any(t.get("stop_go") for t in teams if t["seat"] == seat) and moves:
        return "stopgo"
    if "split" in kinds and "swap" in kinds:
        return "seven-jack"
    if "enter" in kinds and view.get("deal_no", 0) > 1:
        return "enter"
    if any(p.get("where") == "finish" for t in teams for p in t["pawns"].values()) and moves:
        return "finish"
    if view.get("deal_no") == 1 and view.get("plays_this_turn") == 0 and moves:
        return "opening"
    return None


def cityhopper_pick(view: dict[str, Any], moves: list[dict[str, Any]], seat: int) -> str | None:
    phase = view.get("phase")
    q = view.get("question") or {}
    if phase == "QUESTION" and moves:
        cat = (q.get("question") or {}).get("category")
        return f"question-{str(cat).lower()}" if cat else None
    if phase == "MOVE" and moves:
        if any(m["type"] == "fly_with_ticket" for m in moves):
            return "move-ticket"
        edge = any(m.get("edge") for m in moves)
        return "move" if edge else "move-grey"
    if phase == "PURCHASE" and moves:
        return "purchase"
    if phase == "CHANCE" and moves:
        return "chance"
    if phase == "AWAIT_ROLL" and moves and view.get("turn_no", 0) > 8:
        return "roll"
    if phase == "START_ROLL" and moves:
        return "start-roll"
    return None


def main() -> None:
    OUT.mkdir(exist_ok=True)
    plans: list[tuple[str, int, int, Pick]] = [
        ("roparun", 4, 11, roparun_pick),
        ("roparun", 2, 12, roparun_pick),
        ("cityhopper", 3, 21, cityhopper_pick),
        ("cityhopper", 2, 22, cityhopper_pick),
    ]
    index: list[str] = []
    for game, players, seed, pick in plans:
        for label, snap in collect(game, players, seed, pick).items():
            name = f"{game}-{players}p-{label}.json"
            (OUT / name).write_text(json.dumps(snap, indent=1, ensure_ascii=False) + "\n")
            index.append(name)
    # the page has no gateway behind it: a saved GET /questions/v1/distance/map.svg?from=amsterdam&to=amsterdam
    places = {p.id: p for p in catalog.places()}
    svg = mapsvg.render_map(catalog.places(), catalog.board().edges, zero_route(places["amsterdam"], ESTIMATE_METHOD))
    (OUT / "cityhopper-map.svg").write_text(svg)
    (OUT / "index.json").write_text(json.dumps(sorted(index), indent=1) + "\n")
    print(f"{len(index)} views in {OUT}")


if __name__ == "__main__":
    main()
