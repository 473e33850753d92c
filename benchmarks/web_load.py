"""Load on the browser table: many whole games through the HTTP API at once, mixed agents.

The server runs in its own process (``hot-envs serve`` as the library starts it, with finished
games kept ``--finished-seconds`` instead of ten minutes so the steady state shows within the
run). ``--lanes`` client threads each play games one after another over a keep-alive connection
— random legal moves for the human seat, ``step`` for the agents — drawn from a mix of quick
agents (random, heuristic, the shipped checkpoints, a small search); ``--slow-lanes`` more
threads play the slowest agent a browser may seat the whole time. Every game starts with
``GET /``, as a browser would. The run ends when ``--games`` games have finished (a slow
lane's game still running then is left, and counted apart).

Reports the latency of each kind of request (p50 / p99 / max), the errors (any answer that is
not 2xx), and the server's resident memory sampled every second::

    python benchmarks/web_load.py                 # 1,000 games (883 s on 2 busy cores)
    python benchmarks/web_load.py --games 100     # a quick look
    python benchmarks/web_load.py --games 0 --abuse   # only the abuse phases (about 6 minutes)
    python benchmarks/web_load.py --games 0 --abuse --phases idle-connections --earlier 10b4de1

writes benchmarks/results/web_load.{json,md,png} (``--games 0``: web_load_abuse.{json,md};
``--earlier``: with ``_earlier`` added).

``--abuse`` then runs six attacks (``--phases`` picks some), each on a fresh server
(docs/web.md, "Limits"), with the server's memory before, at its peak and after, and the
latency of ``GET /`` from a bystander meanwhile: *fat seats* (seat names of 400 kB and 1 MB, and
the longest allowed, from many addresses until the server is full), *one greedy client* (one
address creating tables as fast as it can, then many addresses filling the server: creating a
table must not slow as they pile up), *slow clients* (hundreds of connections that send half
their headers or half their body and trickle on; the server must drop them at its read
deadlines), *search memory* (six-seat ``search-strong`` tables played to their end: the
server's memory must not keep their searches' arrays), *idle connections* (one address holds
1,000 connections that send nothing, reopening those dropped: everyone else must still be
served) and *many searches* (one address steps 50 six-seat ``search-strong`` tables at once
while another steps a ``search`` table: the second must not wait behind the first's queue).
``--earlier COMMIT`` runs the servers on that commit's ``hot_envs`` (a before / after).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from tqdm import tqdm

SLOWEST = "search:2000:heuristic"  # capped by the server at its per-decision limit
MIX = [  # (game, seats with one "human", weight)
    ("heisse-karten", ["human", "random"], 3),
    ("heisse-karten", ["human", "heuristic", "random"], 3),
    ("heisse-karten", ["human", "heisse_karten_v0", "heisse_karten_v0", "heuristic"], 2),
    ("heisse-karten", ["random", "human", "random", "random", "random", "heuristic"], 1),
    ("heisse-karten", ["human", "search:50"], 1),
    ("heisse-luft", ["human", "heuristic"], 2),
    ("heisse-luft", ["heisse_luft_v0", "human"], 2),
    ("heisse-luft", ["human", "random"], 1),
]
SLOW_GAME = ("heisse-karten", ["human", SLOWEST])
SERVER = """
import sys, time
from hot_envs.web.server import start_server
from hot_envs.web.store import TableStore
server, store = start_server(port=0, store=TableStore(finished_seconds=float(sys.argv[1])))
print(server.url, flush=True)
while True:
    time.sleep(3600)
"""


class Lane:
    """One client: games one after another over one keep-alive connection."""

    def __init__(self, url: str, seed: int, stats: Stats) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
        self.rng, self.stats = random.Random(seed), stats

    def call(self, kind: str, method: str, path: str, body: object = None) -> dict | None:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"}
        start = time.perf_counter()
        self.connection.request(method, path, data, headers)
        response = self.connection.getresponse()
        raw = response.read()
        self.stats.add(kind, time.perf_counter() - start, response.status)
        if response.status >= 300:
            return None
        return json.loads(raw) if raw.startswith((b"{", b"[")) else {}

    def play(self, game: str, seats: list[str], stop: threading.Event) -> str:
        """One game: "finished", "error" or "left" (the run ended first)."""
        self.call("page", "GET", "/")
        snap = self.call("create", "POST", "/api/games", {"game": game, "seats": seats})
        if snap is None:
            return "error"
        table = snap["id"]
        while not snap["over"]:
            if stop.is_set():
                return "left"
            if snap["agent_to_move"]:
                kind = _step_kind(seats[snap["to_move"]])
                snap = self.call(kind, "POST", f"/api/games/{table}/step")
            else:
                action = self.rng.choice(snap["moves"])["action"]
                snap = self.call("move", "POST", f"/api/games/{table}/move", {"action": action})
            if snap is None:
                return "error"
        return "finished"


def _step_kind(spec: str) -> str:
    if spec == SLOWEST:
        return "step (slowest search)"
    return "step (search:50)" if spec.startswith("search") else "step (quick agents)"


class Stats:
    """Latencies by kind of request, errors, finished games (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.games: dict[str, int] = defaultdict(int)

    def add(self, kind: str, seconds: float, status: int) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            if status >= 300:
                self.errors[f"{kind}: {status}"] += 1


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


TREE: Path | None = None  # --earlier: the earlier commit's hot_envs the servers import


@contextlib.contextmanager
def serving(finished_seconds: float = 600.0) -> Iterator[tuple[str, int]]:
    """A fresh server in its own process (on ``TREE``'s hot_envs if set): its URL and process
    id."""
    env = dict(os.environ) if TREE is None else {**os.environ, "PYTHONPATH": str(TREE)}
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(finished_seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),  # neither tree's hot_envs from the working folder
    )
    try:
        yield server.stdout.readline().strip(), server.pid
    finally:
        server.terminate()
        server.wait(10)


def run(args: argparse.Namespace) -> dict:
    result = {}
    if args.games:
        with serving(args.finished_seconds) as (url, pid):
            result = drive(args, url, pid)
    if args.abuse:
        result["abuse"] = [
            phase(name, attack, args.phase_seconds)
            for key, (name, attack) in PHASES.items()
            if key in args.phases
        ]
    return result


# -- abuse ---------------------------------------------------------------------------------------

JSON = {"Content-Type": "application/json"}
LONGEST_SEAT = 200  # hot_envs.web.checks.MAX_SPEC_CHARS


def connect(url: str, source: str) -> http.client.HTTPConnection:
    """A keep-alive connection from ``source`` (any 127.x.y.z reaches a server on 127.0.0.1, so
    one machine plays many clients)."""
    parts = urlsplit(url)
    return http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=60, source_address=(source, 0)
    )


def post(connection: http.client.HTTPConnection, path: str, body: object) -> int:
    connection.request("POST", path, json.dumps(body), JSON)
    response = connection.getresponse()
    response.read()
    return response.status


def call(connection: http.client.HTTPConnection, path: str, body: object = None) -> tuple:
    """``POST path``: the status and the answer (``{}`` if not JSON)."""
    connection.request("POST", path, None if body is None else json.dumps(body), JSON)
    response = connection.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data.startswith(b"{") else {}


def phase(name: str, attack: Callable[[str, int, float], dict], seconds: float) -> dict:
    """``attack`` on a fresh server, the server's memory around it and ``GET /`` meanwhile."""
    with serving() as (url, pid):
        time.sleep(1.0)
        before, peak, pages, stop = rss_mib(pid), [0.0], [], threading.Event()

        def bystander() -> None:
            connection = connect(url, "127.0.9.9")
            while not stop.wait(0.2):
                start = time.perf_counter()
                try:
                    connection.request("GET", "/")
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                except OSError:
                    connection, ok = connect(url, "127.0.9.9"), False
                pages.append((time.perf_counter() - start, ok))
                peak[0] = max(peak[0], rss_mib(pid))

        watcher = threading.Thread(target=bystander)
        watcher.start()
        try:
            outcome = attack(url, pid, seconds)
        finally:
            stop.set()
            watcher.join()
        after = rss_mib(pid)
    latency = np.array([t for t, _ in pages]) * 1000
    return {
        "phase": name,
        "rss_before_mib": before,
        "rss_peak_mib": max(peak[0], after),
        "rss_after_mib": after,
        "page_requests": len(pages),
        "page_failures": sum(not ok for _, ok in pages),
        "page_p50_ms": float(np.percentile(latency, 50)),
        "page_p99_ms": float(np.percentile(latency, 99)),
        "page_max_ms": float(latency.max()),
        **outcome,
    }


def long_seat_record(seats: list[str]) -> dict:
    """A valid record of a 2-player Heiße Karten game with these seat names."""
    from hot_envs.evaluation.records import make_record
    from hot_envs.heisse_karten import State

    rng, state, actions = random.Random(0), State.new(seed=1, num_players=2), []
    while not state.is_terminal():
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    options = {"num_players": 2}
    return make_record("heisse-karten", options, 1, seats, actions, state.returns())


def fat_seats(url: str, pid: int, seconds: float) -> dict:
    """Replays with the longest seat names allowed, from one address after another, until the
    server is full; now and then seat names of 400 kB (a replay) and 1 MB (a live seat)."""
    fat = long_seat_record(["x" * 400_000, "y" * 400_000])
    longest = long_seat_record(["x" * LONGEST_SEAT, "y" * LONGEST_SEAT])
    live = {"game": "heisse-karten", "seats": ["human", "heuristic:0." + "0" * 1_000_000]}
    statuses: dict[str, int] = defaultdict(int)
    lock, end = threading.Lock(), time.monotonic() + seconds

    def client(lane: int) -> None:
        address = 0
        connection = connect(url, f"127.1.{lane}.1")
        rounds = 0
        while time.monotonic() < end:
            rounds += 1
            attempts = [(f"{LONGEST_SEAT}-character seats", "/api/replays", {"record": longest})]
            if rounds % 10 == 1:  # each a megabyte to send and parse: a tenth as often
                attempts += [
                    ("400 kB seats", "/api/replays", {"record": fat}),
                    ("1 MB seat", "/api/games", live),
                ]
            for kind, path, body in attempts:
                status = post(connection, path, body)
                with lock:
                    statuses[f"{kind}: {status}"] += 1
                if status == 429:  # this address has its share: the next one
                    address += 1
                    connection = connect(url, f"127.1.{lane}.{address % 250 + 1}")

    lanes = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for lane in lanes:
        lane.start()
    for lane in lanes:
        lane.join()
    return {"answers": dict(sorted(statuses.items()))}


def greedy_client(url: str, pid: int, seconds: float) -> dict:
    """One address creates live tables as fast as it can; then a newcomer asks for one; then
    many addresses fill the server, timing each new table as the tables pile up."""
    body = {"game": "heisse-karten", "seats": ["human", "random"]}
    statuses: dict[str, int] = defaultdict(int)
    greedy = connect(url, "127.2.0.1")
    end = time.monotonic() + seconds / 2
    while time.monotonic() < end:
        statuses[f"greedy: {post(greedy, '/api/games', body)}"] += 1
    statuses[f"a newcomer: {post(connect(url, '127.2.0.2'), '/api/games', body)}"] += 1
    creations, address, end = [], 0, time.monotonic() + seconds
    connection = connect(url, "127.3.0.1")
    while time.monotonic() < end:
        start = time.perf_counter()
        status = post(connection, "/api/games", body)
        statuses[f"many addresses: {status}"] += 1
        if status == 201:
            creations.append(time.perf_counter() - start)
        elif status == 429:
            address += 1
            connection = connect(url, f"127.3.{address // 250}.{address % 250 + 1}")
        else:
            break  # full (503): the tables are all there
    ms = np.array(creations) * 1000
    return {
        "answers": dict(sorted(statuses.items())),
        "tables": len(creations),
        "create_first_100_ms": float(np.median(ms[:100])),
        "create_last_100_ms": float(np.median(ms[-100:])),
    }


def slow_clients(url: str, pid: int, seconds: float) -> dict:
    """400 connections that send half their headers, 100 that send their headers and half their
    body, 50 from each address (within the connections one client may hold); each trickles a
    byte a second. Counts how many the server drops, and when."""
    parts = urlsplit(url)
    half_headers = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    half_body = (
        b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n{"
    )
    selector, opened = selectors.DefaultSelector(), time.monotonic()
    for k in range(500):
        source = (f"127.4.{k // 50}.1", 0)
        sock = socket.create_connection((parts.hostname, parts.port), source_address=source)
        sock.sendall(half_headers if k < 400 else half_body)
        selector.register(sock, selectors.EVENT_READ, "headers" if k < 400 else "body")
    dropped: dict[str, list[float]] = {"headers": [], "body": []}
    end, trickle = opened + max(seconds, 40.0), opened
    while selector.get_map() and time.monotonic() < end:
        for key, _ in selector.select(timeout=0.2):
            try:
                gone = not key.fileobj.recv(65536)
            except OSError:
                gone = True
            if gone:
                dropped[key.data].append(time.monotonic() - opened)
                selector.unregister(key.fileobj)
                key.fileobj.close()
        if time.monotonic() - trickle >= 1.0:
            trickle = time.monotonic()
            for key in list(selector.get_map().values()):
                with contextlib.suppress(OSError):
                    key.fileobj.send(b"a" if key.data == "headers" else b" ")
    held = len(selector.get_map())
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    return {
        "answers": {f"half {kind}: dropped": len(times) for kind, times in dropped.items()}
        | {"still held at the end": held},
        "dropped_after_s": {
            kind: [round(min(times), 1), round(max(times), 1)] if times else None
            for kind, times in dropped.items()
        },
    }


STRONG_TABLE = {"game": "heisse-karten", "seats": ["search-strong"] * 6}


def play_through(url: str, source: str, body: dict, statuses: dict, lock: threading.Lock) -> None:
    """One table of ``body`` created from ``source`` and stepped to its end."""
    connection = connect(url, source)
    status, snap = call(connection, "/api/games", body)
    while status < 300 and not snap["over"]:
        status, snap = call(connection, f"/api/games/{snap['id']}/step")
    with lock:
        statuses[f"{'finished' if status < 300 else status}"] += 1


def search_memory(url: str, pid: int, seconds: float) -> dict:
    """One six-seat search-strong table played to its end (the warm-up), then four at once,
    from four addresses; the server's memory after each."""
    statuses: dict[str, int] = defaultdict(int)
    lock, start = threading.Lock(), time.monotonic()
    play_through(url, "127.5.0.1", STRONG_TABLE, statuses, lock)
    warm = rss_mib(pid)
    lanes = [
        threading.Thread(
            target=play_through, args=(url, f"127.5.1.{k + 1}", STRONG_TABLE, statuses, lock)
        )
        for k in range(4)
    ]
    for lane in lanes:
        lane.start()
    for lane in lanes:
        lane.join()
    after = rss_mib(pid)
    return {
        "answers": {f"tables {k}": v for k, v in sorted(statuses.items())},
        "rss_warm_mib": warm,
        "rss_tables_mib": after,
        "growth_mib": after - warm,
        "seconds": time.monotonic() - start,
    }


IDLE = 1000  # connections one address holds
RECONNECTS = 1000  # a second at most, once the first IDLE are open (a mass drop refills in 1 s)


def idle_connections(url: str, pid: int, seconds: float) -> dict:
    """One address opens ``IDLE`` connections that send nothing and reopens those the server
    drops (at most ``RECONNECTS`` a second) for ``seconds``."""
    parts = urlsplit(url)
    selector, opened, dropped = selectors.DefaultSelector(), 0, 0

    def open_one() -> None:
        nonlocal opened
        try:
            sock = socket.create_connection(
                (parts.hostname, parts.port), timeout=5, source_address=("127.6.0.1", 0)
            )
        except OSError:
            return
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        opened += 1

    for _ in range(IDLE):
        open_one()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tick = time.monotonic()
        for key, _ in selector.select(timeout=0.1):
            try:
                gone = not key.fileobj.recv(65536)
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                dropped += 1
                selector.unregister(key.fileobj)
                key.fileobj.close()
        for _ in range(min(IDLE - len(selector.get_map()), RECONNECTS // 10)):
            open_one()
        time.sleep(max(0.0, 0.1 - (time.monotonic() - tick)))
    held = len(selector.get_map())
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    return {
        "answers": {"connections opened": opened, "dropped by the server": dropped}
        | {"held at the end": held}
    }


GREEDY_TABLES = 50


def many_searches(url: str, pid: int, seconds: float) -> dict:
    """One address steps ``GREEDY_TABLES`` six-seat search-strong tables at once (a new one as
    each ends); after 5 s another address steps a two-seat ``search`` table (new ones as they
    end) for ``seconds``: the latency of its steps."""
    statuses: dict[str, int] = defaultdict(int)
    lock, stop, steps = threading.Lock(), threading.Event(), []

    def greedy() -> None:
        connection = connect(url, "127.7.0.1")
        while not stop.is_set():
            status, snap = call(connection, "/api/games", STRONG_TABLE)
            while status < 300 and not snap["over"] and not stop.is_set():
                status, snap = call(connection, f"/api/games/{snap['id']}/step")
                with lock:
                    statuses[f"greedy step: {status}"] += 1
            if status >= 300:
                return

    lanes = [threading.Thread(target=greedy) for _ in range(GREEDY_TABLES)]
    for lane in lanes:
        lane.start()
    time.sleep(5.0)
    other = connect(url, "127.7.0.2")
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, snap = call(other, "/api/games", {"game": "heisse-karten", "seats": ["search"] * 2})
        while status < 300 and not snap["over"] and time.monotonic() < end:
            start = time.perf_counter()
            status, snap = call(other, f"/api/games/{snap['id']}/step")
            steps.append(time.perf_counter() - start)
            with lock:
                statuses[f"the other's step: {status}"] += 1
        if status >= 300:
            break
    stop.set()
    for lane in lanes:
        lane.join()
    ms = np.array(steps) * 1000
    return {
        "answers": dict(sorted(statuses.items())),
        "other_steps": len(steps),
        "other_step_p50_ms": float(np.percentile(ms, 50)),
        "other_step_p99_ms": float(np.percentile(ms, 99)),
        "other_step_max_ms": float(ms.max()),
    }


PHASES = {  # --phases: key → (name, attack)
    "fat-seats": ("fat seats", fat_seats),
    "greedy-client": ("one greedy client", greedy_client),
    "slow-clients": ("slow clients", slow_clients),
    "search-memory": ("search memory", search_memory),
    "idle-connections": ("idle connections", idle_connections),
    "many-searches": ("many searches", many_searches),
}


def drive(args: argparse.Namespace, url: str, pid: int) -> dict:
    stats, stop, memory = Stats(), threading.Event(), []
    start = time.perf_counter()
    weights = [w for *_, w in MIX]
    bar = tqdm(total=args.games, desc="games", unit="game")

    def quick_lane(index: int) -> None:
        lane = Lane(url, index, stats)
        while not stop.is_set():
            game, seats, _ = lane.rng.choices(MIX, weights)[0]
            outcome = lane.play(game, seats, stop)
            with stats.lock:
                stats.games[outcome] += 1
                if outcome == "finished":
                    bar.update()
                    if stats.games["finished"] >= args.games:
                        stop.set()

    def slow_lane(index: int) -> None:
        lane = Lane(url, 10_000 + index, stats)
        while not stop.is_set():
            outcome = lane.play(*SLOW_GAME, stop)
            with stats.lock:
                stats.games[f"slowest search: {outcome}"] += 1

    def sample() -> None:
        while not stop.is_set():
            memory.append((time.perf_counter() - start, rss_mib(pid)))
            stop.wait(1.0)

    threads = [threading.Thread(target=sample)]
    threads += [threading.Thread(target=slow_lane, args=(i,)) for i in range(args.slow_lanes)]
    threads += [threading.Thread(target=quick_lane, args=(i,)) for i in range(args.lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bar.close()
    seconds = time.perf_counter() - start
    kinds = {
        kind: {
            "requests": len(values),
            "p50_ms": 1000 * float(np.percentile(values, 50)),
            "p99_ms": 1000 * float(np.percentile(values, 99)),
            "max_ms": 1000 * max(values),
        }
        for kind, values in sorted(stats.latency.items())
    }
    return {
        "games": dict(stats.games),
        "seconds": seconds,
        "lanes": args.lanes,
        "slow_lanes": args.slow_lanes,
        "finished_seconds": args.finished_seconds,
        "requests": sum(k["requests"] for k in kinds.values()),
        "latency": kinds,
        "errors": dict(stats.errors),
        "memory_mib": memory,
    }


def report(result: dict, out: Path, name: str = "web_load") -> str:
    lines = games_report(result) if "latency" in result else []
    if "abuse" in result:
        lines += abuse_report(result["abuse"])
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(text)
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    if "latency" in result:
        plot(result, out)
    return text


def games_report(result: dict) -> list[str]:
    memory = np.array(result["memory_mib"])
    warm = memory[memory[:, 0] >= memory[-1, 0] / 4, 1]  # after the first quarter
    lines = [
        f"{result['games'].get('finished', 0)} games in {result['seconds']:.0f} s "
        f"({result['lanes']} lanes of mixed agents + {result['slow_lanes']} of {SLOWEST}), "
        f"{result['requests']:,} requests, errors: {sum(result['errors'].values())}",
        "",
        "| request | count | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, k in result["latency"].items():
        lines.append(
            f"| {kind} | {k['requests']:,} | {k['p50_ms']:.1f} | {k['p99_ms']:.1f} | "
            f"{k['max_ms']:.0f} |"
        )
    return [
        *lines,
        "",
        f"Server memory (RSS): {memory[0, 1]:.0f} MiB at the start, {warm.min():.0f}–"
        f"{warm.max():.0f} MiB after the first quarter, {memory[-1, 1]:.0f} MiB at the end "
        f"(finished games kept {result['finished_seconds']:g} s).",
        f"Games: {result['games']}",
        "",
    ]


def abuse_report(phases: list[dict]) -> list[str]:
    lines = [
        "| abuse | server RSS before / peak / after MiB | `GET /` p50 / p99 / max ms "
        "(failed) | answers |",
        "|---|---|---|---|",
    ]
    for p in phases:
        answers = ", ".join(f"{k} × {v:,}" for k, v in p["answers"].items())
        lines.append(
            f"| {p['phase']} | {p['rss_before_mib']:.0f} / {p['rss_peak_mib']:.0f} / "
            f"{p['rss_after_mib']:.0f} | {p['page_p50_ms']:.1f} / {p['page_p99_ms']:.1f} / "
            f"{p['page_max_ms']:.0f} ({p['page_failures']} of {p['page_requests']}) | "
            f"{answers} |"
        )
    for p in phases:
        if "create_first_100_ms" in p:
            lines.append(
                f"\nCreating a table, median: {p['create_first_100_ms']:.1f} ms for the first 100, "
                f"{p['create_last_100_ms']:.1f} ms for the last 100 of {p['tables']:,}."
            )
        if "dropped_after_s" in p:
            after = p["dropped_after_s"]
            lines.append(f"\nSlow clients dropped after (first, last) seconds: {after}")
        if "growth_mib" in p:
            lines.append(
                f"\nSearch memory: {p['rss_warm_mib']:.0f} MiB after the warm-up table, "
                f"{p['rss_tables_mib']:.0f} MiB after four more: {p['growth_mib']:+.0f} MiB "
                f"({p['seconds']:.0f} s)."
            )
        if p["phase"] == "idle connections":
            served = 1 - p["page_failures"] / max(1, p["page_requests"])
            lines.append(f"\nIdle connections: the bystander's `GET /` answered 200: {served:.0%}.")
        if "other_steps" in p:
            lines.append(
                f"\nMany searches: the other client's `search` step p50 / p99 / max "
                f"{p['other_step_p50_ms']:.0f} / {p['other_step_p99_ms']:.0f} / "
                f"{p['other_step_max_ms']:.0f} ms over {p['other_steps']} steps."
            )
    return lines


def plot(result: dict, out: Path) -> None:
    memory = np.array(result["memory_mib"])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axis = plt.subplots(figsize=(7, 3.2))
        axis.plot(memory[:, 0], memory[:, 1])
        axis.set(xlabel="seconds", ylabel="server RSS (MiB)", ylim=(0, memory[:, 1].max() * 1.2))
        axis.set_title(f"hot-envs serve under load: {result['games'].get('finished', 0)} games")
        figure.tight_layout()
        figure.savefig(out / "web_load.png", dpi=110)
    except ImportError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="finished games to play")
    parser.add_argument("--lanes", type=int, default=24, help="clients playing the mix")
    parser.add_argument("--slow-lanes", type=int, default=2, help=f"clients playing {SLOWEST}")
    parser.add_argument("--finished-seconds", type=float, default=20.0)
    parser.add_argument("--abuse", action="store_true", help="then the abuse phases")
    parser.add_argument(
        "--phase-seconds", type=float, default=30.0, help="how long each abuse phase attacks"
    )
    parser.add_argument(
        "--phases", nargs="+", choices=list(PHASES), default=list(PHASES), help="abuse phases"
    )
    parser.add_argument(
        "--earlier", metavar="COMMIT", help="run the servers on this commit's hot_envs"
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    global TREE
    name = "web_load" if args.games else "web_load_abuse"
    if args.earlier is None:
        print(report(run(args), args.out, name))
        return
    from earlier import earlier_tree

    with earlier_tree(args.earlier, inside=("checkpoints",)) as TREE:
        result = run(args) | {"commit": args.earlier}
    print(report(result, args.out, f"{name}_earlier"))


if __name__ == "__main__":
    main()
