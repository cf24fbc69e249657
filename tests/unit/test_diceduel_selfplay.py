from services.games.engines.base import GameConfig
from services.games.service_layer.selfplay import selfplay
from tests.support.diceduel import DiceDuel


def test_random_play_finishes_with_invariants_and_replay_equal() -> None:
    engine = DiceDuel()
    for n in engine.player_counts:
        report = selfplay(engine, GameConfig(n, engine.normalize_options(n, {})), games=50, seed=n)
        assert report.ok, report.failures
        assert report.games == 50 and report.moves > 0
