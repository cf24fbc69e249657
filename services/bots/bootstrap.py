"""Wires the bots worker (filled in with the worker)."""
