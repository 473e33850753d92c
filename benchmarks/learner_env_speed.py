"""The learners' batched env against its earlier code, taking turns in one run.

What a training run collects rollouts from: ``VectorSingleAgentEnv`` with the action scorers'
input (``ActionScorerInput``) and the heuristic as every opponent — engine, observations,
masks, action features and the opponents' moves — stepped with uniformly random legal learner
actions and no learning. The reference is the same env at commit ``BEFORE`` (main before the
array engines: per-game ``State`` objects, batched numpy features and heuristic beside them),
its source taken from git into a temporary folder and imported from there, so nothing about it
can drift. Each measurement runs in its own process and counts that process's CPU time (the
core another process holds is not counted); the two take turns round by round, and the ratio is
the median of the rounds' ratios.

    python benchmarks/learner_env_speed.py [--rounds 5] [--seconds 3] [--envs 64] [--out DIR]

Prints the table and writes ``learner_env_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from earlier import (
    BEFORE,
    REPOSITORY,
    earlier_tree,
    ratio_table,
    run_on,
    take_turns,
    write_results,
)

TARGET = 5.0
CASES = [  # (label, game, players)
    ("Heiße Luft", "heisse-luft", None),
    ("Heiße Karten, 2–6 players", "heisse-karten", [2, 3, 4, 5, 6]),
    ("Heiße Karten, 4 players", "heisse-karten", 4),
]


def steps_per_second(spec: dict) -> float:
    """In the worker: learner steps of ``spec["envs"]`` games a CPU second."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import numpy as np

    from hot_envs.envs.vector import VectorSingleAgentEnv

    try:
        from hot_envs.agents.arrays import ActionScorerInput
    except ImportError:  # the earlier tree kept it beside its batched features
        from hot_envs.agents.features_batch import ActionScorerInput

    env = VectorSingleAgentEnv(
        spec["game"],
        num_envs=spec["envs"],
        players=spec["players"],
        opponents=["heuristic"],
        policy_input=ActionScorerInput(spec["game"]),
        seed=spec["seed"],
    )
    env.reset()
    rng = np.random.default_rng(spec["seed"])

    def step() -> None:
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))

    for _ in range(10):  # compile (or load the compiled kernels) before timing
        step()
    steps = 0
    start = time.process_time()
    while time.process_time() - start < spec["seconds"]:
        step()
        steps += spec["envs"]
    return steps / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds a measurement")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    parser.add_argument("--only", choices=["heisse-luft", "heisse-karten"], default=None)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(steps_per_second(json.loads(args.worker)))
        return

    from tqdm import tqdm

    cases = [case for case in CASES if args.only in (None, case[1])]
    rows = []
    with earlier_tree() as before, tqdm(total=len(cases) * args.rounds * 2, unit="run") as bar:
        for label, game, players in cases:

            def measure(which: str, r: int, game: str = game, players: Any = players) -> float:
                spec = {"game": game, "players": players, "envs": args.envs, "seed": r}
                spec["seconds"] = args.seconds
                tree = before if which == "before" else None
                return float(run_on(tree, [__file__, "--worker", json.dumps(spec)]).split()[-1])

            rows.append({"case": label, **take_turns(args.rounds, measure, bar)})
    table = ratio_table(
        (f"learners' env, {args.envs} games, steps/s per core", f"at {BEFORE}", "now"), rows, TARGET
    )
    print(table)
    write_results(
        args.out,
        "learner_env_speed",
        table,
        rows,
        rounds=args.rounds,
        seconds=args.seconds,
        envs=args.envs,
    )


if __name__ == "__main__":
    main()
