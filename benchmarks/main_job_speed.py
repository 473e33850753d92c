"""The Heiße Luft main job's PPO steps in its time limit, against the same job at an earlier commit.

Runs ``hot-envs train heisse-luft`` — the README's main job, its own config
(``training/configs/heisse_luft.toml``) — from today's tree and from commit ``BEFORE`` (its
``hot_envs``, ``training`` and ``checkpoints`` taken from git into a temporary folder and
imported from there, as an installed package lays them out), one after the other, round by
round in alternating order, and reads each run's PPO steps from its ``final.json``. Only what
does not touch learning is cut for the measurement: fewer cloned decisions and smaller final
tables (``--bc-decisions``, ``--eval-games``); the PPO phase is the config's, ``--time-limit``
seconds of it (the main job's 300 by default). The ratio is the median of the rounds' ratios;
steps per wall-clock second depend on what else the machine runs, so run it on an idle one.

    python benchmarks/main_job_speed.py [--rounds 1] [--time-limit 300] [--out DIR]

Prints the table and writes ``main_job_speed.{md,json}`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
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
TARGET = 2.0
CONFIG = REPOSITORY / "training" / "configs" / "heisse_luft.toml"


def old_tree(commit: str, folder: Path) -> Path:
    """The package as it was at ``commit``: ``hot_envs/`` with ``training/`` and
    ``checkpoints/`` inside it (``hot_envs.training``, ``hot_envs.checkpoints``), under
    ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", commit, "hot_envs", "training", "checkpoints"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    for part in ("training", "checkpoints"):
        shutil.move(folder / part, folder / "hot_envs" / part)
    return folder


def measured_config(folder: Path, bc_decisions: int, eval_games: int) -> Path:
    """The main job's config with the cloning and the final tables cut (not the PPO)."""
    text = CONFIG.read_text(encoding="utf-8")
    for key, value in (
        ("bc_decisions", bc_decisions),
        ("final_eval_games", eval_games),
        ("held_out_games", 0),
        ("eval_games", eval_games),
    ):
        text = re.sub(rf"(?m)^{key} = [0-9_]+", f"{key} = {value}", text)
    path = folder / "heisse_luft_measured.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_job(python_path: Path | None, config: Path, seconds: int, out: Path) -> dict:
    """One main job; its PPO steps and how long its PPO phase ran."""
    env = {**os.environ}
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    command = [sys.executable, "-m", "hot_envs.cli", "train", "heisse-luft", "--config"]
    command += [str(config), "--time-limit", str(seconds), "--out", str(out), "--no-progress"]
    start = time.monotonic()
    subprocess.run(
        command,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # neither tree's hot_envs from the working folder
        capture_output=True,
    )
    final = json.loads((out / "final.json").read_text(encoding="utf-8"))
    return {"steps": int(final["training"]["steps"]), "wall": time.monotonic() - start}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--time-limit", type=int, default=300, help="seconds of PPO")
    parser.add_argument("--bc-decisions", type=int, default=5_000)
    parser.add_argument("--eval-games", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    args = parser.parse_args(argv)

    from tqdm import tqdm

    steps: dict[str, list[int]] = {"before": [], "now": []}
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        before = old_tree(BEFORE, folder / "before")
        config = measured_config(folder, args.bc_decisions, args.eval_games)
        with tqdm(total=2 * args.rounds, desc="main jobs", unit="run") as bar:
            for r in range(args.rounds):
                for which in ["before", "now"] if r % 2 == 0 else ["now", "before"]:
                    path = before if which == "before" else None
                    result = run_job(path, config, args.time_limit, folder / f"{which}{r}")
                    steps[which].append(result["steps"])
                    bar.update()
                ratios.append(steps["now"][-1] / steps["before"][-1])
    lines = [
        f"| Heiße Luft main job, PPO steps in {args.time_limit} s | at {BEFORE} | now "
        f"| ratio (target ≥ {TARGET:g}×) |",
        "|---|---:|---:|---:|",
        f"| {args.rounds} round(s) | {statistics.median(steps['before']):,.0f} | "
        f"{statistics.median(steps['now']):,.0f} | {statistics.median(ratios):.2f}× "
        f"({'met' if statistics.median(ratios) >= TARGET else 'missed'}) |",
    ]
    table = "\n".join(lines)
    print(table)
    info = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "time_limit": args.time_limit,
        "before": BEFORE,
        "steps": steps,
        "ratios": ratios,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "main_job_speed.md").write_text(table + "\n", encoding="utf-8")
    (args.out / "main_job_speed.json").write_text(json.dumps(info, indent=2) + "\n")


if __name__ == "__main__":
    main()
