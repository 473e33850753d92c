"""Expert iteration's rounds (hot_envs.training.expert_iteration): strength against labels.

Each round's network — and the network the first round started from — plays the heuristic on
the same deals (``--seed``), seats rotated, ``--games`` games each at every table size; the
table gives the labels it learnt from, the held-out regret and agreement its round reported,
and its win share with the 95 % interval. The plot: win share against labels, one point a round.

``--teacher-games N`` also measures the teacher each round labelled with: the round's search
with the round's guide (the apprentice as its prior and / or rollouts) and the plain search,
each against the heuristic, N games each (the search costs milliseconds a decision: slow).

    python benchmarks/expert_iteration.py runs/RUN/labels --game heisse-luft --games 1000

Writes ``expert_iteration_<name>.{json,md,png}`` to ``--out`` (default benchmarks/results).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hot_envs.agents import make_agent
from hot_envs.agents.checkpoint import CheckpointAgent
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import play_match, wilson_interval
from hot_envs.training.search_labels import ShardJob, guided_search

RESULTS = Path(__file__).parent / "results"


def against_heuristic(game: str, agent: Any, players: int, games: int, seed: int) -> dict:
    """``agent`` alone against ``players`` − 1 heuristics: win share and 95 % interval."""
    lineup = [agent] + ["heuristic"] * (players - 1)
    result = play_match(game, lineup, games, seed=seed, players=players, progress=False)
    mine = result.stats()[0]
    low, high = wilson_interval(mine.share, mine.games)
    return {
        "players": players,
        "games": mine.games,
        "share": mine.share / mine.games,
        "low": low,
        "high": high,
    }


def rounds(folder: Path) -> list[dict[str, Any]]:
    """The finished rounds' figures, in order."""
    return [json.loads(path.read_text()) for path in sorted(folder.glob("round-*/round.json"))]


def teacher(entry: dict[str, Any], apprentice: Path, game: str, guided: bool) -> Any:
    """Round ``entry``'s search, with its guide or without."""
    labelling = entry["settings"]["labelling"]
    job = ShardJob(
        path="",
        game=game,
        player_counts=(),
        labels=0,
        seed=entry["round"],
        apprentice=str(apprentice),
        teacher=labelling["teacher"],
        opponents=(),
        guide=tuple(labelling["guide"]) if guided else (),
        margin=labelling["margin"],
    )
    return guided_search(job, CheckpointAgent.load(apprentice, game))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", type=Path, help="the rounds' folder (exit_labels_dir)")
    parser.add_argument("--game", default="heisse-luft")
    parser.add_argument("--players", type=int, nargs="+", help="table sizes (default: 2)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--teacher-games", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--name", help="names the result files (default: the run folder's)")
    args = parser.parse_args(argv)
    game = get_game(args.game).name
    sizes = args.players or [2]
    entries = rounds(args.labels)
    if not entries:
        parser.error(f"no finished round in {args.labels}")
    networks = [("start", 0, args.labels / "round-01" / "apprentice", None)]
    networks += [
        (f"round {e['round']}", e["labels"], args.labels / f"round-{e['round']:02d}" / "trained", e)
        for e in entries
    ]
    rows = []
    for name, labels, path, entry in networks:
        agent = make_agent(str(path), game)
        for n in sizes:
            row = against_heuristic(game, agent, n, args.games, args.seed)
            rows.append(
                {
                    "network": name,
                    "labels": labels,
                    **row,
                    "regret": entry and entry["regret"],
                    "agreement": entry and entry["agreement"],
                }
            )
            print(format_row(rows[-1]), flush=True)
    teachers = []
    for entry in entries if args.teacher_games > 0 else []:
        apprentice = args.labels / f"round-{entry['round']:02d}" / "apprentice"
        for guided in (False, True):
            search = teacher(entry, apprentice, game, guided)
            for n in sizes:
                row = against_heuristic(game, search, n, args.teacher_games, args.seed)
                teachers.append({"round": entry["round"], "guided": guided, **row})
                print(f"teacher of round {entry['round']}, guided {guided}: {format_row(row)}")
    name = args.name or args.labels.resolve().parent.name
    write(args.out / f"expert_iteration_{name}", game, rows, teachers)
    return 0


def format_row(row: dict[str, Any]) -> str:
    interval = f"{100 * row['low']:.1f}–{100 * row['high']:.1f}"
    return f"{100 * row['share']:.1f} % ({interval}) over {row['games']} games at {row['players']}"


def write(stem: Path, game: str, rows: list[dict], teachers: list[dict]) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(
        json.dumps({"game": game, "networks": rows, "teachers": teachers}, indent=2) + "\n"
    )
    lines = [
        "| network | labels | players | held-out regret | agreement | against the heuristic |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        regret = "" if row["regret"] is None else f"{row['regret']:.4f}"
        agreement = "" if row["agreement"] is None else f"{100 * row['agreement']:.1f} %"
        lines.append(
            f"| {row['network']} | {row['labels']:,} | {row['players']} | {regret} | "
            f"{agreement} | {format_row(row).split(' over')[0]} |"
        )
    for row in teachers:
        lines.append(
            f"| round {row['round']}'s teacher{' (guided)' if row['guided'] else ''} | | "
            f"{row['players']} | | | {format_row(row).split(' over')[0]} |"
        )
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")
    plot(stem.with_suffix(".png"), game, rows)
    print("\n".join(lines))


def plot(path: Path, game: str, rows: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4), constrained_layout=True)
    for n in sorted({row["players"] for row in rows}):
        mine = [row for row in rows if row["players"] == n]
        x = [row["labels"] for row in mine]
        y = [100 * row["share"] for row in mine]
        errors = [
            [100 * (row["share"] - row["low"]) for row in mine],
            [100 * (row["high"] - row["share"]) for row in mine],
        ]
        axes.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=f"{n} players")
    axes.set_xlabel("labels learnt from")
    axes.set_ylabel("win share against\nthe heuristic (%)")
    axes.set_title(f"{get_game(game).title}: expert iteration's rounds")
    axes.legend()
    figure.savefig(path, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    raise SystemExit(main())
