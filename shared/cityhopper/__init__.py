"""Pure CityHopper core shared by the question/distance service and the game engine.

No I/O at call time except reading this package's bundled ``data/`` files (once, cached), no
clock, no randomness: selections are driven by integer selectors the caller derives from the
game seed (``shared.fairness``).

Modules: ``catalog`` (typed data loaders), ``geo`` (haversine), ``roads`` (routing port, the
estimate backend, OSRM parsing, caching), ``grading`` (``grade``, ``public_question``),
``questions`` (question packs, generated questions, ``draw``) and ``mapsvg`` (``render_map``).
"""

from .errors import (
    CityHopperError,
    DataError,
    GradingError,
    PackError,
    QuestionError,
    RoutingError,
    UnknownPlaceError,
)

__all__ = [
    "CityHopperError",
    "DataError",
    "GradingError",
    "PackError",
    "QuestionError",
    "RoutingError",
    "UnknownPlaceError",
]
