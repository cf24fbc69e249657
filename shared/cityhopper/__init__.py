"""Pure CityHopper core shared by the question/distance service and the game engine.

No I/O at call time except reading this package's bundled ``data/`` files (once, cached), no
clock, no randomness: selections are driven by integer selectors the caller derives from the
game seed (``shared.fairness``).

Modules: ``catalog`` (typed data loaders), ``geo`` (haversine), ``roads`` (routing port, the
estimate backend, OSRM parsing, caching), ``grading`` (``grade``, ``public_question``),
``questions`` (question packs, generated questions, ``draw``) and ``mapsvg`` (``render_map``).
"""

from .catalog import Board, ChanceCard, Constants, Edge, Place, board, chance_cards, constants, place, places
from .errors import (
    CityHopperError,
    DataError,
    GradingError,
    PackError,
    QuestionError,
    RoutingError,
    UnknownPlaceError,
)
from .grading import Grade, grade, public_question
from .mapsvg import render_map
from .questions import DrawResult, QuestionPack, RowError, draw, load_pack, sample_pack, validate_pack
from .roads import CachedRouting, EstimateBackend, OsrmBackend, Route, RoutingBackend, default_routing

__all__ = [
    "Board",
    "CachedRouting",
    "ChanceCard",
    "CityHopperError",
    "Constants",
    "DataError",
    "DrawResult",
    "Edge",
    "EstimateBackend",
    "Grade",
    "GradingError",
    "OsrmBackend",
    "PackError",
    "Place",
    "QuestionError",
    "QuestionPack",
    "Route",
    "RoutingBackend",
    "RoutingError",
    "RowError",
    "UnknownPlaceError",
    "board",
    "chance_cards",
    "constants",
    "default_routing",
    "draw",
    "grade",
    "load_pack",
    "place",
    "places",
    "public_question",
    "render_map",
    "sample_pack",
    "validate_pack",
]
