"""The Heiße Luft main job's PPO steps in its time limit, against the same job at an earlier commit.

Runs ``hot-envs train heisse-luft`` — the README's main job, each tree with its own config
(``training/configs/heisse_luft.toml``: its PPO settings are part of what is measured) — from
today's tree and from commit ``BEFORE`` (its ``hot_envs``, ``training`` and ``checkpoints``
taken from git into a temporary folder and imported from there, as an installed package lays
them out), one after the other, round by round in alternating order, and reads each run's PPO
steps from its ``final.json``. Only what does not touch learning is cut for the measurement:
fewer cloned decisions and smaller final tables (``--bc-decisions``, ``--eval-games``); the PPO
phase is the config's, ``--time-limit`` seconds of it (the main job's 300 by default). The
ratio is the median of the rounds' ratios;
steps per wall-clock second depend on what else the machine runs, so run it on an idle one.

    python benchmarks/main_job_speed.py [--rounds 1] [--time-limit 300] [--out DIR]

Prints the table and writes ``main_job_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
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

TARGET = 2.0
CONFIG = REPOSITORY / "training" / "configs" / "heisse_luft.toml"


def measured_config(config: Path, folder: Path, bc_decisions: int, eval_games: int) -> Path:
    """The main job's ``config`` with the cloning and the final tables cut (not the PPO)."""
    text = config.read_text(encoding="utf-8")
    for key, value in (
        ("bc_decisions", bc_decisions),
        ("final_eval_games", eval_games),
        ("held_out_games", 0),
        ("eval_games", eval_games),
    ):
        text = re.sub(rf"(?m)^{key} = [0-9_]+", f"{key} = {value}", text)
    path = folder / "heisse_luft_measured.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_job(tree: Path | None, config: Path, seconds: int, out: Path) -> int:
    """One main job from ``tree`` (``None``: today's); its PPO steps."""
    command = ["-m", "hot_envs.cli", "train", "heisse-luft", "--config", str(config)]
    run_on(tree, [*command, "--time-limit", str(seconds), "--out", str(out), "--no-progress"])
    return int(json.loads((out / "final.json").read_text(encoding="utf-8"))["training"]["steps"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--time-limit", type=int, default=300, help="seconds of PPO")
    parser.add_argument("--bc-decisions", type=int, default=5_000)
    parser.add_argument("--eval-games", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    args = parser.parse_args(argv)

    from tqdm import tqdm

    with (
        earlier_tree(inside=("training", "checkpoints")) as before,
        tempfile.TemporaryDirectory() as tmp,
        tqdm(total=2 * args.rounds, desc="main jobs", unit="run") as bar,
    ):
        folder = Path(tmp)
        configs = {
            "now": measured_config(CONFIG, folder / "now", args.bc_decisions, args.eval_games),
            "before": measured_config(
                before / "hot_envs" / CONFIG.relative_to(REPOSITORY),
                folder / "before",
                args.bc_decisions,
                args.eval_games,
            ),
        }

        def measure(which: str, r: int) -> float:
            tree = before if which == "before" else None
            return run_job(tree, configs[which], args.time_limit, folder / f"{which}{r}")

        row = take_turns(args.rounds, measure, bar)
    row["case"] = f"{args.rounds} round(s)"
    columns = (f"Heiße Luft main job, PPO steps in {args.time_limit} s", f"at {BEFORE}", "now")
    table = ratio_table(columns, [row], TARGET)
    print(table)
    write_results(args.out, "main_job_speed", table, [row], time_limit=args.time_limit)


if __name__ == "__main__":
    main()
