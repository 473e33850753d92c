"""Random play in arrays against the per-game engines of an earlier commit, in one run.

Each row plays whole games with uniformly random legal actions: the reference is the per-game
engine (``State.new``, ``legal_actions``, ``apply``, choices from ``random.Random``, as
``benchmarks/throughput.py`` plays it) *as it was at commit* ``BEFORE`` — its source taken from
git into a temporary folder and imported from there, so nothing about it can drift — and the
new path is :mod:`hot_envs.batched` at ``--games`` games (``sample_legal``, ``step``,
``reset_done``; the numba compile is done before timing). Each measurement runs in its own
process and counts that process's CPU time only, so another process holding the core is not
counted: the figures are actions per second per busy core. The two take turns, round by
round; the table gives each path's median rate and the median of the per-round ratios.

    python benchmarks/batched_speed.py [--rounds 5] [--seconds 2] [--games 1024] [--out DIR]

Prints the table and writes ``batched_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
BEFORE = "6a115e4"  # main before the array engines
TARGET = 10.0
# (label, game, options)
CASES = [
    ("Heiße Luft", "heisse-luft", {}),
    ("Heiße Karten, 2 players", "heisse-karten", {"num_players": 2}),
    ("Heiße Karten, 4 players", "heisse-karten", {"num_players": 4}),
    ("Heiße Karten, 6 players", "heisse-karten", {"num_players": 6}),
]


# -- the two loops, run in a worker process ---------------------------------------------------


def reference_rate(game: str, options: dict, seconds: float, seed: int) -> tuple[int, float]:
    """The per-game engine of ``BEFORE`` (on ``sys.path`` first): actions, CPU seconds."""
    import importlib
    import random

    module = importlib.import_module("hot_envs." + game.replace("-", "_"))
    state_class = module.State
    choose = random.Random(seed).randrange
    game_seed, actions = seed, 0
    start = time.process_time()
    state = state_class.new(seed=game_seed, **options)
    while True:
        if state.is_terminal():
            if time.process_time() - start >= seconds:
                return actions, time.process_time() - start
            game_seed += 1
            state = state_class.new(seed=game_seed, **options)
        legal = state.legal_actions()
        state.apply(legal[choose(len(legal))])
        actions += 1


def batched_rate(
    game: str, options: dict, seconds: float, seed: int, num_games: int
) -> tuple[int, float]:
    """The array engine: actions taken in live games, CPU seconds."""
    import numpy as np

    from hot_envs import batched

    games = batched.make(game, num_games, **options)
    games.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # compile (or load the compiled kernels) before timing
        games.step(games.sample_legal(rng))
        games.reset_done()
    actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(20):
            actions += num_games - int(games.done.sum())
            games.step(games.sample_legal(rng))
            games.reset_done()
    return actions, time.process_time() - start


def worker(spec: dict) -> None:
    if spec["path"] == "reference":
        actions, cpu = reference_rate(spec["game"], spec["options"], spec["seconds"], spec["seed"])
    else:
        actions, cpu = batched_rate(
            spec["game"], spec["options"], spec["seconds"], spec["seed"], spec["games"]
        )
    print(json.dumps({"actions": actions, "cpu": cpu}))


# -- the driver --------------------------------------------------------------------------------


def old_tree(commit: str, folder: Path) -> Path:
    """``hot_envs/`` as it was at ``commit``, unpacked under ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", commit, "hot_envs"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def run_worker(spec: dict, python_path: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(python_path), "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # neither tree's hot_envs from the working folder
    )
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    return measured["actions"] / measured["cpu"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds a measurement")
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    parser.add_argument("--only", choices=["heisse-luft", "heisse-karten"], default=None)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return

    from tqdm import tqdm

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        before = old_tree(BEFORE, Path(tmp))
        with tqdm(
            total=sum(args.only in (None, c[1]) for c in CASES) * args.rounds * 2,
            desc="measuring",
            unit="run",
        ) as bar:
            for label, game, options in CASES:
                if args.only not in (None, game):
                    continue
                rates: dict[str, list[float]] = {"reference": [], "batched": []}
                ratios = []
                for r in range(args.rounds):
                    order = ["reference", "batched"] if r % 2 == 0 else ["batched", "reference"]
                    for path in order:
                        spec = {
                            "path": path,
                            "game": game,
                            "options": options,
                            "seconds": args.seconds,
                            "seed": r,
                            "games": args.games,
                        }
                        rates[path].append(
                            run_worker(spec, before if path == "reference" else REPOSITORY)
                        )
                        bar.update()
                    ratios.append(rates["batched"][-1] / rates["reference"][-1])
                rows.append(
                    {
                        "case": label,
                        "reference": statistics.median(rates["reference"]),
                        "batched": statistics.median(rates["batched"]),
                        "ratio": statistics.median(ratios),
                        "ratios": [round(x, 2) for x in ratios],
                    }
                )
    lines = [
        f"| random play, actions/s per core | `State` at {BEFORE} | arrays, B = {args.games} "
        f"| ratio (target ≥ {TARGET:g}×) |",
        "|---|---:|---:|---:|",
    ]
    for row in rows:
        met = "met" if row["ratio"] >= TARGET else "missed"
        lines.append(
            f"| {row['case']} | {row['reference']:,.0f} | {row['batched']:,.0f} | "
            f"{row['ratio']:.1f}× ({met}) |"
        )
    table = "\n".join(lines)
    print(table)
    info = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "rounds": args.rounds,
        "seconds": args.seconds,
        "games": args.games,
        "before": BEFORE,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "batched_speed.md").write_text(table + "\n", encoding="utf-8")
    (args.out / "batched_speed.json").write_text(
        json.dumps({"info": info, "rows": rows}, indent=2) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
