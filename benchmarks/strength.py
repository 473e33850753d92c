"""Strength benchmark: round robins of random / heuristic / search in both games, and trained
checkpoints against them.

Round robins (``--tables``): Heiße Luft, 2-player Heiße Karten and 4-player Heiße Karten (each
agent alone against three copies of each other agent). For every table it prints the per-agent
summary and the win-share matrix, and writes ``strength_<table>.{json,csv,png}`` to
``benchmarks/results/``; ``strength.md`` there gathers every table run so far (all pairs with
95 % Wilson intervals, CPU time per decision, ratings).

Checkpoints (``--checkpoint PATH …``, the game read from each checkpoint's metadata): the
checkpoint's numpy agent alone in one seat against N − 1 copies of each ``--opponents`` agent
(default random, heuristic and ``--search``), for N = 2 in Heiße Luft and N = 2…6 in Heiße Karten
(``--players``). Each row gives the win share with its 95 % interval next to the even share 1/N
and the target (against the heuristic: ≥ 55 % in Heiße Luft, ≥ 60 % in 2-player Heiße Karten,
≥ 1.2/N with more players). Writes ``strength_ckpt_<name>.{json,csv,png}`` per checkpoint and
``strength_ckpt.md`` gathering every checkpoint measured so far. With ``--checkpoint`` and no
``--tables`` only the checkpoints are played.

About 2,000 games per pair give intervals of ±2 %; pairs with the search agent cost 0.15–0.25 s
per search decision, so they take hours on a few cores — ``--search-games`` plays fewer of
them. Every finished deal (its games with the seats rotated) is kept in ``OUT/partial/``, under
a digest of the ``hot_envs`` sources that played it, so an interrupted run picks up where it
stopped — stop a long search run at any time and start the same command later, or with a larger
``--search-games``, to go on; a change to the code starts afresh.
``--precision 0.02`` plays each pair only until its 95 % interval is ±2 % (the games options are
then the most): about 200 games for a 98 % pair, 2,000 for an even one. Usage::

    python benchmarks/strength.py                       # 2,000 games per pair, all cores
    python benchmarks/strength.py --games 400 --search-games 100 --tables hl hk2
    python benchmarks/strength.py --tables hl --search-games 2500 --precision 0.02  # resumable
    python benchmarks/strength.py --checkpoint runs/hl/best --search-games 200
    python benchmarks/strength.py --checkpoint checkpoints/*_v0.json --opponents random heuristic
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import re
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hot_envs.agents.checkpoint import read_metadata
from hot_envs.agents.shipped import find_checkpoint
from hot_envs.core.games import get_game
from hot_envs.evaluation.arena import (
    GameRecord,
    MatchResult,
    play_matchups,
    round_robin_lineups,
    unique_names,
    wilson_interval,
)
from hot_envs.evaluation.gauntlet import code_digest
from hot_envs.evaluation.report import build_report, print_report, save_report

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

    Each finished deal's games are kept in ``OUT/partial/``, so an interrupted run picks up
    where it stopped and a later one with more games goes on from there (:func:`run_lineup`).
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
        + (f" --precision {args.precision}" if args.precision else "")
    )
    report["pairs"] = pair_rows(result, table)
    title = f"{table.game}, {table.players} players: {len(result.records)} games"
    print_report(report, title=title)
    save_report(report, args.out, stem=f"strength_{table.key}", games=False)  # no megabytes
    return report


def run_lineup(
    table: Table, specs: list[str], lineup: tuple[int, ...], games: int, args: argparse.Namespace
) -> list[GameRecord]:
    """The games of one lineup: ``games`` of them, or with ``args.precision`` only as many as
    it takes (checked every tenth of ``games``) for the lone agent's 95 % interval to be
    ±``precision`` — 200 games do for 98 %, 2,000 for 50 %.

    Every finished deal (its games with the seats rotated) is appended to ``OUT/partial/`` at
    once, so an interrupted run plays only the deals it had not finished — also with a larger
    ``--games``: a deal's games never depend on how many follow."""
    name = "_".join(specs[i] for i in lineup)
    path = args.out / "partial" / slug(f"{table.key}_{name}_{args.seed}_{code_digest()}.jsonl")
    groups = math.ceil(games / table.players)
    played = {g: group for g, group in read_partial(path, table.players).items() if g < groups}
    step = max(1, groups // 10) if args.precision else groups
    target = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as file:

        def keep(group: list[GameRecord]) -> None:
            file.writelines(json.dumps(asdict(r)) + "\n" for r in group)
            file.flush()

        while target < groups and not precise(played, args.precision):
            target = min(groups, target + step)
            result = play_matchups(
                table.game,
                [specs[i] for i in lineup],
                [list(range(len(lineup)))],
                target * table.players,
                seed=args.seed,
                players=table.players,
                workers=args.workers,
                skip={(0, g) for g in played},
                on_group=keep,
            )
            for record in result.records:
                played.setdefault(record.index // table.players, []).append(record)
    return sorted((r for group in played.values() for r in group), key=lambda r: r.index)


def precise(played: dict[int, list[GameRecord]], precision: float | None) -> bool:
    """Whether the lone agent (slot 0) of ``played`` has a 95 % interval of ±``precision``."""
    if not precision or not played:
        return False
    share = n = 0
    for record in (r for group in played.values() for r in group):
        seat = record.seats.index(0)
        best = max(record.returns)
        winners = sum(1 for value in record.returns if value == best)
        share += 1 / winners if record.returns[seat] == best else 0.0
        n += 1
    low, high = wilson_interval(share, n)
    return (high - low) / 2 <= precision


def read_partial(path: Path, players: int) -> dict[int, list[GameRecord]]:
    """The whole deals (all ``players`` rotations) kept in ``path``, by deal; a line cut off by
    an interruption and a deal with games missing are dropped (the deal is played again; a
    game written twice counts once)."""
    groups: dict[int, dict[int, GameRecord]] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                record = GameRecord(**{k: _tuple(v) for k, v in json.loads(line).items()})
            except (json.JSONDecodeError, TypeError):
                continue
            groups.setdefault(record.index // players, {})[record.index] = record
    return {g: list(group.values()) for g, group in groups.items() if len(group) == players}


def slug(text: str) -> str:
    """``text`` as a file name: anything but letters, digits, ``.``, ``_`` and ``-`` → ``-``."""
    return re.sub(r"[^\w.-]", "-", text)


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


HEURISTIC_TARGETS = {"heisse-luft": 0.55, "heisse-karten": 0.60}  # 2 players; more: 1.2/N


def checkpoint_target(game: str, players: int, against: str) -> float | None:
    """The strength target for a checkpoint against ``against`` (only the heuristic has one)."""
    if against.partition(":")[0] != "heuristic":
        return None
    return HEURISTIC_TARGETS[game] if players == 2 else 1.2 / players


def run_checkpoint(path: Path, args: argparse.Namespace) -> dict:
    """The checkpoint alone against N − 1 copies of each opponent, for every player count."""
    stem = find_checkpoint(path)
    meta = read_metadata(stem)
    game, name = meta["game"], stem.name
    digest = hashlib.sha1(stem.with_suffix(".npz").read_bytes()).hexdigest()[:10]
    players = get_game(game).players
    counts = args.players if len(players) > 1 else list(players)
    specs = [str(stem), *(args.opponents or ["random", "heuristic", args.search])]
    start = time.perf_counter()
    rows, summaries = [], {}
    for n in counts:
        # the weights' digest in the key: a retrained checkpoint never resumes an old run
        table = Table(f"ckpt-{name}-{digest}-{n}p", game, n)
        lineups = [(0,) + (j,) * (n - 1) for j in range(1, len(specs))]
        records = []
        for m, lineup in enumerate(lineups):
            games = args.search_games if specs[lineup[1]].startswith("search") else args.games
            records += [
                replace(r, matchup=m) for r in run_lineup(table, specs, lineup, games, args)
            ]
        result = MatchResult(game, unique_names(specs), lineups, records, args.seed)
        rows += checkpoint_rows(result, name, n)
        summaries[n] = result.summary()
    report = {
        "checkpoint": str(stem),
        "name": name,
        "game": game,
        "npz_sha1": digest,
        "network": meta["network"],
        "training_steps": (meta.get("training") or {}).get("steps"),
        "command": f"--checkpoint {stem} --opponents {' '.join(specs[1:])} --games {args.games} "
        f"--search-games {args.search_games} --seed {args.seed}"
        + (f" --precision {args.precision}" if args.precision else "")
        + (f" --players {' '.join(map(str, counts))}" if len(players) > 1 else ""),
        "seconds": time.perf_counter() - start,
        "rows": rows,
        "summaries": summaries,
    }
    print_checkpoint_rows(rows)
    out = args.out / f"strength_ckpt_{slug(name)}"
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    with out.with_suffix(".csv").open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot_checkpoint(report, out.with_suffix(".png"))
    return report


def checkpoint_rows(result: MatchResult, name: str, players: int) -> list[dict]:
    """Per lineup: the checkpoint's (agent 0's) win share against the copies of the other."""
    rows = []
    for m, lineup in enumerate(result.lineups):
        stats = {s.name: s for s in result.stats(m)}
        against = result.agents[lineup[1]]
        mine, theirs = stats[result.agents[0]], stats[against]
        low, high = wilson_interval(mine.share, mine.games)
        rows.append(
            {
                "checkpoint": name,
                "game": result.game,
                "players": players,
                "against": against,
                "games": mine.games,
                "win_share": mine.share / mine.games,
                "ci_low": low,
                "ci_high": high,
                "even_share": 1 / players,
                "target": checkpoint_target(result.game, players, against),
                "ms": 1000 * mine.seconds / max(mine.decisions, 1),
                "ms_against": 1000 * theirs.seconds / max(theirs.decisions, 1),
            }
        )
    return rows


def _met(row: dict) -> str:
    if row["target"] is None:
        return ""
    if row["ci_low"] >= row["target"]:
        return "yes"
    return "no" if row["ci_high"] < row["target"] else "open"


def checkpoint_table(rows: list[dict]) -> list[str]:
    lines = [
        "| checkpoint | game | players | against | games | win share | 95 % CI | even (1/N) "
        "| target | met? | ms/decision (checkpoint, against) |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        target = "" if r["target"] is None else f"≥ {r['target']:.1%}"
        against = r["against"] if r["players"] == 2 else f"{r['players'] - 1} × {r['against']}"
        lines.append(
            f"| {r['checkpoint']} | {r['game']} | {r['players']} | {against} | {r['games']:,} "
            f"| {r['win_share']:.1%} | {r['ci_low']:.1%} – {r['ci_high']:.1%} "
            f"| {r['even_share']:.1%} | {target} | {_met(r)} "
            f"| {r['ms']:.2f}, {r['ms_against']:.2f} |"
        )
    return lines


def print_checkpoint_rows(rows: list[dict]) -> None:
    print("\n".join(checkpoint_table(rows)))


def plot_checkpoint(report: dict, path: Path) -> None:
    """Win share with its interval per player count and opponent; even share and target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = report["rows"]
    counts = sorted({r["players"] for r in rows})
    opponents = list(dict.fromkeys(r["against"] for r in rows))
    width = 0.8 / len(opponents)
    fig, ax = plt.subplots(figsize=(max(5.5, 1.4 * len(counts) + 2), 4.0))
    for k, against in enumerate(opponents):
        mine = [r for r in rows if r["against"] == against]
        x = (
            np.array([counts.index(r["players"]) for r in mine])
            + (k - (len(opponents) - 1) / 2) * width
        )
        share = np.array([r["win_share"] for r in mine])
        low, high = (np.array([r[key] for r in mine]) for key in ("ci_low", "ci_high"))
        errors = np.clip([share - low, high - share], 0.0, None)  # rounding at 0 % and 100 %
        ax.bar(x, share, width * 0.9, yerr=errors, capsize=3, label=f"against {against}")
        for xi, r in zip(x, mine, strict=True):
            if r["target"] is not None:
                ax.hlines(r["target"], xi - width / 2, xi + width / 2, color="tab:red", lw=2)
    ax.hlines(
        [1 / n for n in counts],
        np.arange(len(counts)) - 0.45,
        np.arange(len(counts)) + 0.45,
        color="black",
        linestyles="dashed",
        lw=1,
        label="even share 1/N",
    )
    ax.plot([], [], color="tab:red", lw=2, label="target (against the heuristic)")
    ax.set_xticks(range(len(counts)), [f"N = {n}" for n in counts])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("checkpoint's win share (95 % CI)")
    ax.set_title(f"{report['name']} alone against N − 1 copies of each opponent", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def write_checkpoint_markdown(out: Path) -> Path:
    """``strength_ckpt.md`` from every ``strength_ckpt_<name>.json`` in ``out``."""
    reports = [json.loads(p.read_text()) for p in sorted(out.glob("strength_ckpt_*.json"))]
    lines = [
        "# Strength of trained checkpoints",
        "",
        "`python benchmarks/strength.py --checkpoint PATH` — the checkpoint's numpy agent alone "
        "in one seat against N − 1 copies of each opponent, deals replayed with seats rotated; "
        "win share: a win counts 1, a win shared by W players 1/W; 95 % Wilson intervals; "
        "decision times in CPU milliseconds. *met?*: yes when the whole interval is at or "
        "above the target, no when it is below, open when it straddles it.",
        "",
        *checkpoint_table([r for report in reports for r in report["rows"]]),
        "",
        "Runs (arguments of `benchmarks/strength.py`, wall-clock minutes):",
        "",
    ]
    for report in reports:
        lines.append(
            f"- {report['name']} (npz sha1 {report['npz_sha1']}): `{report['command']}` "
            f"({report['seconds'] / 60:.0f} min)"
        )
    path = out / "strength_ckpt.md"
    path.write_text("\n".join(lines) + "\n")
    return path


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per pair")
    parser.add_argument("--search-games", type=int, default=None, help="games per search pair")
    parser.add_argument("--search", default="search", help="the search agent's spec")
    parser.add_argument(
        "--tables",
        nargs="+",
        choices=sorted(TABLES),
        default=None,
        help="round robins to play (default: all of them, none with --checkpoint)",
    )
    parser.add_argument(
        "--checkpoint",
        nargs="+",
        type=Path,
        default=[],
        metavar="PATH",
        help="checkpoints to measure (NAME or any of its files), each against --opponents",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="SPEC",
        help="the checkpoints' opponents (default: random heuristic and --search)",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        type=int,
        default=[2, 3, 4, 5, 6],
        help="Heiße Karten player counts for the checkpoints (default 2 3 4 5 6)",
    )
    parser.add_argument(
        "--precision",
        type=float,
        default=None,
        help="stop a lineup once its 95%% interval is ± this (e.g. 0.02); --games is the most",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (all cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    args.search_games = args.search_games or args.games
    if args.tables is None:
        args.tables = [] if args.checkpoint else list(TABLES)
    for path in args.checkpoint:  # a missing or foreign file fails before any game is played
        try:
            read_metadata(path)
        except (FileNotFoundError, ValueError) as error:
            parser.error(str(error))
    if any(not 2 <= n <= 6 for n in args.players):
        parser.error(f"Heiße Karten has 2 to 6 players, not {args.players}")
    for key in args.tables:
        run_table(TABLES[key], args)
    if args.tables:
        print(f"wrote {write_markdown(args.out)}")
    for path in args.checkpoint:
        run_checkpoint(path, args)
    if args.checkpoint:
        print(f"wrote {write_checkpoint_markdown(args.out)}")


if __name__ == "__main__":
    main()
