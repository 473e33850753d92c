"""The server's tables by id, within a lifetime and a memory budget (docs/web.md, "Limits").

* A table nobody has asked about for ``idle_seconds`` is dropped; a finished game after
  ``finished_seconds``. A table whose agent is thinking is in use and stays.
* The tables' :meth:`~hot_envs.web.tables.Table.memory_estimate` add up to at most
  ``memory_bytes``, and there are at most ``max_tables``. To make room for a new table the store
  drops finished games, least recently used first — never a game still being played. When that
  is not enough, the new table is refused: :class:`StoreFull` (HTTP 503, with the seconds until
  the next table expires as ``Retry-After``).
* One client (an address) keeps at most ``max_tables_per_client`` tables: past that its own
  finished games make room, else :class:`ClientFull` (HTTP 429), so that one client cannot fill
  the server for everyone.

Adding or using a table costs O(1), whatever the number of tables: the store keeps them in order
of last use (all live tables share one lifetime, all finished games another, so the oldest of
each is the next to expire), a running total of their estimates and each client's tables.
:meth:`TableStore.note` counts a table again after a request changed it (its moves, whether it
is over).

``clock`` (``time.monotonic`` by default) is injectable so tests can let hours pass at once.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from hot_envs.web.tables import RequestError, Table, short

IDLE_SECONDS = 3600.0  # a table unused for an hour is dropped
FINISHED_SECONDS = 600.0  # a finished game ten minutes after its last request
MEMORY_BYTES = 256 * 2**20
MAX_TABLES = 5000
MAX_TABLES_PER_CLIENT = 100  # a person plays a few games at once; a program a few dozen


class StoreFull(RequestError):
    """No room for another table; ``retry_after`` seconds until one expires."""

    def __init__(self, message: str, retry_after: int, status: int = 503) -> None:
        super().__init__(status, message)
        self.retry_after = retry_after


class ClientFull(StoreFull):
    """The client keeps as many tables as one client may (HTTP 429)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, retry_after, status=429)


class TableStore:
    """Tables by id (random, unguessable), within the limits of the module docstring."""

    def __init__(
        self,
        max_tables: int = MAX_TABLES,
        memory_bytes: int = MEMORY_BYTES,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_tables_per_client: int = MAX_TABLES_PER_CLIENT,
    ) -> None:
        limits = (max_tables, memory_bytes, idle_seconds, finished_seconds, max_tables_per_client)
        if min(limits) <= 0:
            raise ValueError("the store's limits and lifetimes must be positive")
        self.max_tables, self.memory_bytes = max_tables, memory_bytes
        self.idle_seconds, self.finished_seconds = idle_seconds, finished_seconds
        self.max_tables_per_client = max_tables_per_client
        self.clock = clock
        self._tables: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self._finished: OrderedDict[str, None] = OrderedDict()  # the finished ones, likewise
        self._used: dict[str, float] = {}
        self._counted: dict[str, int] = {}  # each table's estimate as last counted
        self._memory = 0
        self._owner: dict[str, str] = {}
        self._clients: dict[str, OrderedDict[str, None]] = {}  # each client's tables, by use
        self._lock = threading.Lock()

    def add(self, table: Table, client: str | None = None) -> str:
        """Keep ``table`` for ``client`` (None: the server's own, not counted against a client);
        its new id. :class:`ClientFull` or :class:`StoreFull` if there is no room for it."""
        need = table.memory_estimate()
        with self._lock:
            now = self.clock()
            self._expire(now)
            if client is not None:
                self._make_room_for(client, now)
            while len(self._tables) >= self.max_tables or self._memory + need > self.memory_bytes:
                if not self._finished:
                    raise StoreFull(
                        f"the server is full: {len(self._tables)} games in play hold about "
                        f"{self._memory / 2**20:.0f} of its {self.memory_bytes / 2**20:.0f} MiB "
                        f"(this one needs {need / 2**10:.0f} KiB, at most {self.max_tables} "
                        f"games); an unused game is dropped after {self.idle_seconds / 60:g} "
                        "minutes — try again later",
                        self._retry_after(now),
                    )
                self._drop(next(iter(self._finished)))
            table_id = secrets.token_urlsafe(9)  # random, unguessable: 72 bits
            self._tables[table_id] = table
            self._counted[table_id] = 0
            if client is not None:
                self._owner[table_id] = client
                self._clients.setdefault(client, OrderedDict())[table_id] = None
            self._touch(table_id, table, now)
        return table_id

    def get(self, table_id: str) -> Table:
        """The table ``table_id`` (now its last use); a 404 if there is none or it expired."""
        with self._lock:
            now = self.clock()
            table = self._tables.get(table_id)
            if table is not None and not table.thinking and self._outlived(table_id, table, now):
                self._drop(table_id)
                table = None
            if table is None:
                raise RequestError(
                    404,
                    f"no game {short(table_id)} on this server (it may have ended: tables are "
                    f"kept {self.idle_seconds / 60:g} minutes after their last move, finished "
                    f"games {self.finished_seconds / 60:g})",
                )
            self._touch(table_id, table, now)
            return table

    def note(self, table_id: str) -> None:
        """A request to ``table_id`` has ended: count its memory again, and whether it is over."""
        with self._lock:
            table = self._tables.get(table_id)
            if table is not None:
                self._touch(table_id, table, self.clock())

    def memory(self) -> int:
        """The estimated bytes of the tables kept (as last counted: at their last request)."""
        return self._memory

    def __len__(self) -> int:
        return len(self._tables)

    def _touch(self, table_id: str, table: Table, now: float) -> None:
        """``table_id`` is used now: last in the orders of use, counted anew."""
        self._tables.move_to_end(table_id)
        self._used[table_id] = now
        estimate = table.memory_estimate()
        self._memory += estimate - self._counted[table_id]
        self._counted[table_id] = estimate
        if table.over:
            self._finished[table_id] = None
            self._finished.move_to_end(table_id)
        client = self._owner.get(table_id)
        if client is not None:
            self._clients[client].move_to_end(table_id)

    def _outlived(self, table_id: str, table: Table, now: float) -> bool:
        """Unused for longer than its lifetime (a finished game's or a live table's)."""
        lifetime = self.finished_seconds if table.over else self.idle_seconds
        return now - self._used[table_id] > lifetime

    def _expire(self, now: float) -> None:
        """Drop the expired tables. The least recently used of each lifetime come first, so this
        stops at the first that stays: it looks at no other (but one whose agent is thinking,
        which is in use and goes to the end)."""
        for order in (self._finished, self._tables):
            while order:
                table_id = next(iter(order))
                table = self._tables[table_id]
                if not self._outlived(table_id, table, now):
                    break
                if table.thinking:
                    self._touch(table_id, table, now)
                else:
                    self._drop(table_id)

    def _make_room_for(self, client: str, now: float) -> None:
        """Below the client's cap, by dropping its finished games if need be; else ClientFull.
        Looks at the client's tables only (at most the cap)."""
        mine = self._clients.get(client, {})
        if len(mine) < self.max_tables_per_client:
            return
        for table_id in [i for i in mine if self._tables[i].over]:
            self._drop(table_id)
            if len(mine) < self.max_tables_per_client:
                return
        soonest = min(self._used[i] for i in mine) + self.idle_seconds
        raise ClientFull(
            f"you keep {len(mine)} games on this server, as many as one client may: finish or "
            f"leave one (an unused game is dropped after {self.idle_seconds / 60:g} minutes)",
            max(1, math.ceil(soonest - now)),
        )

    def _drop(self, table_id: str) -> Table:
        del self._used[table_id]
        self._memory -= self._counted.pop(table_id)
        self._finished.pop(table_id, None)
        client = self._owner.pop(table_id, None)
        if client is not None:
            mine = self._clients[client]
            del mine[table_id]
            if not mine:
                del self._clients[client]
        return self._tables.pop(table_id)

    def _retry_after(self, now: float) -> int:
        """Seconds until the next table may expire (at least 1): the least recently used live
        table's or finished game's end, whichever comes first (a lower bound)."""
        ends = []
        if self._tables:
            ends.append(self._used[next(iter(self._tables))] + self.idle_seconds)
        if self._finished:
            ends.append(self._used[next(iter(self._finished))] + self.finished_seconds)
        return max(1, math.ceil(min(ends, default=now + 1) - now))
