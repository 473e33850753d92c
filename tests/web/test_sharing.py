"""One client cannot take what the server shares (docs/web.md, "Limits"): the memory of its
search seats, the connections, the threads the slow agents think in."""

from __future__ import annotations

import gc
import http.client
import json
import time
import tracemalloc
from urllib.parse import urlsplit

import pytest

from hot_envs.web.app import create_app
from hot_envs.web.seats import Referee
from hot_envs.web.server import Server
from hot_envs.web.store import TableStore
from hot_envs.web.tables import Table

STRONG = {"game": "heisse-karten", "seats": ["search-strong"] * 2}


def connect(url: str, source: str = "127.0.0.1") -> http.client.HTTPConnection:
    """A connection from ``source``: any 127.x.y.z reaches a server on 127.0.0.1, so one machine
    plays many clients."""
    parts = urlsplit(url)
    return http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=30, source_address=(source, 0)
    )


def call(connection: http.client.HTTPConnection, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body)
    connection.request(method, path, data, {"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def play_a_round(connection: http.client.HTTPConnection) -> str:
    """A new table of STRONG where each seat decides once; its id."""
    status, table = call(connection, "POST", "/api/games", STRONG)
    assert status == 201, table
    for _ in STRONG["seats"]:
        status, snap = call(connection, "POST", f"/api/games/{table['id']}/step")
        assert status == 200, snap
    return table["id"]


def settle(tables: list[Table]) -> None:
    """Wait until no agent of ``tables`` thinks (a search past its cap and grace ends at its
    next batch of rollouts, after its answer was dropped)."""
    for seat in (agent for table in tables for agent in table.agents.values()):
        deadline = time.monotonic() + 30
        while not seat.claim():
            assert time.monotonic() < deadline, "a decision that does not end"
            time.sleep(0.01)
        seat.release()


def held_outside_numba() -> int:
    """Bytes traced now, but numba's: it loads compiled kernels from its cache at their first
    use, once per process, whichever test uses them first."""
    skip = [tracemalloc.Filter(False, f"*/{name}/*") for name in ("numba", "llvmlite")]
    return sum(t.size for t in tracemalloc.take_snapshot().filter_traces(skip).traces)


@pytest.mark.slow  # about 4 s: a whole search-strong decision warms the kernels up
def test_a_search_seat_keeps_no_rollout_arrays_between_decisions():
    """A search-strong seat works in some 10–30 MiB of rollout arrays; the table keeps none of
    it once the decision ends, and what it keeps is within its memory estimate (the store's
    budget adds these up). Decisions are capped at 0.1 s to keep the test short: the arrays are
    made in full before the first rollout, and a decision past the cap lets go of them too."""
    store = TableStore()
    server = Server(create_app(store, referee=Referee(seconds=0.1)), port=0)
    try:
        Table(STRONG["game"], STRONG["seats"], 0).step()  # a whole decision: every import,
        play_a_round(connect(server.url))  # and the server's
        gc.collect()
        tracemalloc.start()
        before = held_outside_numba()
        ids = [play_a_round(connect(server.url)) for _ in range(2)]
        settle([store.get(i) for i in ids])
        gc.collect()
        held = held_outside_numba() - before
        tracemalloc.stop()
        estimate = sum(store.get(i).memory_estimate() for i in ids)
        assert held < estimate, f"the tables hold {held:,} bytes, their estimate {estimate:,}"
    finally:
        tracemalloc.stop()
        server.stop()
