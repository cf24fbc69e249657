"""The launcher and the `speltafel` command tell the truth (issue 15 item 8): moved ports reach every
caller, the version is one flag away, other commands find the backends a running `make run` uses, and
long commands show progress on stderr while stdout keeps the JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services.cli import main as cli_main
from services.cli import package_version
from shared.backends import Backends, for_command, forget, record, recorded, redact
from shared.config import Settings
from tests.support.terminal import run_watched


def test_moved_ports_reach_every_service_url(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GAMES", "MATCHMAKING", "QUESTIONS", "RATINGS"):
        monkeypatch.delenv(f"{name}_URL", raising=False)
    monkeypatch.setenv("RATINGS_PORT", "9104")
    monkeypatch.setenv("GAMES_PORT", "9101")
    monkeypatch.setenv("SPELTAFEL_HOST", "0.0.0.0")  # a wildcard bind is reached on 127.0.0.1
    urls = Settings.from_env().service_url_env()
    assert urls["RATINGS_URL"] == "http://127.0.0.1:9104"
    assert urls["GAMES_URL"] == "http://127.0.0.1:9101"
    assert urls["QUESTIONS_URL"] == "http://127.0.0.1:8003"
    monkeypatch.setenv("RATINGS_URL", "http://ratings.internal:80/")  # an explicit URL still wins
    assert Settings.from_env().service_urls["ratings"] == "http://ratings.internal:80"


def test_version_flag_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli_main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"speltafel {package_version()}"
    assert package_version() != "unknown"


def test_the_record_of_a_running_make_run_is_read_and_a_dead_ones_ignored(tmp_path: Path) -> None:
    found = Backends("postgresql://postgres:secret@127.0.0.1:5999/db", "redis://127.0.0.1:6999/0")
    record(tmp_path, found)  # this test process plays the launcher: it is alive
    body = recorded(tmp_path)
    assert body is not None and body["database_url"] == found.database_url and body["pid"] == os.getpid()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    record(tmp_path, found, pid=dead.pid)
    assert recorded(tmp_path) is None
    record(tmp_path, found)
    forget(tmp_path)
    assert not (tmp_path / "backends.json").exists()
    assert redact(found.database_url) == "postgresql://postgres:***@127.0.0.1:5999/db"
    embedded = "postgresql://postgres:@/postgres?host=/srv/.data/pg"  # pgserver's: empty password, a socket
    assert redact(embedded) == embedded


def test_a_command_uses_the_running_make_runs_backends_when_no_url_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)
    record(tmp_path, Backends("postgresql://postgres@127.0.0.1:5999/embedded", "redis://127.0.0.1:6391/0"))
    found, source = for_command(tmp_path)
    assert (found.database_url, found.redis_url) == ("postgresql://postgres@127.0.0.1:5999/embedded",
                                                     "redis://127.0.0.1:6391/0")
    assert "make run" in source and str(os.getpid()) in source
    monkeypatch.setenv("DATABASE_URL", "postgresql://elsewhere/db")
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere/0")
    assert for_command(tmp_path)[1] == "environment"


def test_selfplay_shows_progress_on_stderr_and_keeps_json_on_stdout() -> None:
    """With stderr on a terminal, a tqdm bar; stdout stays one JSON document."""
    code, out, stderr = run_watched(["selfplay", "klapper", "--games", "3", "--players", "4"], timeout=120)
    assert code == 0
    report = json.loads(out)
    assert report["games"] == 3
    assert "klapper 4p" in stderr and "0/3 [" in stderr, stderr


def test_selfplay_plays_the_same_games_as_before_the_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    from services.games.engines.base import GameConfig
    from services.games.engines.registry import default_registry
    from services.games.service_layer.selfplay import selfplay

    engine = default_registry().get("klapper")
    expected = selfplay(engine, GameConfig(4, engine.normalize_options(4, {})), 3, 5).as_dict()
    assert cli_main(["selfplay", "klapper", "--games", "3", "--seed", "5", "--players", "4"]) == 0
    got = json.loads(capsys.readouterr().out)
    for key in ("games", "moves", "events", "unfinished", "failures"):
        if key in expected:
            assert got[key] == expected[key], key


def test_launcher_waits_for_each_service_on_its_own_port_even_when_a_url_points_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RATINGS_PORT", "9104")
    monkeypatch.setenv("RATINGS_URL", "http://proxy.internal/ratings")
    settings = Settings.from_env()
    assert settings.local_urls["ratings"] == "http://127.0.0.1:9104"
    assert settings.service_urls["ratings"] == "http://proxy.internal/ratings"
