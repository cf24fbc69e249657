"""CH 3.3 after the end: a finished CityHopper game keeps its spec's secrets (issue 14 item 13). End cities
that were never bought as end cities (CH-38) or played away (CH-43) stay with their holder, for spectators
and the other seats alike; the games service reads ``everything_public_after_end`` for that policy."""

from __future__ import annotations

from services.games.domain.play import replay
from services.games.service_layer.selfplay import SelfPlayReport, play_one

from .helpers import E, config


def test_CH_3_3_unrevealed_end_cities_stay_secret_after_the_end() -> None:
    assert E.everything_public_after_end is False
    hidden_seen = 0
    for n in (3, 4):
        cfg = config(n)
        for seed in range(1, 6):
            report = SelfPlayReport()
            log = play_one(E, cfg, seed, report, check_every_event=False, provider=E.selfplay_provider())
            assert report.ok, report.failures
            final = replay(E, cfg, log).state
            assert E.outcome(final) is not None
            for holder in final.players:
                unrevealed = [c for c in holder.end_cards if not c.public]
                own = {e["city"] for e in E.view(final, holder.seat)["players"][holder.seat]["end_cities"]}
                assert {c.city for c in unrevealed} <= own  # the holder still sees its own
                for viewer in [None, *(p.seat for p in final.players if p.seat != holder.seat)]:
                    secret = {c.city for c in unrevealed if viewer not in c.known}
                    hidden_seen += len(secret)
                    shown = E.view(final, viewer)["players"][holder.seat]["end_cities"]
                    assert not secret & {e["city"] for e in shown}, (n, seed, viewer)
    assert hidden_seen > 0  # the games did end with secrets left to keep
