"""Bounds for integers a client sends: every one has a minimum and a maximum (stated in OpenAPI), so an
offset of 2**63 is a 422 naming the field instead of a PostgreSQL ``NumericValueOutOfRange``."""

from __future__ import annotations

from marshmallow import validate

MAX_INT = 2**31 - 1  # PostgreSQL integer; larger than any count, version or offset Speltafel reaches


def bounded(minimum: int = 0, maximum: int = MAX_INT) -> validate.Range:
    return validate.Range(minimum, maximum)
