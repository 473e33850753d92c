"""The test suite's wall time against the suite as it was before it ran on every core, side by
side in one run.

The reference is the repository at commit ``BEFORE`` — the last commit whose ``pytest`` ran the
whole suite in one process — unpacked from git into a temporary folder (``git archive``) and run
there with its own configuration, its own tests and its own package (``PYTHONPATH`` puts that
tree first, so ``import hot_envs`` and the ``hot-envs`` command load the old code). Today's suite
is the README's ``pytest`` in this checkout. Both run in this Python environment, taking turns
(before, now, now, before, …), so a busy hour slows both; the ratio of each pair is reported and
their median is the figure. The target: today's ``pytest`` in at most half the time of the
suite before.

Usage (installs nothing; needs git and the test extra)::

    python benchmarks/suite_speed.py [--rounds 2] [--out benchmarks/results]

A run takes the two suites' time, twice per round: about 10–20 minutes a round on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from tqdm import tqdm

REPOSITORY = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY / "benchmarks" / "results"
BEFORE = "f6c57d1"  # the last commit whose pytest ran in one process
TARGET = 0.5
SUMMARY = re.compile(r"(\d+) passed.* in ([\d.]+)s")


def unpack(commit: str, folder: Path) -> Path:
    """The repository's tree at ``commit``, written under ``folder``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=REPOSITORY, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="tar")
    return folder


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def clear_bytecode(tree: Path) -> None:
    """Remove the ``__pycache__`` folders of ``tree`` (not those of a virtual environment or other
    hidden folder in it): every run starts as a fresh clone does, compiling the sources."""
    for folder, subfolders, _ in os.walk(tree):
        if Path(folder).name == "__pycache__":
            shutil.rmtree(folder)
            subfolders.clear()
        else:
            subfolders[:] = [name for name in subfolders if not name.startswith(".")]


def run_suite(tree: Path) -> dict[str, float | int]:
    """``python -m pytest`` in ``tree`` with that tree's package first on the path, from no
    bytecode (:func:`clear_bytecode`)."""
    clear_bytecode(tree)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    summary = SUMMARY.search((done.stdout.strip().splitlines() or [""])[-1])  # the last line
    if done.returncode != 0 or summary is None:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"the suite in {tree} failed (exit status {done.returncode})")
    return {
        "wall_s": wall,
        "pytest_s": float(summary.group(2)),
        "passed": int(summary.group(1)),
        "cpu_s": children_cpu() - cpu,  # the processes pytest waited for, not daemons it left
    }


def write_results(out: Path, name: str, result: dict, table: str) -> None:
    """Print ``table``; write it to ``out/NAME.md`` and ``result`` to ``out/NAME.json``."""
    print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / f"{name}.md").write_text(table + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs (default 2)")
    parser.add_argument("--before", default=BEFORE, help=f"the reference commit ({BEFORE})")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    runs: list[dict] = []
    ratios: list[float] = []
    with tempfile.TemporaryDirectory(prefix="suite_before_") as folder:
        trees = {"before": unpack(args.before, Path(folder)), "now": REPOSITORY}
        with tqdm(total=2 * args.rounds, desc="suites", unit="suite") as bar:
            for round_ in range(1, args.rounds + 1):
                wall = {}
                for name in ("before", "now") if round_ % 2 else ("now", "before"):
                    bar.set_postfix_str(f"round {round_}: {name}")
                    runs.append({"round": round_, "suite": name, **run_suite(trees[name])})
                    wall[name] = runs[-1]["wall_s"]
                    bar.update()
                ratios.append(wall["now"] / wall["before"])
    ratio = statistics.median(ratios)
    result = {
        "before": args.before,
        "runs": runs,
        "ratios": ratios,
        "median_ratio": ratio,
        "target": TARGET,
        "met": ratio <= TARGET,
        "cpus": os.cpu_count(),
    }

    lines = [
        f"The test suite (`pytest`, install excluded) on {os.cpu_count()} cores, today's against"
        f" commit {args.before} (one process), taking turns:",
        "",
        "| round | suite | tests passed | wall, s | CPU of its processes, s | now / before |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for run in runs:
        share = ""
        if run["suite"] == "now":
            share = f"{ratios[run['round'] - 1]:.2f}"
        lines.append(
            f"| {run['round']} | {run['suite']} | {run['passed']:,} | {run['wall_s']:.1f}"
            f" | {run['cpu_s']:.1f} | {share} |"
        )
    met = "met" if result["met"] else "NOT met"
    lines += ["", f"Median ratio now / before: **{ratio:.2f}** (target ≤ {TARGET}: {met})."]
    write_results(args.out, "suite_speed", result, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
