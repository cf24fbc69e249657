"""Issue 15 item 8, long commands: `speltafel verify` (here) and `speltafel ratings rebuild` (tests/integration/ratings/test_rebuild_progress.py) show a progress bar
(tqdm) on stderr while a person watches, and stdout keeps what a script reads: verify's human summary
(its JSON report with --json), rebuild's JSON report. Run as a person runs them: a subprocess whose stderr
is a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_audit import ADMIN, finished_game, players, service  # noqa: F401 - the fixture
from tests.support.terminal import run_watched

pytestmark = pytest.mark.integration


def test_verify_shows_reading_and_replaying_on_stderr_and_the_summary_or_json_on_stdout(
    service, database_url: str, tmp_path: Path  # type: ignore[no-untyped-def]  # noqa: F811
) -> None:
    game_id = finished_game(service, players(database_url, 2))
    export = service.export(game_id, ADMIN)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    env = {"SPELTAFEL_EXTRA_ENGINES": "tests.support.diceduel:DiceDuel"}
    events = len(export["events"])
    code, out, err = run_watched(["verify", str(path)], env)
    assert code == 0, (out, err)
    assert out.splitlines()[0] == f"{path}: game {game_id}: OK" and "pass  final_state" in out
    # the bars start with the file's size and the log's length (and are cleared when done: leave=False)
    assert "reading" in err and "B/s]" in err and "replaying" in err and f"0/{events} [" in err, err
    assert "event/s" not in out and "B/s" not in out
    code, out, err = run_watched(["verify", "--json", str(path)], env)
    assert code == 0 and json.loads(out)["ok"] is True
    assert f"0/{events} [" in err

