"""Version-keyed cache of tables, so a move costs the same at version 10 and 5,000.

Besides each game's newest table it keeps the last few versions (engine states are immutable, so a
kept table costs a few small objects): a reader deriving a seat's copies of the events after version
``v`` (``Reading.events``, the live streams) starts its fold from the table at ``v`` instead of
replaying from the last snapshot."""

from __future__ import annotations

import threading
from collections import OrderedDict

from services.games.domain.table import Table

RECENT = 8  # versions kept per game besides the newest


class TableCache:
    def __init__(self, capacity: int = 2000) -> None:
        self._items: OrderedDict[str, Table] = OrderedDict()
        self._recent: dict[str, OrderedDict[int, Table]] = {}
        self._lock = threading.Lock()
        self._capacity = capacity

    def get(self, game_id: str) -> Table | None:
        with self._lock:
            table = self._items.get(game_id)
            if table is not None:
                self._items.move_to_end(game_id)
            return table.clone() if table is not None else None

    def get_at(self, game_id: str, version: int) -> Table | None:
        """The table at exactly ``version`` if it is the newest or one of the last few kept."""
        with self._lock:
            table = self._items.get(game_id)
            if table is not None and table.version != version:
                recent = self._recent.get(game_id)
                table = recent.get(version) if recent is not None else None
            return table.clone() if table is not None else None

    def put(self, table: Table) -> None:
        with self._lock:
            current = self._items.get(table.game_id)
            if current is not None and current.version > table.version:
                return
            kept = table.clone()
            if current is not None and current.version < table.version:
                recent = self._recent.setdefault(table.game_id, OrderedDict())
                recent[current.version] = current
                while len(recent) > RECENT:
                    recent.popitem(last=False)
            self._items[table.game_id] = kept
            self._items.move_to_end(table.game_id)
            while len(self._items) > self._capacity:
                gone, _ = self._items.popitem(last=False)
                self._recent.pop(gone, None)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._items.pop(game_id, None)
            self._recent.pop(game_id, None)
