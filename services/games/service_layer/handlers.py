"""Use cases of the games service. Each command runs in one unit of work: read the table, let the
engine decide, write events, read model, per-viewer event copies and outbox rows in one transaction
(``core.ServiceCore._commit``). The queries are in ``reading``, the commands that fill a table in
``seating``, the commands on a running game in ``moves``, the clocks (deadlines, timeouts) in ``clocks``."""

from __future__ import annotations

from services.games.domain.play import Progress
from services.games.service_layer.clocks import Clocks
from services.games.service_layer.core import SPECTATOR, BotAccounts, Pending, Publisher
from services.games.service_layer.moves import Moves
from services.games.service_layer.reading import Reading
from services.games.service_layer.seating import Seating


class GamesService(Reading, Seating, Moves, Clocks):
    """The games service's use cases (see the modules each part comes from)."""


__all__ = ["SPECTATOR", "BotAccounts", "GamesService", "Pending", "Progress", "Publisher"]
