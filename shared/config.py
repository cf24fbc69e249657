"""Configuration from the environment, with defaults for 127.0.0.1."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

SERVICE_PORTS = {"games": 8001, "matchmaking": 8002, "questions": 8003, "ratings": 8004}
INDEX_PORT = 8000
DEFAULT_CORS_ORIGINS = "http://localhost:*,http://127.0.0.1:*"


def _flag(value: str | None, default: bool) -> bool:
    if value is None or not value.strip():
        return default
    return value.strip().lower() not in {"0", "off", "false", "no"}


@dataclass(frozen=True)
class RateLimits:
    """flask-limiter limit strings (``N/second|minute|hour|day``, several joined by ``;``), kept in Redis."""

    enabled: bool = True
    register: str = "10/minute;100/hour"  # POST /v1/players, per client address
    token_failures: str = "20/minute"  # unknown bearer tokens, per client address
    moves: str = "120/minute"  # POST /v1/games/{id}/moves, per player

    @classmethod
    def from_env(cls) -> RateLimits:
        env, d = os.environ, cls()
        return cls(
            enabled=_flag(env.get("RATE_LIMITS"), d.enabled),
            register=env.get("RATE_LIMIT_REGISTER") or d.register,
            token_failures=env.get("RATE_LIMIT_TOKEN_FAILURES") or d.token_failures,
            moves=env.get("RATE_LIMIT_MOVES") or d.moves,
        )


def cors_origins_from_env() -> tuple[str, ...]:
    """``CORS_ORIGINS``: comma-separated origins; ``*`` in one matches any run of characters but ``/``
    (``http://localhost:*`` is every port of localhost); empty turns CORS off."""
    raw = os.environ.get("CORS_ORIGINS", DEFAULT_CORS_ORIGINS)
    return tuple(o.strip().rstrip("/") for o in raw.split(",") if o.strip())


# the header in which `make run`'s gateway shows the services its secret (``Settings.gateway_secret``)
GATEWAY_HEADER = "X-Speltafel-Gateway"


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str
    admin_token: str | None
    host: str
    index_port: int
    ports: dict[str, int]
    log_level: str
    rate_limits: RateLimits = field(default_factory=RateLimits.from_env)
    cors_origins: tuple[str, ...] = field(default_factory=cors_origins_from_env)
    proxy_hops: int = field(default_factory=lambda: int(os.environ.get("PROXY_HOPS") or 0))
    # `make run`'s gateway proves itself with this (the launcher makes one per run): only its
    # X-Forwarded-For is trusted then, not a client's talking to a service's own port
    gateway_secret: str | None = field(default_factory=lambda: os.environ.get("SPELTAFEL_GATEWAY_SECRET") or None)

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

    @property
    def local_urls(self) -> dict[str, str]:
        """Each service on this host (127.0.0.1 when the bind address is a wildcard) at ``<NAME>_PORT``."""
        host = "127.0.0.1" if self.host in {"", "0.0.0.0", "::"} else self.host
        return {name: f"http://{host}:{port}" for name, port in self.ports.items()}

    @property
    def service_urls(self) -> dict[str, str]:
        """Where callers reach each service: ``<NAME>_URL`` if set, else :attr:`local_urls`, so a moved
        port reaches every caller."""
        env = os.environ
        return {name: (env.get(f"{name.upper()}_URL") or local).rstrip("/") for name, local in self.local_urls.items()}

    def service_url_env(self) -> dict[str, str]:
        """``GAMES_URL``, ``MATCHMAKING_URL``, ``QUESTIONS_URL``, ``RATINGS_URL`` for child processes."""
        return {f"{name.upper()}_URL": url for name, url in self.service_urls.items()}
