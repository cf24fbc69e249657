"""Version-keyed cache of tables, so a move costs the same at version 10 and 5,000."""

from __future__ import annotations

import threading
from collections import OrderedDict

from services.games.domain.table import Table


class TableCache:
    def __init__(self, capacity: int = 2000) -> None:
        self._items: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()
        self._capacity = capacity

    def get(self, game_id: str) -> Table | None:
        with self._lock:
            table = self._items.get(game_id)
            if table is not None:
                self._items.move_to_end(game_id)
            return table.clone() if table is not None else None

    def put(self, table: Table) -> None:
        with self._lock:
            current = self._items.get(table.game_id)
            if current is not None and current.version > table.version:
                return
            self._items[table.game_id] = table.clone()
            self._items.move_to_end(table.game_id)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._items.pop(game_id, None)
