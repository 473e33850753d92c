"""Strength benchmark: round robins of random / heuristic / search in both games.

Tables: Heiße Luft, 2-player Heiße Karten and 4-player Heiße Karten (each agent alone against
three copies of each other agent). For every table it prints the per-agent summary and the
win-share matrix, and writes ``strength_<table>.{json,csv,png}`` to ``benchmarks/results/``;
``strength.md`` there gathers every table run so far (all pairs with 95 % Wilson intervals,
CPU time per decision, ratings).

About 2,000 games per pair give intervals of ±2 %; pairs with the search agent cost about
0.3 s per search decision, so they take hours on a few cores — ``--search-games`` plays fewer of
them. Usage::

    python benchmarks/strength.py                       # 2,000 games per pair, all cores
    python benchmarks/strength.py --games 400 --search-games 100 --tables hl hk2
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hot_envs.arena import (
    GameRecord,
    MatchResult,
    play_matchups,
    round_robin_lineups,
    unique_names,
    wilson_interval,
)
from hot_envs.report import build_report, print_report, save_report

RESULTS = Path(__file__).parent / "results"


@dataclass(frozen=True)
class Table:
    key: str
    game: str
    players: int


TABLES = {
    "hl": Table("hl", "heisse-luft", 2),
    "hk2": Table("hk2", "heisse-karten", 2),
    "hk4": Table("hk4", "heisse-karten", 4),
}


def run_table(table: Table, args: argparse.Namespace) -> dict:
    """One round robin, a lineup at a time; ``args.search_games`` for lineups with search.

    Each finished lineup's games are kept in ``OUT/partial/`` until the table is done, so an
    interrupted run picks up where it stopped.
    """
    specs = ["random", "heuristic", args.search]
    lineups = round_robin_lineups(len(specs), table.players)
    start = time.perf_counter()
    records = []
    for m, lineup in enumerate(lineups):
        games = args.search_games if 2 in lineup else args.games
        records += [replace(r, matchup=m) for r in run_lineup(table, specs, lineup, games, args)]
    result = MatchResult(table.game, unique_names(specs), lineups, records, args.seed)
    report = build_report(result)
    report["seconds"] = time.perf_counter() - start
    report["table"] = table.key
    report["command"] = (
        f"--tables {table.key} --games {args.games} --search-games {args.search_games} "
        f"--search {args.search} --seed {args.seed}"
    )
    report["pairs"] = pair_rows(result, table)
    title = f"{table.game}, {table.players} players: {len(result.records)} games"
    print_report(report, title=title)
    save_report(report, args.out, stem=f"strength_{table.key}", games=False)  # no megabytes
    shutil.rmtree(args.out / "partial", ignore_errors=True)
    return report


def run_lineup(
    table: Table, specs: list[str], lineup: tuple[int, ...], games: int, args: argparse.Namespace
) -> list[GameRecord]:
    """The games of one lineup, from ``OUT/partial/`` if an earlier run finished them."""
    name = "_".join(specs[i] for i in lineup)
    path = args.out / "partial" / f"{table.key}_{name}_{games}_{args.seed}.json".replace(":", "-")
    if path.is_file():
        return [
            GameRecord(**{k: _tuple(v) for k, v in r.items()}) for r in json.loads(path.read_text())
        ]
    result = play_matchups(
        table.game,
        [specs[i] for i in lineup],
        [list(range(len(lineup)))],
        games,
        seed=args.seed,
        players=table.players,
        workers=args.workers,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(r) for r in result.records]))
    return result.records


def _tuple(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def pair_rows(result, table: Table) -> list[dict]:
    """Per lineup: one agent's win share against the other, with its interval and both agents'
    time per decision (2 players: the later agent of the list, so "search against heuristic";
    more players: the agent alone against the copies)."""
    rows = []
    for m, lineup in enumerate(result.lineups):
        stats = {s.name: s for s in result.stats(m)}
        first = lineup[1] if table.players == 2 else lineup[0]
        other = next(i for i in lineup if i != first)
        mine, theirs = stats[result.agents[first]], stats[result.agents[other]]
        low, high = wilson_interval(mine.share, mine.games)
        against = result.agents[other]
        rows.append(
            {
                "table": f"{table.game} {table.players}p",
                "agent": result.agents[first],
                "against": against if table.players == 2 else f"{table.players - 1} × {against}",
                "games": mine.games,
                "win_share": mine.share / mine.games,
                "ci_low": low,
                "ci_high": high,
                "ms": 1000 * mine.seconds / max(mine.decisions, 1),
                "ms_against": 1000 * theirs.seconds / max(theirs.decisions, 1),
            }
        )
    return rows


def write_markdown(out: Path) -> Path:
    """``strength.md`` from every ``strength_<table>.json`` in ``out`` (tables run separately
    keep their own settings)."""
    reports = [
        json.loads(path.read_text())
        for key in TABLES
        if (path := out / f"strength_{key}.json").is_file()
    ]
    lines = [
        "# Strength of the shipped agents",
        "",
        "`python benchmarks/strength.py` — win share: a win counts 1, a draw ½ (a win shared by "
        "W players 1/W); 95 % Wilson intervals; decision times in CPU milliseconds. With 4 "
        "players an agent plays alone against 3 copies of the other (even = 25 %).",
        "",
        "| table | agent | against | games | win share | 95 % CI | ms/decision (agent, against) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for report in reports:
        for r in report["pairs"]:
            lines.append(
                f"| {r['table']} | {r['agent']} | {r['against']} | {r['games']} "
                f"| {r['win_share']:.1%} | {r['ci_low']:.1%} – {r['ci_high']:.1%} "
                f"| {r['ms']:.1f}, {r['ms_against']:.1f} |"
            )
    lines += ["", "Ratings (openskill Plackett–Luce, mean of 10 game orders):", ""]
    lines += ["| table | agent | mu | sigma | ordinal |", "|---|---|---:|---:|---:|"]
    for report in reports:
        for r in report["ratings"] or []:
            lines.append(
                f"| {report['table']} | {r['agent']} "
                f"| {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |"
            )
    lines += ["", "Runs (arguments of `benchmarks/strength.py`, wall-clock minutes):", ""]
    for report in reports:
        lines.append(
            f"- {report['table']}: `{report['command']}` ({report['seconds'] / 60:.0f} min)"
        )
    path = out / "strength.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per pair")
    parser.add_argument("--search-games", type=int, default=None, help="games per search pair")
    parser.add_argument("--search", default="search", help="the search agent's spec")
    parser.add_argument("--tables", nargs="+", choices=sorted(TABLES), default=list(TABLES))
    parser.add_argument("--workers", type=int, default=None, help="processes (all cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    args.search_games = args.search_games or args.games
    for key in args.tables:
        run_table(TABLES[key], args)
    print(f"wrote {write_markdown(args.out)}")


if __name__ == "__main__":
    main()
