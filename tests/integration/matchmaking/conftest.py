"""The matchmaking flow's fixtures (real PostgreSQL and Redis, the games service behind the queue) for
every matchmaking integration test module."""

from tests.integration.matchmaking.test_matchmaking_flow import app, env, pool, redis  # noqa: F401
