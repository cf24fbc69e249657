"""Test backends: a fresh PostgreSQL database per test session (migrated), a redis-server of its own."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

from shared.backends import Backends, resolve
from shared.migrate import apply, identity_set, service_sets
from tests.support.servers import PrivateRedis

ROOT = Path(__file__).resolve().parents[2]
SERVICE_SCHEMAS = ("games", "matchmaking", "questions", "ratings")


def all_sets() -> list:  # type: ignore[type-arg]
    sets = [identity_set()]
    for schema in SERVICE_SCHEMAS:
        sets += service_sets(schema, ROOT / "services" / schema / "adapters" / "migrations")
    return sets


def with_database(url: str, dbname: str) -> str:
    if "host=" in url and "?" in url:  # pgserver unix-socket URIs: postgresql://user:@/db?host=...
        base, _, query = url.partition("?")
        return base.rsplit("/", 1)[0] + "/" + dbname + "?" + query
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, parts.fragment))


class TestDatabase:
    def __init__(self, backends: Backends) -> None:
        self.admin_url = backends.database_url
        self.name = f"speltafel_test_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        self.url = with_database(self.admin_url, self.name)
        apply(self.url, all_sets())

    def truncate(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY(%s)",
                (["identity", *SERVICE_SCHEMAS],),
            ).fetchall()
            if rows:
                conn.execute(
                    sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
                        sql.SQL(", ").join(sql.Identifier(s, t) for s, t in rows)
                    )
                )

    def drop(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name)))


def resolve_for_tests(scratch: Path) -> Backends:
    """The machine's (or an embedded) PostgreSQL, in which each session makes a database of its own, and
    a redis-server of this pytest process's own under ``scratch``: the tests flush their Redis between
    tests, and the machine's shared Redis is never flushed (nor is it stopped or restarted)."""
    backends = resolve(ROOT / ".data" / "test", allow_containers=True, redis=False)
    redis = PrivateRedis(scratch, persistent=False).start()
    backends.redis_url = redis.url
    backends._stops.append(redis.stop)
    backends.notes.append(f"Redis: this test process's own redis-server on port {redis.port}")
    return backends


def redis_test_url(url: str, db: int = 13) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
