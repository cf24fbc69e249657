"""GameFinished / GameAborted / GameVoided bodies as the games service sends them."""

from __future__ import annotations

import uuid
from typing import Any


def finished(
    game_type: str,
    players: list[str],
    ranks: list[int],
    teams: list[list[int]] | None = None,
    team_ranks: list[int] | None = None,
    game_id: str | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "game_id": game_id or str(uuid.uuid4()),
        "game_type": game_type,
        "options": options or {},
        "players": players,
        "outcome": {
            "ranks": ranks,
            "scores": [float(10 - r) for r in ranks],
            "reason": "test result",
            "teams": teams,
            "team_ranks": team_ranks,
            "team_scores": [float(10 - r) for r in team_ranks] if team_ranks else None,
        },
        "revealed_seed": "ab" * 32,
    }


def team_game(game_type: str, players: list[str], teams: list[list[int]], team_ranks: list[int],
              game_id: str | None = None) -> dict[str, Any]:
    ranks = [0] * len(players)
    for team, rank in zip(teams, team_ranks, strict=True):
        for seat in team:
            ranks[seat] = rank
    return finished(game_type, players, ranks, teams, team_ranks, game_id)


def aborted(game_id: str, players: list[str], game_type: str = "roparun") -> dict[str, Any]:
    return {"game_id": game_id, "reason": "aborted by an organiser", "players": players,
            "game_type": game_type, "revealed_seed": "cd" * 32}


def voided(game_id: str, reason: str = "dispute ruling: marked cards") -> dict[str, Any]:
    return {"game_id": game_id, "reason": reason}


def envelope(kind: str, body: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
    return {"message_id": message_id or f"{body['game_id']}:{kind}", "type": kind, "body": body}


# one finished game of every game type and mode: (pool, body)
def every_game_type(p: list[str]) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("hoppaa/solo", finished("hoppaa", p[:3], [2, 1, 2])),
        ("hoppaa/team", team_game("hoppaa", p[:4], [[0, 2], [1, 3]], [1, 2])),
        ("klapper/4", team_game("klapper", p[:4], [[0, 2], [1, 3]], [2, 1])),
        ("klapper/6", team_game("klapper", p[:6], [[0, 2, 4], [1, 3, 5]], [1, 2])),
        ("paardenkoppen", finished("paardenkoppen", p[:5], [1, 2, 2, 4, 5])),
        ("roparun", finished("roparun", p[:3], [1, 2, 2])),
        ("cityhopper", finished("cityhopper", p[:4], [3, 1, 2, 4])),
    ]
