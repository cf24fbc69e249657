"""WSGI factory for the HTTP benchmark: the games service hosting only the Tally game."""

from __future__ import annotations

from flask import Flask

from bench.support.tally import Tally
from services.games.bootstrap import create_app
from services.games.engines.registry import Registry


def app() -> Flask:
    return create_app(registry=Registry([Tally()]))
