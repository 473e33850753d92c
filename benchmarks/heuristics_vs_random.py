"""The heuristics against random players, measured against their targets.

One line per setup: Heiße Luft (heuristic vs random, target 99 % wins), and Heiße Karten with N
= 2 … 6 players (the heuristic alone against N − 1 random players; target 99 % with two players,
a win share of at least 2/N with more). Games go through
:func:`hot_envs.evaluation.arena.play_match`: duplicate deals, seats rotated, seeded, on all cores,
with a progress bar. The win share counts a shared win 1/W (HK-4.3; a Heiße Luft draw counts ½);
intervals are 95 % Wilson intervals.

Usage::

    python benchmarks/heuristics_vs_random.py              # 2,000 games per line
    python benchmarks/heuristics_vs_random.py --games 1000 --out benchmarks/results
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hot_envs.evaluation.arena import play_match

SETUPS = [("heisse-luft", 2, 0.99)] + [
    ("heisse-karten", n, 0.99 if n == 2 else 2 / n) for n in range(2, 7)
]


def measure(game: str, players: int, games: int, seed: int, workers: int | None) -> dict:
    """The heuristic's summary line against ``players - 1`` random players."""
    lineup = ["heuristic"] + ["random"] * (players - 1)
    start = time.perf_counter()
    result = play_match(game, lineup, games, seed=seed, workers=workers, players=players)
    row = next(s for s in result.summary() if s["agent"] == "heuristic")
    row.update(game=game, players=players, seconds=time.perf_counter() - start)
    return row


def print_table(rows: list[dict]) -> None:
    header = ["game", "N", "games", "win share", "95 % interval", "target", "ms/decision", ""]
    lines = [
        [
            row["game"],
            str(row["players"]),
            str(row["games"]),
            f"{row['win_share']:.2%}",
            f"{row['ci_low']:.2%} – {row['ci_high']:.2%}",
            f"≥ {row['target']:.1%}",
            f"{row['ms_per_decision']:.3f}",
            "ok" if row["win_share"] >= row["target"] else "MISSED",
        ]
        for row in rows
    ]
    widths = [max(len(x) for x in column) for column in zip(header, *lines, strict=True)]
    for line in [header, ["-" * w for w in widths], *lines]:
        print("  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per line (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all)")
    parser.add_argument("--out", type=Path, default=None, help="folder for a JSON of the rows")
    args = parser.parse_args()
    rows = []
    for game, players, target in SETUPS:
        row = measure(game, players, args.games, args.seed, args.workers)
        row["target"] = target
        rows.append(row)
    print_table(rows)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "heuristics_vs_random.json"
        path.write_text(json.dumps(rows, indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
