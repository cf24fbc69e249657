"""DB_POOL_MAX / DB_POOL_MAX_IDLE (README, environment): one setting bounds every pool of a process, so
many processes can share one PostgreSQL's max_connections (make test's stacks run 14 processes each)."""

from __future__ import annotations

import pytest

from shared.db import pool_limits


def test_without_settings_a_pool_keeps_its_own_size_and_psycopg_pools_idle_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DB_POOL_MAX", raising=False)
    monkeypatch.delenv("DB_POOL_MAX_IDLE", raising=False)
    assert pool_limits(16) == (16, 600.0)


def test_the_cap_bounds_every_pool_and_never_goes_below_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_POOL_MAX", "4")
    monkeypatch.setenv("DB_POOL_MAX_IDLE", "30")
    assert pool_limits(16) == (4, 30.0)
    assert pool_limits(2) == (2, 30.0)  # a smaller pool stays as small
    monkeypatch.setenv("DB_POOL_MAX", "0")
    assert pool_limits(16)[0] == 1
