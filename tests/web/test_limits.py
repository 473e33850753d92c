"""The browser table's limits (docs/web.md, "Limits"): a capped budget per decision that keeps
the server answering, tables that expire and fit a memory budget, shared checkpoint weights."""

from __future__ import annotations

import queue
import random
import threading
import time
import tracemalloc
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from hot_envs.web.app import create_app
from hot_envs.web.seats import Referee
from hot_envs.web.server import Server
from hot_envs.web.store import StoreFull, TableStore
from hot_envs.web.tables import Table
from tests.web.conftest import Client

# The slowest agent a browser may seat: a search of 2 s a decision, its rollouts played to the
# end by the heuristic — four times the cap, however fast its rollouts run.
SLOWEST = "search:2s:heuristic"


class Sleeper:
    """An operator's agent (``--agents``) that cannot be stopped: it thinks, far past the cap,
    until the test wakes it, and then says so."""

    woken = threading.Event()
    answered = queue.SimpleQueue()

    def act(self, observation, view):
        Sleeper.woken.wait(30)
        Sleeper.answered.put(True)
        return view["legal_actions"][0]


SLEEPER = "tests.web.test_limits:Sleeper"


class Gate:
    """An operator's agent that thinks until the test opens the gate: a decision under way for
    as long as a test needs one, however slow the machine."""

    entered = threading.Event()
    opened = threading.Event()

    def act(self, observation, view):
        Gate.entered.set()
        Gate.opened.wait(60)
        return view["legal_actions"][0]


GATE = "tests.web.test_limits:Gate"


@pytest.fixture(scope="module")
def capped():
    """A server whose decisions are capped at 0.5 s, with the sleeper offered."""
    referee = Referee(seconds=0.5, workers=2)
    server = Server(create_app(TableStore(), [SLEEPER], referee=referee), port=0)
    yield Client(server.url)
    server.stop()


@pytest.fixture
def gated():
    """A server that offers the gate, with a cap far above any wait of the tests."""
    Gate.entered.clear()
    Gate.opened.clear()
    server = Server(create_app(TableStore(), [GATE], referee=Referee(seconds=60)), port=0)
    yield Client(server.url)
    Gate.opened.set()
    server.stop()


@pytest.mark.parametrize(
    "spec",
    [
        "search:0.2s:search:0.2s",  # a search inside a search multiplies the budgets
        "search:100:search",
        "search:100:heisse_karten_v0",
        "search:2001",
        "search:2.5s",
        "search:nans",
    ],
)
def test_a_search_that_multiplies_or_exceeds_the_budget_is_refused(client, store, spec):
    before = len(store)
    status, answer = client.call(
        "POST", "/api/games", {"game": "heisse-karten", "seats": ["human", spec]}
    )
    assert (
        status == 400
        and "not offered here" in answer["error"]
        and "2000 rollouts" in answer["error"]
    )
    assert len(store) == before


def test_a_search_with_a_leaf_rollout_within_the_budget_is_offered(client):
    for spec in ("search:2000:heuristic", "search:2s:random", "search:50:heuristic:0.2"):
        client.ok("POST", "/api/games", {"game": "heisse-karten", "seats": ["human", spec]})


def test_the_strong_search_is_offered_by_name_only(client, store):
    assert "search-strong" in client.ok("GET", "/api/agents")["agents"]
    client.ok("POST", "/api/games", {"game": "heisse-luft", "seats": ["human", "search-strong"]})
    before = len(store)
    status, answer = client.call(
        "POST", "/api/games", {"game": "heisse-luft", "seats": ["human", "search-strong:9"]}
    )
    assert status == 400 and "not offered here" in answer["error"] and len(store) == before


def test_a_search_past_the_cap_stops_and_the_heuristic_moves(capped):
    snap = capped.ok("POST", "/api/games", {"game": "heisse-luft", "seats": [SLOWEST, "human"]})
    start = time.monotonic()
    snap = capped.ok("POST", f"/api/games/{snap['id']}/step")
    assert time.monotonic() - start < 3.0  # capped at 0.5 s, not the 2 s it would take
    assert snap["log"] == [snap["log"][0]] and snap["log"][0]["timed_out"] is True
    assert snap["to_move"] == 1 and snap["moves"]  # the human's turn: a legal move was played


def test_an_agent_that_cannot_stop_is_left_behind_and_the_table_plays_on(capped):
    Sleeper.woken.clear()
    table = capped.ok("POST", "/api/games", {"game": "heisse-karten", "seats": [SLEEPER] * 2})
    start = time.monotonic()
    try:
        for _ in range(3):  # seat 0, seat 1, then seat 0 again while its first decision runs
            snap = capped.ok("POST", f"/api/games/{table['id']}/step")
    finally:
        Sleeper.woken.set()
    # each of the first two waits the cap and its grace (1 s); the third finds seat 0 still busy
    assert time.monotonic() - start < 4.0
    assert [entry.get("timed_out") for entry in snap["log"]] == [True, True, True]
    for _ in range(2):  # the sleepers wake; their answers come too late and are dropped
        assert Sleeper.answered.get(timeout=30)
    time.sleep(0.2)
    assert capped.ok("GET", f"/api/games/{table['id']}")["step"] == 3


def test_the_pages_answer_at_once_while_the_slowest_agents_think_on_many_tables(capped):
    """Functional bound, not a benchmark: ten tables (five times the pool's workers) have the
    slowest search thinking, 0.5 s a decision, so anything queued behind them would wait 2.5 s;
    the pages and a quick agent's step answer within 1.5 s (room for a busy machine)."""
    tables = [
        capped.ok("POST", "/api/games", {"game": "heisse-luft", "seats": [SLOWEST, SLOWEST]})["id"]
        for _ in range(10)
    ]
    quick = capped.ok("POST", "/api/games", {"game": "heisse-karten", "seats": ["random"] * 2})
    with ThreadPoolExecutor(len(tables)) as pool:
        steps = [pool.submit(capped.ok, "POST", f"/api/games/{t}/step") for t in tables]
        time.sleep(0.2)
        for path in ("/", "/static/app.js", "/api/agents", f"/api/games/{quick['id']}"):
            start = time.monotonic()
            with urllib.request.urlopen(capped.url + path, timeout=10) as response:
                assert response.status == 200
            assert time.monotonic() - start < 1.5, path
        start = time.monotonic()
        capped.ok("POST", f"/api/games/{quick['id']}/step")  # a quick agent does not queue
        assert time.monotonic() - start < 1.5
        assert all(step.result()["step"] == 1 for step in steps)


def test_a_second_step_while_the_agent_thinks_is_refused(gated):
    table = gated.ok("POST", "/api/games", {"game": "heisse-luft", "seats": [GATE, "human"]})
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(gated.ok, "POST", f"/api/games/{table['id']}/step")
        assert Gate.entered.wait(60)  # the first step's decision is under way
        status, answer = gated.call("POST", f"/api/games/{table['id']}/step")
        Gate.opened.set()
        assert first.result(timeout=60)["step"] == 1
    assert status == 409 and "still thinking" in answer["error"]
    assert gated.ok("GET", f"/api/games/{table['id']}")["step"] == 1


def test_checkpoint_seats_share_one_agent_and_its_weights(client, store):
    body = {"game": "heisse-karten", "seats": ["heisse_karten_v0"] * 5 + ["human"]}
    first = store.get(client.ok("POST", "/api/games", body)["id"])
    tracemalloc.start()
    tables = [Table("heisse-karten", body["seats"], seed) for seed in range(10)]
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert held / len(tables) < 200_000  # five seats of a 1 MiB network: no copy per table
    agents = {id(t.agents[s].agent) for t in [first, *tables] for s in range(5)}
    assert len(agents) == 1
    snap = client.ok("POST", f"/api/games/{client.ok('POST', '/api/games', body)['id']}/step")
    assert snap["step"] == 1


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def finished_table(seed: int) -> Table:
    table = Table("heisse-karten", ["random", "random"], seed)
    while not table.over:
        table.step()
    return table


def test_tables_expire_when_idle_and_finished_ones_sooner():
    clock = Clock()
    store = TableStore(idle_seconds=3600, finished_seconds=600, clock=clock)
    live = store.add(Table("heisse-karten", ["human", "random"], 1))
    done = store.add(finished_table(2))
    clock.now += 599
    store.get(done)  # asking about it counts as using it
    clock.now += 601
    with pytest.raises(ValueError, match="finished games 10") as error:
        store.get(done)
    assert error.value.status == 404
    assert store.get(live).mode == "play"  # 1,200 s idle: within the hour
    clock.now += 3601
    with pytest.raises(ValueError, match="kept 60 minutes"):
        store.get(live)
    assert len(store) == 0


def test_a_table_whose_agent_is_thinking_does_not_expire():
    clock = Clock()
    store = TableStore(idle_seconds=60, clock=clock)
    table = Table("heisse-karten", ["random", "human"], 1)
    table_id = store.add(table)
    turn = table.begin_step()
    clock.now += 3600
    assert store.get(table_id) is table
    table.end_step(turn, turn.state.legal_actions()[0])
    clock.now += 61
    with pytest.raises(ValueError, match="no game"):
        store.get(table_id)


def test_past_the_memory_budget_finished_games_go_first_and_a_live_one_never():
    one = Table("heisse-karten", ["human", "random"], 0).memory_estimate()
    clock = Clock()
    store = TableStore(memory_bytes=int(3.5 * one), clock=clock)
    live = [store.add(Table("heisse-karten", ["human", "random"], s)) for s in range(2)]
    done = store.add(finished_table(3))
    newer = store.add(Table("heisse-karten", ["human", "random"], 4))  # the finished one makes room
    with pytest.raises(ValueError, match="no game"):
        store.get(done)
    with pytest.raises(StoreFull, match="the server is full") as full:
        store.add(Table("heisse-karten", ["human", "random"], 5))
    assert full.value.status == 503 and 1 <= full.value.retry_after <= 3600
    assert [store.get(t).mode for t in [*live, newer]] == ["play"] * 3
    clock.now += 3601  # once the live games idle out, there is room again
    store.add(Table("heisse-karten", ["human", "random"], 6))
    assert len(store) == 1


def test_a_full_server_answers_503_with_retry_after(client):
    server = Server(create_app(TableStore(max_tables=2)), port=0)
    try:
        full = Client(server.url)
        body = {"game": "heisse-luft", "seats": ["human", "random"]}
        ids = [full.ok("POST", "/api/games", body)["id"] for _ in range(2)]
        status, answer = full.call("POST", "/api/games", body)
        assert status == 503 and "the server is full" in answer["error"]
        assert int(full.headers["Retry-After"]) > 0
        assert all(full.ok("GET", f"/api/games/{i}")["mode"] == "play" for i in ids)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("heisse-karten", ["human", "heuristic", "random", SLOWEST, "heisse_karten_v0", "random"]),
        ("heisse-luft", ["human", "heuristic"]),
        ("heisse-luft", ["search", "heisse_luft_v0"]),
    ],
)
def test_the_memory_estimate_bounds_what_a_table_holds(game, seats):
    Table(game, seats, 0)  # imports the agents' modules and loads the shared weights
    rng = random.Random(0)
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    tables = [Table(game, seats, seed) for seed in range(20)]
    for table in tables:
        for _ in range(30):
            if table.over:
                break
            table._play(rng.choice(table.state.legal_actions()))  # any seat: no search here
    held = (tracemalloc.get_traced_memory()[0] - before) / len(tables)
    tracemalloc.stop()
    estimate = tables[0].memory_estimate()
    assert held < estimate < 8 * held + 64_000, (held, estimate)
