"""The live-stream notice's encoding (services/games/adapters/notifications.py): the commit's events go
with its version, a notice too big for pub/sub goes as the version alone, and a bare version (what
older writers sent) still parses."""

from __future__ import annotations

from services.games.adapters.notifications import NOTICE_MAX_BYTES, decode_notice, encode_notice


def test_a_notice_carries_its_events_in_the_order_the_store_gives_them_back() -> None:
    rows = [(7, "MoveMade", {"seat": 1, "move": {"type": "roll"}, "at": 2**63}, "h7", "2026-05-01T20:15:00+00:00"),
            (8, "ChanceResolved", {"values": [3], "purpose": "die"}, "h8", None)]
    version, back = decode_notice(encode_notice(8, rows))
    assert version == 8 and back == rows
    assert back is not None and list(back[0][2]) == ["at", "move", "seat"]  # shorter keys first, as jsonb
    assert list(back[1][2]) == ["values", "purpose"]


def test_a_notice_past_the_limit_or_from_an_older_writer_is_the_version_alone() -> None:
    big = [(3, "GameStarted", {"setup": "x" * NOTICE_MAX_BYTES}, "h3", None)]
    assert encode_notice(3, big) == b"3"
    assert decode_notice(b"3") == (3, None) and decode_notice("12") == (12, None)
