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
