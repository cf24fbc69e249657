"""Every `speltafel` command run in the checkout uses the backends `make run` uses (issue 15 item 8):
with DATABASE_URL/REDIS_URL unset, a running `make run`'s record in the data directory decides, and the
command says on stderr which backends it used. The embedded Redis port can be moved."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from redis import Redis

from shared.backends import Backends, record, resolve

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def fresh_database(test_database) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """An empty database standing in for the embedded one only `make run` knows about."""
    name = f"speltafel_embedded_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(test_database.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield test_database.admin_url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(test_database.admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def speltafel(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["SPELTAFEL_DATA_DIR"] = str(data)
    return subprocess.run([sys.executable, "-m", "services.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=180)


def test_migrate_and_ratings_rebuild_use_the_running_make_runs_database(
    fresh_database: str, redis_url: str, tmp_path: Path
) -> None:
    record(tmp_path, Backends(fresh_database, redis_url))  # this test process is the running launcher
    migrated = speltafel("migrate", data=tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    assert json.loads(migrated.stdout)["applied"], "the recorded database got the migrations"
    assert "running `make run`" in migrated.stderr and fresh_database.rsplit("/", 1)[1] in migrated.stderr
    with psycopg.connect(fresh_database) as conn:
        assert conn.execute("SELECT count(*) FROM ratings.events").fetchone() == (0,)
    rebuilt = speltafel("ratings", "rebuild", "--dry-run", data=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout)["games"] == 0 and "running `make run`" in rebuilt.stderr


def test_the_embedded_redis_port_can_be_moved(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("SPELTAFEL_DEFAULT_REDIS_PORT", str(free_port()))  # nothing answers there
    monkeypatch.setenv("SPELTAFEL_EMBEDDED_REDIS_PORT", str(port))
    found = resolve(tmp_path)
    try:
        assert found.redis_url == f"redis://127.0.0.1:{port}/0"
        assert any(f"127.0.0.1:{port}" in note for note in found.notes)
        client = Redis.from_url(found.redis_url)
        assert client.ping()
        client.close()
    finally:
        found.stop()


@pytest.fixture
def reachable_tmp() -> Iterator[Path]:
    """A data directory the embedded PostgreSQL's own OS user can reach (pgserver runs initdb as user
    `pgserver` when started by root): not under pytest's basetemp, which pytest keeps at mode 0700."""
    path = Path(tempfile.mkdtemp(prefix="speltafel-cli-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_without_a_running_make_run_a_command_finds_the_backends_as_make_run_does(reachable_tmp: Path) -> None:
    """Nothing on the default ports: the command starts the embedded servers on the data directory (where
    `make run` keeps the data), says so, and stops them afterwards."""
    tmp_path = reachable_tmp
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env |= dict(SPELTAFEL_DATA_DIR=str(tmp_path), SPELTAFEL_DEFAULT_PG_PORT=str(free_port()),
                SPELTAFEL_DEFAULT_REDIS_PORT=str(free_port()), SPELTAFEL_EMBEDDED_REDIS_PORT=str(free_port()))
    migrated = subprocess.run([sys.executable, "-m", "services.cli", "migrate"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert migrated.returncode == 0, migrated.stderr
    assert json.loads(migrated.stdout)["applied"]
    assert "found as `make run` finds them" in migrated.stderr
    assert f"embedded (pgserver), data in {tmp_path / 'pg'}" in migrated.stderr
    assert "Warning" not in migrated.stderr, migrated.stderr
    assert not socket_answers(int(env["SPELTAFEL_EMBEDDED_REDIS_PORT"]))  # stopped with the command


def socket_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
