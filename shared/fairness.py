"""Provably fair randomness: commit-reveal seeds and a documented derivation of every chance value.

Scheme (version ``speltafel-v1``), re-implementable from this text alone:

* The server draws a secret 32-byte ``server_seed`` and publishes only
  ``commitment = sha256(server_seed).hexdigest()`` when the game is created.
* Each seat may add a ``client_seed`` (1-64 chars of ``[A-Za-z0-9_.-]``) when joining.
* Chance event number ``counter`` (0, 1, 2 ... in log order) draws from the byte stream
  ``block_0 || block_1 || ...`` where
  ``block_i = HMAC-SHA256(key=server_seed,
  msg=game_id || 0x00 || seeds || 0x00 || counter (8 bytes, big-endian) || i (4 bytes, big-endian))``
  and ``seeds`` is the client seeds in seat order joined with ``0x00`` (seats without one: empty).
* The stream is read as unsigned 32-bit big-endian integers. A uniform integer in ``[0, n)``
  takes the next integer ``x`` and rejects it while ``x >= 2**32 - (2**32 % n)`` (no modulo bias),
  then returns ``x % n``.
* ``shuffle(n)``: Fisher-Yates on ``[0, 1, ..., n-1]``: for ``i`` from ``n-1`` down to 1, swap
  positions ``i`` and ``uniform(i + 1)``. ``dice(n, sides)``: ``n`` times ``1 + uniform(sides)``.
  ``pick(n)``: ``[uniform(n)]``.
* When the game ends or is aborted the server seed is revealed in the last event; anyone can then
  check the commitment and re-derive every chance event.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator, Sequence

SCHEME = "speltafel-v1"
CLIENT_SEED_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_RANGE = 1 << 32


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def _stream(server_seed: bytes, game_id: str, client_seeds: Sequence[str], counter: int) -> Iterator[int]:
    prefix = (
        game_id.encode()
        + b"\x00"
        + b"\x00".join(s.encode() for s in client_seeds)
        + b"\x00"
        + counter.to_bytes(8, "big")
    )
    block = 0
    while True:
        digest = hmac.new(server_seed, prefix + block.to_bytes(4, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        block += 1


class _Uniform:
    def __init__(self, words: Iterator[int]) -> None:
        self._words = words

    def below(self, n: int) -> int:
        if n <= 0 or n > _RANGE:
            raise ValueError("n out of range")
        limit = _RANGE - (_RANGE % n)
        while True:
            x = next(self._words)
            if x < limit:
                return x % n


def derive(
    server_seed: bytes,
    game_id: str,
    client_seeds: Sequence[str],
    counter: int,
    kind: str,
    n: int,
    sides: int = 6,
) -> list[int]:
    """The values of chance event ``counter`` (see the module docstring)."""
    uniform = _Uniform(_stream(server_seed, game_id, client_seeds, counter))
    if kind == "shuffle":
        items = list(range(n))
        for i in range(n - 1, 0, -1):
            j = uniform.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items
    if kind == "dice":
        return [1 + uniform.below(sides) for _ in range(n)]
    if kind == "pick":
        return [uniform.below(n)]
    raise ValueError(f"unknown chance kind {kind!r}")
