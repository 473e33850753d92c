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

writes benchmarks/results/web_load.{json,md,png}.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import subprocess
import sys
import threading
import time
from collections import defaultdict
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


def run(args: argparse.Namespace) -> dict:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(args.finished_seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        return drive(args, url, server.pid)
    finally:
        server.terminate()
        server.wait(10)


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


def report(result: dict, out: Path) -> str:
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
    lines += [
        "",
        f"Server memory (RSS): {memory[0, 1]:.0f} MiB at the start, {warm.min():.0f}–"
        f"{warm.max():.0f} MiB after the first quarter, {memory[-1, 1]:.0f} MiB at the end "
        f"(finished games kept {result['finished_seconds']:g} s).",
        f"Games: {result['games']}",
    ]
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "web_load.md").write_text(text)
    (out / "web_load.json").write_text(json.dumps(result, indent=1) + "\n")
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
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="finished games to play")
    parser.add_argument("--lanes", type=int, default=24, help="clients playing the mix")
    parser.add_argument("--slow-lanes", type=int, default=2, help=f"clients playing {SLOWEST}")
    parser.add_argument("--finished-seconds", type=float, default=20.0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    print(report(run(args), args.out))


if __name__ == "__main__":
    main()
