"""CPU time of ``hot-envs evaluate`` and ``hot-envs gauntlet`` today against 6a115e4's, before
the arena and the gauntlet played their games in batches on the array engines
(docs/benchmarks.md, "Evaluation in batches").

Each case runs the command line in a fresh process on one tree or the other (6a115e4's package
from git: :mod:`benchmarks.earlier`), the two taking turns, and counts the process time of that
process and its children (the arena's worker processes): everything the command costs — the
imports, the games, the ratings and the report.

    python benchmarks/evaluation_speed.py            # every case, one round
    python benchmarks/evaluation_speed.py --rounds 3 --only gauntlet
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

from earlier import earlier_tree, ratio_table, run_on, take_turns, write_results


def non_search(game: str) -> list[str]:
    """The suite's opponents but the costly ones, the search agent (hot_envs.agents.suite)."""
    from hot_envs.agents.suite import suite

    return [o.spec for o in suite(game) if not o.costly]


def cases(games: int, gauntlet_games: int) -> list[tuple[str, list[str]]]:
    """(name, the command line after ``python -m hot_envs.cli``) of every case."""
    evaluate = [
        ("Heiße Luft", "heisse-luft", []),
        ("Heiße Karten, 2 players", "heisse-karten", ["--players", "2"]),
        ("Heiße Karten, 4 players", "heisse-karten", ["--players", "4"]),
    ]
    rows = [
        (
            f"evaluate heuristic vs heuristic, {title}, {games:,} games",
            ["evaluate", game, "--agents", "heuristic", "heuristic", "--games", str(games)]
            + players
            + ["--quiet"],
        )
        for title, game, players in evaluate
    ]
    for title, game, agent in (
        ("Heiße Luft", "heisse-luft", "heisse_luft_v0"),
        ("Heiße Karten", "heisse-karten", "heisse_karten_v0"),
    ):
        rows.append(
            (
                f"gauntlet {agent}, {title}, 2 players, {len(non_search(game))} non-search "
                f"opponents, {gauntlet_games} games each",
                ["gauntlet", game, "--agent", agent, "--games", str(gauntlet_games)]
                + ["--opponents", *non_search(game), "--quiet"],
            )
        )
    return rows


def cpu_seconds(tree: Path | None, command: list[str]) -> float:
    """The process time of ``hot-envs COMMAND`` run on ``tree``, its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_on(tree, ["-m", "hot_envs.cli", *command])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--games", type=int, default=2000, help="evaluate: games")
    parser.add_argument("--gauntlet-games", type=int, default=200, help="per opponent")
    parser.add_argument("--only", help="only the cases whose name holds this text")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    rows = []
    # The same command with one deal per matchup: what the command costs before its games
    # (interpreter, imports, compiled kernels loaded, agents built, the report).
    start_ups = dict(cases(1, 1))
    with earlier_tree(inside=("checkpoints",)) as tree:
        for (name, command), start_up in zip(
            cases(args.games, args.gauntlet_games), start_ups.values(), strict=True
        ):
            if args.only and args.only not in name:
                continue
            result, fixed = (
                take_turns(
                    args.rounds,
                    lambda which, _, line=line: cpu_seconds(
                        tree if which == "before" else None, line
                    ),
                )
                for line in (command, start_up)
            )
            # take_turns' ratio is now / before; a speed-up reads before / now
            games_before = result["before"] - fixed["before"]
            games_now = result["now"] - fixed["now"]
            row = {
                "case": name,
                "before": result["before"],
                "now": result["now"],
                "ratio": result["before"] / result["now"],
                "start_up_before": fixed["before"],
                "start_up_now": fixed["now"],
                "games_ratio": games_before / games_now,
                "command": "hot-envs " + " ".join(command),
            }
            rows.append(row)
            print(
                f"{name}: {row['before']:.1f} s → {row['now']:.1f} s, {row['ratio']:.1f}×; "
                f"start-up {row['start_up_before']:.1f} → {row['start_up_now']:.1f} s, "
                f"the games alone {row['games_ratio']:.1f}×"
            )
            sys.stdout.flush()
    table = ratio_table(("case", "6a115e4 (CPU s)", "today (CPU s)"), rows, 10)
    table = _with_decimals(table, rows)
    write_results(args.out, "evaluation_speed", table, rows, rounds=args.rounds)
    print(table)


def _with_decimals(table: str, rows: list[dict]) -> str:
    """ratio_table's rows with one decimal (CPU seconds) and the start-up beside them: the
    command with one deal per matchup, and the ratio of what the games alone cost."""
    lines = table.splitlines()
    lines[0] += " start-up, 6a115e4 / today (CPU s) | the games alone |"
    lines[1] += "---:|---:|"
    for i, row in enumerate(rows):
        met = "met" if row["ratio"] >= 10 else "missed"
        lines[2 + i] = (
            f"| {row['case']} | {row['before']:,.1f} | {row['now']:,.1f} | "
            f"{row['ratio']:.1f}× ({met}) | {row['start_up_before']:.1f} / "
            f"{row['start_up_now']:.1f} | {row['games_ratio']:.1f}× |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
