"""Plays ROPARUN and CityHopper through the public HTTP API of a running stack (`make run`) with
random legal moves and saves what a seat's page would get (game detail `view`, `GET .../legal-moves`,
`seats`) at a few moments as views/live-<game>-<label>.json, next to the self-play samples:

    .venv/bin/python services/web/static/dev/live_views.py http://127.0.0.1:8000
"""

from __future__ import annotations

import json
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests

OUT = Path(__file__).parent / "views"


def register(api: str, name: str) -> dict[str, Any]:
    while True:
        r = requests.post(f"{api}/players", json={"display_name": name}, timeout=10)
        if r.status_code != 429:
            r.raise_for_status()
            player: dict[str, Any] = r.json()
            return player
        time.sleep(int(r.headers.get("Retry-After", "5")))


def main(base: str) -> None:
    api = base.rstrip("/") + "/games/v1"
    rng = random.Random(5)
    saved: list[str] = []
    everyone = [{"Authorization": f"Bearer {register(api, name)['token']}"} for name in ("Anna", "Bram", "Carmen")]
    for game_type, n, labels in (
        ("roparun", 3, {"opening": 0, "midgame": 60}),
        ("cityhopper", 2, {"QUESTION": None, "MOVE": None, "PURCHASE": None}),
    ):
        auth = everyone[:n]
        game = requests.post(f"{api}/games", json={"game_type": game_type, "num_players": n},
                             headers=auth[0], timeout=10).json()
        if "id" not in game:
            raise SystemExit(f"{game_type}: {game}")
        gid = game["id"]
        for seat in range(n):
            joined = requests.post(f"{api}/games/{gid}/join", json={"seat": seat}, headers=auth[seat], timeout=10)
            if joined.status_code >= 400:
                raise SystemExit(f"join: {joined.text[:300]}")
        wanted = dict(labels)
        idle = 0
        for step in range(600):
            moved = False
            for seat in range(n):
                legal = requests.get(f"{api}/games/{gid}/legal-moves", headers=auth[seat], timeout=10).json()
                if not legal["moves"]:
                    continue
                detail = requests.get(f"{api}/games/{gid}", headers=auth[seat], timeout=10).json()
                view = detail["view"]
                key = str(step) if game_type == "roparun" else view.get("phase")
                for label, at in list(wanted.items()):
                    if (game_type == "roparun" and step >= int(at or 0)) or (game_type != "roparun" and key == label):
                        name = f"live-{game_type}-{label.lower()}.json"
                        snap = {"note": f"live {label}", "view": view, "moves": legal["moves"], "seat": seat,
                                "seats": detail["seats"]}
                        (OUT / name).write_text(json.dumps(snap, indent=1, ensure_ascii=False) + "\n")
                        saved.append(name)
                        del wanted[label]
                move = rng.choice(legal["moves"])
                if game_type == "cityhopper" and move.get("type") == "answer" and "km" in (move.get("payload") or {}):
                    move = {"type": "answer", "payload": {"km": round(rng.uniform(5, 300), 1)}}  # a typed km
                r = requests.post(f"{api}/games/{gid}/moves", json={"expected_version": legal["version"], "move": move},
                                  headers=auth[seat] | {"Idempotency-Key": str(uuid.uuid4())}, timeout=30)
                if r.status_code >= 400:
                    raise SystemExit(f"{game_type} {r.status_code}: {r.text[:300]}")
                moved = True
                break
            idle = 0 if moved else idle + 1
            if not moved:  # e.g. CityHopper waits for the questions service to draw a question
                time.sleep(0.5)
            if not wanted or idle > 40:
                break
    index = sorted({*json.loads((OUT / "index.json").read_text()), *saved})
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print("saved", saved)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
