"""Versioned SQL migrations: numbered files per migration set, a tracking table, one advisory lock.

A migration set is a folder of ``NNNN_name.sql`` files; ``{schema}`` in them is replaced by the
target schema, so the event store tables can be created in every service's schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import psycopg

_LOCK_ID = 7_415_925_001
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class MigrationSet:
    schema: str
    name: str
    folder: Path


def _shared_folder(name: str) -> Path:
    return Path(str(resources.files("shared") / "migrations" / name))


def service_sets(schema: str, service_folder: Path | None = None) -> list[MigrationSet]:
    """The event store set, then the service's own ``migrations`` folder if it has one."""
    sets = [MigrationSet(schema, "eventstore", _shared_folder("eventstore"))]
    if service_folder is not None and service_folder.is_dir():
        sets.append(MigrationSet(schema, schema, service_folder))
    return sets


def identity_set() -> MigrationSet:
    return MigrationSet("identity", "identity", _shared_folder("identity"))


def apply(conninfo: str, sets: list[MigrationSet]) -> list[str]:
    """Apply every pending migration; returns the names applied. Safe to run concurrently."""
    applied: list[str] = []
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_ID,))
        try:
            conn.execute(
                """CREATE TABLE IF NOT EXISTS public.speltafel_migrations (
                    schema_name TEXT NOT NULL, set_name TEXT NOT NULL, version INTEGER NOT NULL,
                    name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (schema_name, set_name, version))"""
            )
            for mset in sets:
                done = {
                    row[0]
                    for row in conn.execute(
                        "SELECT version FROM public.speltafel_migrations "
                        "WHERE schema_name = %s AND set_name = %s",
                        (mset.schema, mset.name),
                    )
                }
                for path in sorted(mset.folder.glob("*.sql")):
                    match = _FILE.match(path.name)
                    if not match or int(match.group(1)) in done:
                        continue
                    sql = path.read_text().replace("{schema}", mset.schema)
                    with conn.transaction():
                        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{mset.schema}"')
                        conn.execute(sql.encode())  # trusted SQL files of this package
                        conn.execute(
                            "INSERT INTO public.speltafel_migrations "
                            "(schema_name, set_name, version, name) VALUES (%s, %s, %s, %s)",
                            (mset.schema, mset.name, int(match.group(1)), match.group(2)),
                        )
                    applied.append(f"{mset.schema}/{mset.name}/{path.name}")
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_ID,))
    return applied
