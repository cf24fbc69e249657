"""Random play: every variant and player count to the end, with invariants, replay and hidden cards."""

from __future__ import annotations

import pytest

from services.games.domain.play import replay
from services.games.engines.base import Event, GameConfig
from services.games.engines.paardenkoppen.cards import card_id
from services.games.engines.paardenkoppen.state import PKState
from services.games.service_layer.selfplay import selfplay

from .helpers import ENGINE, config, drive, strings

VARIANTS = ENGINE.variants()


def _label(cfg: GameConfig) -> str:
    changed = {k: v for k, v in cfg.options.items() if v != ENGINE.normalize_options(cfg.num_players, {})[k]}
    return f"n{cfg.num_players}-" + ("-".join(f"{k}={v}" for k, v in changed.items()) or "default")


@pytest.mark.parametrize("cfg", VARIANTS, ids=[_label(v) for v in VARIANTS])
def test_random_play_50_games_per_variant(cfg: GameConfig) -> None:
    """PK-24, PK-18, PK-14, PK-7, PK-10, R18: invariants hold after every event; replay is equal."""
    report = selfplay(ENGINE, cfg, games=50, seed=cfg.num_players)
    assert report.ok, report.failures
    assert report.games == 50 and report.moves > 0


def test_random_play_with_a_configured_start_player() -> None:
    report = selfplay(ENGINE, config(5, first_start_player=3, rounds=3), games=20, seed=7)
    assert report.ok, report.failures


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_hidden_information_in_views_and_events(n: int) -> None:
    """Spec §4 visibility, R12: no seat sees another seat's hand; spectators see no hand."""
    problems: list[str] = []

    def check(event: Event, before: PKState, after: PKState) -> None:
        for seat in [None, *range(n)]:
            hidden = {card_id(c) for s, hand in enumerate(after.hands) if s != seat for c in hand}
            hidden |= {card_id(c) for s, hand in enumerate(before.hands) if s != seat for c in hand}
            played = {card_id(c) for a in range(4) for c in (a * 13 + r - 1 for r in after.rows[a])}
            hidden -= played
            if event.get("type") == "CardPlayed":
                hidden.discard(event["card"])
            view = ENGINE.view(after, seat)
            if seat is None and view["hand"] is not None:
                problems.append("a spectator sees a hand")
            if hidden & strings(view):
                problems.append(f"seat {seat} view shows {sorted(hidden & strings(view))[:3]}")
            redacted = ENGINE.redact_event(event, seat, before, after)
            if hidden & strings(redacted):
                problems.append(
                    f"seat {seat} event {event['type']} shows {sorted(hidden & strings(redacted))[:3]}"
                )
            if isinstance(redacted.get("values"), list) and redacted.get("purpose") == "deal":
                problems.append("the deck order of a deal is visible")

    for game_seed in range(3):
        final, _, _ = drive(config(n, rounds=2), 100 * n + game_seed, on_event=check)
        assert ENGINE.outcome(final) is not None
    assert not problems, problems[:5]


@pytest.mark.parametrize("cfg", [config(3), config(6, six_rule="immediate")], ids=["n3", "n6-immediate"])
def test_replay_rebuilds_the_whole_state(cfg: GameConfig) -> None:
    """The full state (leftover hands included, which the finished full_view withholds) replays equal."""
    for game_seed in range(3):
        final, log, _ = drive(cfg, 500 + game_seed)
        rebuilt = replay(ENGINE, cfg, log).state
        assert rebuilt == final and ENGINE.outcome(rebuilt) == ENGINE.outcome(final)
