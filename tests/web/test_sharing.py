"""One client cannot take what the server shares (docs/web.md, "Limits"): the memory of its
search seats, the connections, the threads the slow agents think in."""

from __future__ import annotations

import gc
import http.client
import json
import socket
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide
from hot_envs.core.games import get_game
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
    data = response.read()
    return response.status, json.loads(data) if data.startswith(b"{") else data  # uvicorn's 503


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


@pytest.mark.slow  # about 5 s: a whole search-strong decision warms the kernels up
def test_a_search_seat_keeps_no_rollout_arrays_between_decisions():
    """A search-strong seat works in several MiB of rollout arrays (up to some 30 MiB); the
    table keeps none of it once the decision ends: two tables whose seats have each decided
    hold well under 1 MiB (they held 17–31 MiB). Decisions are capped at 0.1 s to keep the
    test short: the arrays are made in full before the first rollout, and a decision past the
    cap lets go of them too."""
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
        assert held < 2**20, f"the tables hold {held:,} bytes"
    finally:
        tracemalloc.stop()
        server.stop()


@pytest.mark.slow  # about 4 s: the search's kernels load at its first decision
def test_the_memory_estimate_counts_what_a_search_seat_keeps():
    """Six search seats that have decided (their prior, rollout agent, last decision's values,
    the stand-in): within the table's estimate, which the store's memory budget adds up."""
    seats = ["search:30"] * 6
    Table("heisse-karten", seats, 0).step()  # imports, compiled kernels
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tables = [Table("heisse-karten", seats, seed) for seed in range(1, 5)]
    for table in tables:
        for _ in seats:  # each seat decides once, and has its stand-in made
            mover = table.state.current_player
            table.agents[mover].stand_in(table.engine, table.state, mover)
            table.step()
    gc.collect()
    held = (tracemalloc.get_traced_memory()[0] - before) / len(tables)
    tracemalloc.stop()
    estimate = tables[0].memory_estimate()
    assert held < estimate < 4 * held, (held, estimate)


@pytest.mark.parametrize("game", ["heisse-karten", "heisse-luft"])
def test_a_search_that_lets_go_of_its_arrays_decides_the_same(game):
    """A seat's search drops its rollout arrays after each decision (SearchAgent.release) and
    makes them again at the next: same seed, same moves as a search that keeps them."""
    engine = get_game(game).engine
    games = []
    for release in (False, True):
        state, moves = engine.State.new(seed=3), []
        agents = [make_agent("search:200", game, 5 + s) for s in range(state.num_players)]
        while not state.is_terminal() and len(moves) < 10:
            seat = state.current_player
            moves.append(decide(agents[seat], engine, state, seat))
            state.apply(moves[-1])
            if release:
                agents[seat].release()
        games.append(moves)
    assert games[0] == games[1]


def open_idle(url: str, count: int, source: str) -> list[socket.socket]:
    """``count`` connections from ``source`` that send nothing."""
    parts = urlsplit(url)
    return [
        socket.create_connection(
            (parts.hostname, parts.port), timeout=5, source_address=(source, 0)
        )
        for _ in range(count)
    ]


def still_open(sockets: list[socket.socket], expected: int, within: float = 5.0) -> int:
    """How many of ``sockets`` the server has not closed, once that is ``expected`` or fewer or
    ``within`` seconds have passed (it closes those it drops at once; the rest is room for a
    busy machine)."""
    deadline = time.monotonic() + within
    while True:
        held = 0
        for sock in sockets:
            sock.setblocking(False)
            try:
                held += sock.recv(1) != b""
            except BlockingIOError:  # nothing to read and not closed: held
                held += 1
            except ConnectionResetError:
                pass
        if held <= expected or time.monotonic() > deadline:
            return held
        time.sleep(0.02)


def answers(url: str) -> int | None:
    """``GET /api/agents``'s status on a new connection, None if the server closes it."""
    try:
        return call(connect(url), "GET", "/api/agents")[0]
    except ConnectionError:  # closed as it was made (http.client.RemoteDisconnected)
        return None


@pytest.fixture
def crowded():
    """A server of 30 connections at once, 5 per address."""
    server = Server(create_app(TableStore()), port=0, max_connections=30, connections_per_client=5)
    yield server
    server.stop()


def test_one_address_cannot_take_every_connection(crowded):
    """One address opens as many idle connections as the server serves: those past its share
    are dropped at once, and another address is served all the while (without the share every
    other client got a 503)."""
    flood = open_idle(crowded.url, 30, "127.0.0.1")
    try:
        assert still_open(flood, 5) == 5
        other = connect(crowded.url, "127.0.0.2")
        assert [call(other, "GET", "/api/agents")[0] for _ in range(10)] == [200] * 10
        more = open_idle(crowded.url, 5, "127.0.0.1")  # still past its share
        assert still_open(more, 0) == 0
        other.close()
        for sock in flood:
            sock.close()
        wait_for(lambda: answers(crowded.url) == 200, 5)  # its share again once they are gone
    finally:
        for sock in flood:
            sock.close()


def test_a_proxy_on_this_machine_is_not_capped_as_one_client():
    """Behind a proxy every client comes from the proxy's address: that one is not capped
    (the proxy bounds its clients), any other address still is."""
    app = create_app(TableStore(), allow_origins=["https://cards.example.org"])
    server = Server(app, port=0, behind_proxy=True, connections_per_client=2)
    proxy, other = open_idle(server.url, 6, "127.0.0.1"), open_idle(server.url, 4, "127.0.0.2")
    try:
        assert still_open(other, 2) == 2  # the proxy's came first: the server has seen them
        assert still_open(proxy, 6) == 6
    finally:
        for sock in proxy + other:
            sock.close()
        server.stop()


def test_the_connections_per_client_must_be_a_positive_int():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="connections per client must be a positive int"):
            Server(create_app(TableStore()), port=0, connections_per_client=bad)


class Held:
    """An operator's agent that thinks until the test opens the gate, noting when it starts."""

    opened = threading.Event()
    order: list[str] = []

    def act(self, observation, view):
        Held.order.append("held")
        Held.opened.wait(30)
        return view["legal_actions"][0]


class Noted:
    """An operator's agent (so it thinks in the pool) that decides at once, noting when."""

    def act(self, observation, view):
        Held.order.append("noted")
        return view["legal_actions"][0]


HELD, NOTED = "tests.web.test_sharing:Held", "tests.web.test_sharing:Noted"


def wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_one_client_with_many_tables_waits_behind_its_own_decisions():
    """Two threads for slow decisions. One address steps six tables at once: two decisions
    run (held until the test lets them go), four wait. Then another address steps one table:
    its decision runs as soon as a thread is free, before the first address's waiting ones
    (first come, first served it ran seventh)."""
    Held.opened.clear()
    Held.order.clear()
    referee = Referee(seconds=30, workers=2)
    server = Server(create_app(TableStore(), [HELD, NOTED], referee=referee), port=0)
    clients = ThreadPoolExecutor(7)
    try:
        body = {"game": "heisse-karten", "seats": [HELD, "human"]}
        tables = [call(connect(server.url), "POST", "/api/games", body)[1]["id"] for _ in range(6)]
        steps = [
            clients.submit(call, connect(server.url), "POST", f"/api/games/{t}/step")
            for t in tables
        ]
        wait_for(lambda: len(Held.order) == 2 and referee.pool.waiting() == 4)
        other = connect(server.url, "127.0.0.2")
        status, table = call(other, "POST", "/api/games", {**body, "seats": [NOTED, "human"]})
        assert status == 201, table
        bystander = clients.submit(call, other, "POST", f"/api/games/{table['id']}/step")
        wait_for(lambda: referee.pool.waiting() == 5)
        Held.opened.set()
        assert bystander.result(30)[0] == 200
        assert all(step.result(30)[0] == 200 for step in steps)
        assert Held.order.index("noted") <= 3, Held.order  # third, or fourth on a tie
    finally:
        Held.opened.set()
        clients.shutdown()
        server.stop()
