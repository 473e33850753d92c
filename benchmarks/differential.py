"""The array engines against the per-game engines at scale: ≥ 10⁶ actions per game and size.

Plays games through :mod:`hot_envs.batched` and, beside each, the per-game ``State`` — the rule
book — dealt from the same seed, so that both draw every chance event from the same stream
(:mod:`hot_envs.core.chance`), comparing every state dict (reshuffles and next rounds included),
legal mask, observation (of every seat), reward and ending exactly after every action
(``tests/batched/differential.py``, whose fast samples run in the test suite). Each game and
table size is played in chunks with fresh seeds; a tenth of the chunks let the heuristic choose
every seat's actions instead of uniform random play and a tenth a style of the opponent suite,
and some games of Heiße Karten are matches (rounds, a target, round rewards).

    python benchmarks/differential.py [--actions 1000000] [--games 64] [--out benchmarks/results]

Prints a table (actions compared, chance events, mismatches) and writes ``differential.{md,json}``
into ``--out``; exits with status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tqdm import tqdm

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY))

from hot_envs.core.games import get_game  # noqa: E402
from tests.batched.differential import ORACLES, play  # noqa: E402

CHUNK = 20_000
# (game, table size, the options of each chunk in turn)
CASES = [
    ("heisse-luft", 2, [{}, {"three_for_one": False}, {"turn_limit": 60}]),
    *[
        (
            "heisse-karten",
            n,
            [
                {"num_players": n},
                {"num_players": n, "rounds": 3, "reward_mode": "score", "round_rewards": True},
                {"num_players": n, "target": 150, "first_leader": "random"},
            ],
        )
        for n in range(2, 7)
    ],
]


def _policy(game: str, chunk: int) -> str:
    """Who plays chunk ``chunk``: uniform random play, but every tenth chunk the heuristic and
    every tenth from the fifth a style of the opponent suite, in turn."""
    if chunk % 10 == 9:
        return "heuristic"
    if chunk % 10 == 4:
        styles = sorted(get_game(game).styles)
        return styles[(chunk // 10) % len(styles)]
    return "random"


def run_case(game: str, size: int, chunks: list[dict], actions: int, games: int) -> dict:
    done = chance = 0
    mismatches: list[str] = []
    start = time.perf_counter()
    with tqdm(total=actions, desc=f"{game} {size}p", unit="action", leave=False) as bar:
        chunk = 0
        while done < actions and not mismatches:
            options = chunks[chunk % len(chunks)]
            policy = _policy(game, chunk)
            report = play(game, games, min(CHUNK, actions - done), 1000 + chunk, policy, **options)
            done += report.actions
            chance += report.chance_events
            mismatches += [f"chunk {chunk} {options} {policy}: {m}" for m in report.mismatches]
            bar.update(report.actions)
            chunk += 1
    return {
        "game": game,
        "players": size,
        "actions": done,
        "chance_events": chance,
        "mismatches": len(mismatches),
        "first_mismatches": mismatches[:5],
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=1_000_000, help="per game and size")
    parser.add_argument("--games", type=int, default=64, help="games side by side")
    parser.add_argument("--out", type=Path, default=REPOSITORY / "benchmarks" / "results")
    parser.add_argument("--only", choices=["heisse-luft", "heisse-karten"], default=None)
    args = parser.parse_args(argv)
    rows = [
        run_case(game, size, chunks, args.actions, args.games)
        for game, size, chunks in CASES
        if game in ORACLES and args.only in (None, game)
    ]
    lines = [
        "| game | players | actions compared | chance events | mismatches | seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['game']} | {row['players']} | {row['actions']:,} | "
            f"{row['chance_events']:,} | {row['mismatches']} | {row['seconds']} |"
        )
    table = "\n".join(lines)
    print(table)
    for row in rows:
        for mismatch in row["first_mismatches"]:
            print(mismatch)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "differential.md").write_text(table + "\n", encoding="utf-8")
    (args.out / "differential.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if any(row["mismatches"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
