"""The in-process question provider for self-play: the question service's own drawing code
(``shared.cityhopper.provider.draw_for_request``) over the bundled sample pack, with the
estimate routing. Questions get an opaque id from a hash of the request (in-process self-play has
no secret to keep; the question service uses random ids)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from services.games.engines.base import ExternalRequest
from shared.cityhopper.provider import draw_for_request
from shared.cityhopper.questions import sample_pack
from shared.cityhopper.roads import default_routing


def selfplay_provider() -> Callable[[ExternalRequest], dict[str, Any]]:
    bank = sample_pack().served()
    routing = default_routing()

    def provide(request: ExternalRequest) -> dict[str, Any]:
        body = {"game_id": "selfplay", "request_no": request.request_no, **dict(request.params)}
        digest = hashlib.sha256(f"selfplay/{request.request_no}/{request.params.get('selector')}".encode())
        reply = draw_for_request(bank, body, routing, question_id=digest.hexdigest()[:32])
        return {"question": reply["question"], "generated": reply["generated"], "reason": reply["reason"]}

    return provide
