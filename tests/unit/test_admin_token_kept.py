"""Issue 17 item 5: `make run` without ADMIN_TOKEN makes one admin token per installation, keeps it in
the data folder (owner-only) so it survives restarts as the data does, and prints it only once."""

from __future__ import annotations

import stat
from pathlib import Path

from services.launcher import kept_admin_token


def test_the_admin_token_survives_a_restart_and_is_printed_once(tmp_path: Path) -> None:
    data = tmp_path / ".data"
    first_run: list[str] = []
    token = kept_admin_token(data, first_run.append)
    assert len(token) >= 32
    assert token in first_run[0], "the run that makes it prints it"
    kept = data / "admin-token"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600, "only its owner may read it"

    second_run: list[str] = []
    assert kept_admin_token(data, second_run.append) == token
    assert token not in " ".join(second_run), "later runs name where it is kept, not the token"
    assert str(kept) in second_run[0]


def test_an_emptied_token_file_gets_a_new_token(tmp_path: Path) -> None:
    (tmp_path / "admin-token").write_text("\n")
    assert kept_admin_token(tmp_path, lambda _: None).strip()
