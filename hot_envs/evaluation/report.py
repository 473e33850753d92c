"""Show and save arena results: a terminal table (rich), JSON, CSV and a PNG (matplotlib).

``rich``, ``matplotlib`` and ``openskill`` are optional: without them the table is plain text,
and the plot or the ratings are left out with a note.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from hot_envs.evaluation.arena import MatchResult, ratings, win_matrix

RATING = "rating μ ± σ"  # openskill Plackett–Luce; the table and the PNG name the same quantity


def _duration(ms: float) -> str:
    """Time per move in the unit that shows it: ``35 µs``, ``2.4 ms``, ``1.20 s``."""
    if ms < 1:
        return f"{1000 * ms:.0f} µs"
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


# (header, the cell of a summary row); a cell whose value is missing shows "–".
COLUMNS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("agent", lambda row: row["agent"]),
    ("games", lambda row: str(row["games"])),
    ("W", lambda row: str(row["wins"])),
    ("D", lambda row: str(row["draws"])),
    ("L", lambda row: str(row["losses"])),
    ("win share", lambda row: f"{row['win_share']:.1%}"),
    ("95 % CI", lambda row: f"{100 * row['ci_low']:.1f}–{100 * row['ci_high']:.1f} %"),
    ("reward", lambda row: f"{row['mean_reward']:+.3f}"),
    ("length", lambda row: f"{row['mean_length']:.1f}"),
    ("time/move", lambda row: _duration(row["ms_per_decision"])),
    (RATING, lambda row: "–" if row.get("mu") is None else f"{row['mu']:.2f} ± {row['sigma']:.2f}"),
)


def build_report(result: MatchResult) -> dict[str, Any]:
    """Everything worth keeping: per-agent summary, win-rate matrix, ratings and game records.

    Each summary row gets its agent's rating: ``mu`` and ``sigma`` (the table and the PNG show
    μ ± σ) and the conservative ``ordinal`` μ − 3σ."""
    report = result.to_dict()
    report["num_games"] = len(result.records)
    report["matrix"] = win_matrix(result)
    try:
        report["ratings"] = ratings(result)
    except ImportError:
        report["ratings"] = None
        report["note"] = "install openskill for ratings"
    by_name = {r["agent"]: r for r in report["ratings"] or []}
    for row in report["summary"]:
        rating = by_name.get(row["agent"], {})
        row.update({key: rating.get(key) for key in ("mu", "sigma", "ordinal")})
    return report


def print_report(report: dict[str, Any], title: str = "") -> None:
    """The agent table and the win-rate matrix on the terminal."""
    agents = [[header for header, _ in COLUMNS]]
    agents += [[cell(row) for _, cell in COLUMNS] for row in report["summary"]]
    matrix = [["row vs column", *report["agents"]]]
    matrix += [
        [name] + ["–" if v is None else f"{v:.1%}" for v in row]
        for name, row in zip(report["agents"], report["matrix"], strict=True)
    ]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        for line in [*agents, [], *matrix]:
            print("  ".join(f"{cell:>12}" for cell in line))
        return
    console = Console(markup=False, emoji=False)  # agent specs are plain text ("search:100")
    if not console.is_terminal:  # files and pipes: wide enough for every column
        console = Console(markup=False, emoji=False, width=160)
    for name, (headers, *rows) in ((title, agents), ("win share of row against column", matrix)):
        table = Table(title=name or None)
        for i, header in enumerate(headers):
            table.add_column(header, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    if report.get("note"):
        console.print(report["note"])


def check_out_dir(out: str | Path) -> Path:
    """``out`` as a folder results can be written to, made if need be — checked before any game
    is played; ``ValueError`` saying why not."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=out).close()  # a file can be written there
    except OSError as error:
        raise ValueError(f"cannot write results to {str(out)!r}: {error.strerror}") from None
    return out


def save_report(
    report: dict[str, Any], out: str | Path, stem: str = "results", games: bool = True
) -> list[Path]:
    """``STEM.json`` (everything; every game's record unless ``games`` is False), ``STEM.csv``
    (per agent), ``STEM_matrix.csv`` and ``STEM.png`` (heatmap + ratings) in ``out``; returns
    the paths written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.json", out / f"{stem}.csv", out / f"{stem}_matrix.csv"]
    kept = report if games else {k: v for k, v in report.items() if k != "games"}
    paths[0].write_text(json.dumps(kept, indent=1) + "\n")
    with paths[1].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(report["summary"][0]))
        writer.writeheader()
        writer.writerows(report["summary"])
    with paths[2].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["agent", *report["agents"]])
        for name, row in zip(report["agents"], report["matrix"], strict=True):
            writer.writerow([name, *("" if v is None else f"{v:.4f}" for v in row)])
    png = plot_report(report, out / f"{stem}.png")
    return paths + ([png] if png else [])


def pyplot() -> ModuleType | None:
    """matplotlib's pyplot drawing to files (the Agg backend), or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot_report(report: dict[str, Any], path: str | Path) -> Path | None:
    """Win-rate heatmap and ratings bar chart as one PNG; None without matplotlib."""
    plt = pyplot()
    if plt is None:
        return None
    import matplotlib
    import numpy as np

    names = report["agents"]
    matrix = np.array([[np.nan if v is None else v for v in row] for row in report["matrix"]])
    fig, (left, right) = plt.subplots(1, 2, figsize=(5 + 1.6 * len(names), 4.5))
    even = 1 / len(report["lineups"][0])  # 1/N: the win share of equal players
    norm = matplotlib.colors.TwoSlopeNorm(vcenter=even, vmin=0, vmax=1)
    image = left.imshow(matrix, norm=norm, cmap="RdYlGn")
    left.set_xticks(range(len(names)), names, rotation=30, ha="right")
    left.set_yticks(range(len(names)), names)
    left.set_xlabel("against")
    left.set_title(f"win share of row against column (even: {even:.0%})")
    for (i, j), v in np.ndenumerate(matrix):
        if not np.isnan(v):
            left.text(j, i, f"{v:.0%}", ha="center", va="center")
    fig.colorbar(image, ax=left, fraction=0.046)
    if report.get("ratings"):
        mu = [r["mu"] for r in report["ratings"]]
        sigma = [r["sigma"] for r in report["ratings"]]
        right.bar(names, mu, yerr=sigma, capsize=4, color="tab:blue")
        right.set_title(f"{RATING} (openskill Plackett–Luce)")
        right.tick_params(axis="x", rotation=30)
    else:
        right.axis("off")
    fig.suptitle(f"{report['game']}: {report['num_games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
