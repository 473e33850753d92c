"""The server's tables by id, within a lifetime and a memory budget (docs/web.md, "Limits").

* A table nobody has asked about for ``idle_seconds`` is dropped; a finished game after
  ``finished_seconds``. A table whose agent is thinking is in use and stays.
* The tables' :meth:`~hot_envs.web.tables.Table.memory_estimate` add up to at most
  ``memory_bytes``, and there are at most ``max_tables``. To make room for a new table the store
  drops finished games, least recently used first — never a game still being played. When that
  is not enough, the new table is refused: :class:`StoreFull` (HTTP 503, with the seconds until
  the next table expires as ``Retry-After``).

``clock`` (``time.monotonic`` by default) is injectable so tests can let hours pass at once.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from hot_envs.web.tables import RequestError, Table, new_table_id

IDLE_SECONDS = 3600.0  # a table unused for an hour is dropped
FINISHED_SECONDS = 600.0  # a finished game ten minutes after its last request
MEMORY_BYTES = 256 * 2**20
MAX_TABLES = 5000


class StoreFull(RequestError):
    """No room for another table; ``retry_after`` seconds until one expires."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(503, message)
        self.retry_after = retry_after


class TableStore:
    """Tables by id (random, unguessable), within the limits of the module docstring."""

    def __init__(
        self,
        max_tables: int = MAX_TABLES,
        memory_bytes: int = MEMORY_BYTES,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(max_tables, memory_bytes, idle_seconds, finished_seconds) <= 0:
            raise ValueError("the store's limits and lifetimes must be positive")
        self.max_tables, self.memory_bytes = max_tables, memory_bytes
        self.idle_seconds, self.finished_seconds = idle_seconds, finished_seconds
        self.clock = clock
        self._tables: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, table: Table) -> str:
        """Keep ``table``; its new id. :class:`StoreFull` if there is no room for it."""
        need = table.memory_estimate()
        with self._lock:
            now = self.clock()
            self._expire(now)
            used = self.memory()
            finished = (i for i, t in list(self._tables.items()) if t.over and not t.thinking)
            while len(self._tables) >= self.max_tables or used + need > self.memory_bytes:
                victim = next(finished, None)
                if victim is None:
                    raise StoreFull(self._full_message(used, need), self._retry_after(now))
                used -= self._drop(victim).memory_estimate()
            table_id = new_table_id()
            self._tables[table_id] = table
            self._used[table_id] = now
        return table_id

    def get(self, table_id: str) -> Table:
        """The table ``table_id`` (now its last use); a 404 if there is none or it expired."""
        with self._lock:
            now = self.clock()
            table = self._tables.get(table_id)
            if table is not None and self._expired(table_id, table, now):
                self._drop(table_id)
                table = None
            if table is None:
                raise RequestError(
                    404,
                    f"no game {table_id!r} on this server (it may have ended: tables are kept "
                    f"{self.idle_seconds / 60:g} minutes after their last move, finished games "
                    f"{self.finished_seconds / 60:g})",
                )
            self._tables.move_to_end(table_id)
            self._used[table_id] = now
            return table

    def memory(self) -> int:
        """The estimated bytes of the tables kept."""
        return sum(table.memory_estimate() for table in self._tables.values())

    def __len__(self) -> int:
        return len(self._tables)

    def _expired(self, table_id: str, table: Table, now: float) -> bool:
        if table.thinking:
            return False
        age = now - self._used[table_id]
        return age > (self.finished_seconds if table.over else self.idle_seconds)

    def _expire(self, now: float) -> None:
        for table_id, table in list(self._tables.items()):
            if self._expired(table_id, table, now):
                self._drop(table_id)

    def _drop(self, table_id: str) -> Table:
        del self._used[table_id]
        return self._tables.pop(table_id)

    def _retry_after(self, now: float) -> int:
        """Seconds until the next table may expire (at least 1)."""
        ends = [
            self._used[i] + (self.finished_seconds if t.over else self.idle_seconds)
            for i, t in self._tables.items()
        ]
        return max(1, math.ceil(min(ends, default=now + 1) - now))

    def _full_message(self, used: int, need: int) -> str:
        return (
            f"the server is full: {len(self._tables)} games in play hold about "
            f"{used / 2**20:.0f} of its {self.memory_bytes / 2**20:.0f} MiB (this one needs "
            f"{need / 2**10:.0f} KiB, at most {self.max_tables} games); an unused game is dropped "
            f"after {self.idle_seconds / 60:g} minutes — try again later"
        )
