"""Fixtures of the questions service tests: the app over the real test PostgreSQL and Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from services.questions.bootstrap import create_app
from services.questions.config import RoutingConfig
from shared.config import Settings
from shared.web.closing import close_app

ADMIN = "test-admin-token"
AUTH = {"Authorization": f"Bearer {ADMIN}"}





def settings_for(database_url: str, redis_url: str) -> Settings:
    base = Settings.from_env()
    return Settings(database_url, redis_url, ADMIN, "127.0.0.1", 0, base.ports, "WARNING")


@pytest.fixture
def app(database_url: str, redis_url: str) -> Iterator[Flask]:
    app = create_app(settings_for(database_url, redis_url), RoutingConfig())
    yield app
    close_app(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def photo(name: str) -> dict[str, str]:
    return {"src": f"https://example.org/{name}.jpg", "licence": "CC-BY-4.0", "attribution": f"Foto {name}"}


def club_pack(pack_id: str = "club-test") -> dict[str, Any]:
    """A pack with every bank category: photos and mayors (with photos), inhabitants, a fact, a flag."""
    return {
        "pack": {
            "id": pack_id,
            "version": "2024-05",
            "title": "Clubvragen, met \"aanhalingstekens\", en komma's",
            "licence": "CC-BY-4.0",
            "attribution": "Spelclub Test",
            "sample": False,
        },
        "questions": [
            {
                "id": "photos:leiden",
                "category": "CITY_PHOTOS",
                "city": "leiden",
                "prompt": "Welke foto is van Leiden?",
                "options": [
                    {"id": "a", "text": "", "city": "haarlem", "media": photo("haarlem")},
                    {"id": "b", "text": "", "city": "leiden", "media": photo("leiden")},
                    {"id": "c", "text": "", "city": "delft", "media": {**photo("delft"), "src": "photos/delft.jpg"}},
                ],
                "answer": "b",
            },
            {
                "id": "mayor:leiden",
                "category": "MAYOR",
                "city": "leiden",
                "prompt": "Wie is de burgemeester van Leiden?",
                "options": [
                    {"id": "m1", "text": "Burgemeester Een", "city": "leiden", "media": photo("m1")},
                    {"id": "m2", "text": "Burgemeester Twee", "city": "gouda", "media": photo("m2")},
                    {"id": "m3", "text": "Burgemeester Drie", "city": "alkmaar", "media": photo("m3")},
                ],
                "answer": "m1",
            },
            {
                "id": "inh:leiden",
                "category": "INHABITANTS",
                "city": "leiden",
                "prompt": "Hoeveel inwoners heeft Leiden?",
                "options": [
                    {"id": "x", "text": "ca. 50.000"},
                    {"id": "y", "text": "ca. 125.000"},
                    {"id": "z", "text": "ca. 300.000"},
                ],
                "answer": "y",
                "number": 125000,
                "info": "Leiden heeft ongeveer 125.000 inwoners.",
            },
            {
                "id": "facts:leiden:1",
                "category": "FACTS",
                "city": "leiden",
                "format": "choice",
                "prompt": "Welke universiteit is de oudste van Nederland?",
                "options": [{"id": "l", "text": "Leiden"}, {"id": "u", "text": "Utrecht"}],
                "answer": "l",
                "info": "De Universiteit Leiden is in 1575 gesticht.",
            },
            {
                "id": "flag:leiden",
                "category": "FLAG",
                "city": "leiden",
                "prompt": "Noem twee kleuren van de vlag van Leiden.",
                "colours": ["rood", "wit"],
                "media": photo("vlag-leiden"),
                "info": "De vlag van Leiden is rood-wit.",
            },
        ],
    }
