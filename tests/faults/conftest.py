"""Fixtures of the fault tier: each stack has its own PostgreSQL, Redis and launcher (never the machine's)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.infra import Backplane


def _backplane(name: str) -> Iterator[Backplane]:
    root = Path(tempfile.mkdtemp(prefix=f"speltafel-faults-{name}-"))
    plane = Backplane(root)
    try:
        yield plane
    finally:
        failed = not plane.stack.alive()
        plane.close()
        if failed:
            print(f"faults: {name}: the launcher had stopped; its log:\n{plane.stack.log_tail()}")
        if os.environ.get("SPELTAFEL_FAULTS_KEEP"):  # keep the stack's logs and data for a post-mortem
            print(f"faults: {name}: kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def shared_plane() -> Iterator[Backplane]:
    """One stack for the scenarios that break nothing (races, slow bodies, hidden info, fairness, fuzzing)."""
    yield from _backplane("shared")


@pytest.fixture(scope="module")
def own_plane(request: pytest.FixtureRequest) -> Iterator[Backplane]:
    """A stack of the module's own, for scenarios that stop backends or kill processes."""
    yield from _backplane(request.module.__name__.rsplit(".", 1)[-1])
