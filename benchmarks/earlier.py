"""What the benchmarks against an earlier commit share: that commit's package from git in a
temporary folder, a measurement in a fresh process on one tree or the other, the two taking
turns round by round, and the results written beside the others."""

from __future__ import annotations

import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[1]
BEFORE = "6a115e4"  # main before the array engines (hot_envs.batched)


@contextmanager
def earlier_tree(commit: str = BEFORE, inside: tuple[str, ...] = ()) -> Iterator[Path]:
    """A folder holding ``hot_envs/`` as it was at ``commit`` — with the top-level folders
    ``inside`` (``training``, ``checkpoints``) moved into it, as an installed package lays
    them out — removed afterwards. Put it first on ``PYTHONPATH`` to import that code.

    Both trees' sources are compiled to bytecode first, as pip does when it installs a package:
    else a process started with ``PYTHONDONTWRITEBYTECODE`` set (as on some CI machines)
    compiles every module it imports, each time, and a command's CPU time counts it."""
    compiled(REPOSITORY / "hot_envs", REPOSITORY / "training", REPOSITORY / "checkpoints")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        archive = subprocess.run(
            ["git", "-C", str(REPOSITORY), "archive", commit, "hot_envs", *inside],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        for part in inside:
            shutil.move(folder / part, folder / "hot_envs" / part)
        compiled(folder / "hot_envs")
        yield folder


def compiled(*folders: Path) -> None:
    """Each folder's Python files compiled to ``__pycache__`` (where not already up to date)."""
    for folder in folders:
        if folder.is_dir():
            compileall.compile_dir(folder, quiet=1)


def run_on(tree: Path | None, command: list[str]) -> str:
    """``command`` (after the interpreter) in a fresh process importing ``hot_envs`` from
    ``tree`` (``None``: today's), numpy's BLAS on one thread; its standard output."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return subprocess.run(
        [sys.executable, *command],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # neither tree's hot_envs from the working folder
    ).stdout


def take_turns(
    rounds: int, measure: Callable[[str, int], float], bar: Any = None
) -> dict[str, Any]:
    """``measure("before", r)`` and ``measure("now", r)`` each round, in alternating order:
    their medians and the median of the rounds' ratios now / before."""
    rates: dict[str, list[float]] = {"before": [], "now": []}
    ratios = []
    for r in range(rounds):
        for which in ("before", "now") if r % 2 == 0 else ("now", "before"):
            rates[which].append(measure(which, r))
            if bar is not None:
                bar.update()
        ratios.append(rates["now"][-1] / rates["before"][-1])
    return {
        "before": statistics.median(rates["before"]),
        "now": statistics.median(rates["now"]),
        "ratio": statistics.median(ratios),
        "ratios": [round(x, 2) for x in ratios],
    }


def ratio_table(columns: tuple[str, str, str], rows: list[dict], target: float) -> str:
    """A markdown table of :func:`take_turns` rows (each with its ``case``): the measure and
    the two paths' names in ``columns``, then the ratio against ``target``."""
    lines = [
        f"| {columns[0]} | {columns[1]} | {columns[2]} | ratio (target ≥ {target:g}×) |",
        "|---|---:|---:|---:|",
    ]
    for row in rows:
        met = "met" if row["ratio"] >= target else "missed"
        lines.append(
            f"| {row['case']} | {row['before']:,.0f} | {row['now']:,.0f} | "
            f"{row['ratio']:.2f}× ({met}) |"
        )
    return "\n".join(lines)


def write_results(out: Path, name: str, table: str, rows: Any, **settings: Any) -> None:
    """``name.md`` (the table) and ``name.json`` (the rows, the machine and ``settings``)."""
    info = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "before": BEFORE,
        **settings,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.md").write_text(table + "\n", encoding="utf-8")
    (out / f"{name}.json").write_text(
        json.dumps({"info": info, "rows": rows}, indent=2) + "\n", encoding="utf-8"
    )
