"""Configuration from the environment, with defaults for 127.0.0.1."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

SERVICE_PORTS = {"games": 8001, "matchmaking": 8002, "questions": 8003, "ratings": 8004}
INDEX_PORT = 8000


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str
    admin_token: str | None
    host: str
    index_port: int
    ports: dict[str, int]
    log_level: str

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            database_url=env.get("DATABASE_URL", DEFAULT_DATABASE_URL),
            redis_url=env.get("REDIS_URL", DEFAULT_REDIS_URL),
            admin_token=env.get("ADMIN_TOKEN") or None,
            host=env.get("SPELTAFEL_HOST", "127.0.0.1"),
            index_port=int(env.get("SPELTAFEL_PORT", INDEX_PORT)),
            ports={name: int(env.get(f"{name.upper()}_PORT", port)) for name, port in SERVICE_PORTS.items()},
            log_level=env.get("LOG_LEVEL", "INFO"),
        )
