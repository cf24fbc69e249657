"""CityHopper (rules/cityhopper.md): a race across the Netherlands with questions at every city."""

from .engine import CityHopperEngine

__all__ = ["CityHopperEngine"]
