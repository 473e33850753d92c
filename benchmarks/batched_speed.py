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
import time
from pathlib import Path

from earlier import (
    BEFORE,
    REPOSITORY,
    earlier_tree,
    ratio_table,
    run_on,
    take_turns,
    write_results,
)

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
    if spec["path"] == "before":
        actions, cpu = reference_rate(spec["game"], spec["options"], spec["seconds"], spec["seed"])
    else:
        actions, cpu = batched_rate(
            spec["game"], spec["options"], spec["seconds"], spec["seed"], spec["games"]
        )
    print(json.dumps({"actions": actions, "cpu": cpu}))


# -- the driver --------------------------------------------------------------------------------


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

    cases = [case for case in CASES if args.only in (None, case[1])]
    rows = []
    with earlier_tree() as before, tqdm(total=len(cases) * args.rounds * 2, unit="run") as bar:
        for label, game, options in cases:

            def measure(which: str, r: int, game: str = game, options: dict = options) -> float:
                spec = {"path": which, "game": game, "options": options, "seed": r}
                spec |= {"seconds": args.seconds, "games": args.games}
                tree = before if which == "before" else None
                out = run_on(tree, [__file__, "--worker", json.dumps(spec)])
                measured = json.loads(out.strip().splitlines()[-1])
                return measured["actions"] / measured["cpu"]

            rows.append({"case": label, **take_turns(args.rounds, measure, bar)})
    table = ratio_table(
        ("random play, actions/s per core", f"`State` at {BEFORE}", f"arrays, B = {args.games}"),
        rows,
        TARGET,
    )
    print(table)
    write_results(
        args.out,
        "batched_speed",
        table,
        rows,
        rounds=args.rounds,
        seconds=args.seconds,
        games=args.games,
    )


if __name__ == "__main__":
    main()
