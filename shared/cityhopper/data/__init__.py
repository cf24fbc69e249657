"""Bundled CityHopper data files (read with ``importlib.resources``; see ``SOURCE.md``)."""
