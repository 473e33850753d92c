"""OpenSpiel's DQN and NFSP and the Deep Monte-Carlo learner on both games: learning curves and
a table (docs/training.md, "Other algorithms").

Each setup is one run of :mod:`hot_envs.training.openspiel_rl` (seeded, torch on one thread),
evaluated every ``--eval-every`` steps against ``random`` and the ``heuristic`` over
``--eval-games`` arena games (seats rotated, 95 % Wilson intervals) and at the end over
``--final-games``. Written to ``--out``: ``algorithms.json`` (every setup's final rows, CPU and
wall minutes; a run of one setup replaces its entry and keeps the others), ``algorithms.md`` (the
table) and per setup ``algorithms_ALGORITHM_GAME.csv`` / ``.png`` (the curve; ``_score`` added
with ``--reward score``, Heiße Karten's score as the return, HK-4.3). Run it under ``nice``, one
setup at a time on a shared machine::

    nice python benchmarks/algorithms.py                         # every setup
    nice python benchmarks/algorithms.py --only dqn:heisse-karten --steps 60000
    nice python benchmarks/algorithms.py --only dqn:heisse-karten --reward score
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from hot_envs.training.openspiel_rl import ALGORITHMS, Settings, run

SETUPS = [(a, g) for a in ALGORITHMS for g in ("heisse-luft", "heisse-karten")]


def measure(algorithm: str, game: str, args: argparse.Namespace) -> dict:
    """One run; its final rows with the CPU and wall minutes it took."""
    folder = Path(args.runs) / (
        f"{algorithm}_{game}" + ("_score" if args.reward == "score" else "")
    )
    settings = Settings(
        game=game,
        algorithm=algorithm,
        players=2,
        steps=args.steps,
        out=str(folder),
        seed=args.seed,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_games=args.final_games,
        reward=args.reward,
    )
    start, cpu = time.perf_counter(), time.process_time()
    rows = run(settings)
    out = Path(args.out)
    stem = f"algorithms_{algorithm}_{game}" + ("_score" if args.reward == "score" else "")
    shutil.copyfile(folder / "curve.csv", out / f"{stem}.csv")
    shutil.copyfile(folder / "curve.png", out / f"{stem}.png")
    return {
        "algorithm": algorithm,
        "game": game,
        "players": 2,
        "reward": args.reward,
        "steps": rows[-1]["steps"],
        "training_cpu_minutes": rows[-1]["cpu_seconds"] / 60,
        "cpu_minutes": (time.process_time() - cpu) / 60,
        "wall_minutes": (time.perf_counter() - start) / 60,
        "seed": args.seed,
        "curve": f"{stem}.png",
        "start": rows[:2],
        "final": rows[-2:],
    }


def table(entries: list[dict]) -> str:
    def share(row: dict) -> str:
        return (
            f"{100 * row['win_share']:.1f} % ({100 * row['ci_low']:.1f}–"
            f"{100 * row['ci_high']:.1f}), {row['games']} games"
        )

    lines = [
        "| algorithm | game | reward | steps | training CPU min | run CPU min "
        "| vs random, untrained | vs random | vs heuristic |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for e in entries:
        final = {row["opponent"]: row for row in e["final"]}
        start = {row["opponent"]: row for row in e["start"]}
        lines.append(
            f"| {e['algorithm'].upper()} | {e['game']} | {_key(e)[2]} | {e['steps']:,} | "
            f"{e['training_cpu_minutes']:.1f} | {e['cpu_minutes']:.1f} | "
            f"{100 * start['random']['win_share']:.1f} % | {share(final['random'])} | "
            f"{share(final['heuristic'])} |"
        )
    return "\n".join(lines) + "\n"


def _key(entry: dict) -> tuple[str, str, str]:
    return entry["algorithm"], entry["game"], entry.get("reward", "win")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one setup, ALGORITHM:GAME (default: every setup)")
    parser.add_argument("--steps", type=int, default=60_000)
    parser.add_argument("--eval-every", type=int, default=10_000)
    parser.add_argument("--eval-games", type=int, default=400)
    parser.add_argument("--final-games", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", choices=("win", "score"), default="win", help="HK-4.3")
    parser.add_argument("--runs", default="runs/algorithms", help="the runs' folders")
    parser.add_argument("--out", default="benchmarks/results")
    args = parser.parse_args()
    setups = SETUPS
    if args.only:
        setups = [tuple(args.only.split(":", 1))]
        if setups[0] not in SETUPS:
            parser.error(f"--only must be one of {', '.join(f'{a}:{g}' for a, g in SETUPS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    saved = out / "algorithms.json"
    entries = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else []
    for algorithm, game in setups:
        entry = measure(algorithm, game, args)
        key = (algorithm, game, args.reward)
        entries = [e for e in entries if _key(e) != key]
        entries.append(entry)
        entries.sort(key=lambda e: (SETUPS.index(_key(e)[:2]), _key(e)[2] != "win"))
        saved.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
        (out / "algorithms.md").write_text(table(entries), encoding="utf-8")
        print(table(entries))


if __name__ == "__main__":
    main()
