"""One base URL for every service: a small reverse proxy (``/games/...``, ``/matchmaking/...``,
``/questions/...``, ``/ratings/...``, the prefixes of docker-compose's nginx) that also serves the four
OpenAPI documents combined into one. It imports no service; it only talks to them over HTTP."""
