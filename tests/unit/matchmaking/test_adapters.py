"""HTTP adapters fall back when the other services do not answer, and parse their answers."""

from __future__ import annotations

from services.matchmaking.adapters.http_clients import HttpGames, HttpRatings, _find_rating
from services.matchmaking.domain.matching import Rating

DEAD = "http://127.0.0.1:9"


def test_ratings_fall_back_to_the_default() -> None:
    ratings = HttpRatings(DEAD, timeout=0.5)
    assert ratings.rating("klapper/4", "p1") == (Rating(25.0, 25.0 / 3.0), "default")
    probs = ratings.predict("x", [["a"], ["b"]], {"a": Rating(30, 1), "b": Rating(20, 1)})
    assert probs[0] > 0.5 > probs[1]


def test_audit_tolerates_a_dead_games_service() -> None:
    report = HttpGames(DEAD, timeout=0.5).audit("g1")
    assert report["available"] is False and report["error"]
    assert HttpGames(DEAD, timeout=0.5).game_types() is None


def test_rating_documents_of_several_shapes() -> None:
    assert _find_rating({"ratings": [{"pool": "a", "mu": 30, "sigma": 2}]}, "a") == Rating(30, 2)
    assert _find_rating([{"pool": "a", "mu": 30, "sigma": 2}], "a") == Rating(30, 2)
    assert _find_rating({"ratings": {"a": {"mu": 30, "sigma": 2}}}, "a") == Rating(30, 2)
    assert _find_rating({"ratings": [{"pool": "b", "mu": 30, "sigma": 2}]}, "a") is None
    assert _find_rating("nonsense", "a") is None


def test_game_types_are_cached_for_their_ttl_and_a_failure_is_not() -> None:
    """Every ticket and league is checked against the games service's game types: one request per TTL."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hits: list[str] = []

    class GameTypes(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            body = json.dumps([{"id": "hoppaa", "player_counts": [2, 3, 4], "options_schema": {}}]).encode()
            self.send_response(200 if len(hits) != 3 else 503)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), GameTypes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        cached = HttpGames(url, timeout=2, game_types_ttl=3600)
        assert cached.game_types() == cached.game_types() == [
            {"id": "hoppaa", "player_counts": [2, 3, 4], "options_schema": {}}]
        assert hits == ["/v1/game-types"]
        uncached = HttpGames(url, timeout=2, game_types_ttl=0)
        assert uncached.game_types() is not None and len(hits) == 2
        assert uncached.game_types() is None and len(hits) == 3  # the games service answered 503
        assert uncached.game_types() is not None and len(hits) == 4  # asked again, not a cached failure
    finally:
        server.shutdown()
