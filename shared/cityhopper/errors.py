"""The package's exceptions. Every error raised on purpose derives from ``CityHopperError``."""

from __future__ import annotations


class CityHopperError(Exception):
    """Root of every error this package raises on purpose."""


class DataError(CityHopperError):
    """A bundled data file is missing or does not have the expected shape."""


class UnknownPlaceError(CityHopperError):
    """A place id that is not one of the 82 places of ``cities.json``."""

    def __init__(self, place_id: str) -> None:
        super().__init__(f"unknown place id: {place_id!r}")
        self.place_id = place_id


class RoutingError(CityHopperError):
    """A route could not be computed or a routing response could not be read."""


class QuestionError(CityHopperError):
    """A question dict does not have the documented shape (a bug or a bad pack, not a bad answer)."""


class GradingError(CityHopperError):
    """An answer payload that cannot be graded; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class PackError(CityHopperError):
    """A question pack that failed validation; ``errors`` lists every problem (nothing was imported)."""

    def __init__(self, errors: list[object]) -> None:
        super().__init__(f"question pack has {len(errors)} error(s): " + "; ".join(map(str, errors[:5])))
        self.errors = errors
